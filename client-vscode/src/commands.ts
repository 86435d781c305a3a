/** The palette commands: thin wrappers that turn the cursor into a server command's arguments. */
import * as vscode from 'vscode';
import type { ServerController } from './client';
import { type TestArgument, testItemOf } from './testArgument';

// The server's commands. `selfDebug` applies the fix (workspace/applyEdit); this client never
// sends it: its code actions are turned into `proposeFix` (client.ts), whose answer carries the fix
// for the review diff (fixReview.ts).
export const SERVER_SELF_DEBUG = 'selfdebug.selfDebug';
export const SERVER_PROPOSE_FIX = 'selfdebug.proposeFix';
export const SERVER_RUN_TESTS = 'selfdebug.runTests';
// The failure of a test function, wherever the bug is: `debugFailure` applies, `proposeFailureFix`
// answers with the fix (the function at fault may be in another file).
export const SERVER_DEBUG_FAILURE = 'selfdebug.debugFailure';
export const SERVER_PROPOSE_FAILURE_FIX = 'selfdebug.proposeFailureFix';

/**
 * Execute `serverCommand` with {uri, position, version} of the active Python editor's cursor and
 * return its answer. The server finds the innermost function there; progress and diagnostics
 * arrive as LSP messages meanwhile.
 */
export async function runAtCursor(server: ServerController, serverCommand: string): Promise<unknown> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'python') {
        void vscode.window.showWarningMessage('selfdebug: put the cursor inside a Python function first.');
        return undefined;
    }
    // the version: the server refuses to debug text that moved on
    return runAt(server, serverCommand, editor.document.uri, editor.selection.active, editor.document.version);
}

/**
 * The Testing view's menus on a failed test (whichever extension owns the tests): self-debug its
 * failure. The item's location (its file and the first line of its range) names the test
 * function; the fix comes back as a proposal to review.
 */
export async function runOnTestItem(server: ServerController, argument: TestArgument): Promise<unknown> {
    const item = testItemOf(argument);
    if (!item?.uri || !item.range || !item.uri.path.endsWith('.py')) {
        void vscode.window.showWarningMessage('selfdebug: this test has no location in a Python file to start from.');
        return undefined;
    }
    return runAt(server, SERVER_PROPOSE_FAILURE_FIX, item.uri, item.range.start);
}

async function runAt(server: ServerController, serverCommand: string, document: vscode.Uri, position: vscode.Position, version?: number): Promise<unknown> {
    try {
        const uri = await server.protocolUri(document);
        return await server.executeServerCommand(serverCommand, {
            uri,
            position: { line: position.line, character: position.character },
            ...(version === undefined ? {} : { version }),
        });
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        void vscode.window.showErrorMessage(message.startsWith('selfdebug') ? message : `selfdebug: ${message}`);
        return undefined;
    }
}
