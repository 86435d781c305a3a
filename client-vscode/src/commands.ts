/** The palette commands: thin wrappers that turn the cursor into a server command's arguments. */
import * as vscode from 'vscode';
import type { ServerController } from './client';

// The server's commands. `selfDebug` applies the fix (workspace/applyEdit); this client never
// sends it: its code actions are turned into `proposeFix` (client.ts), whose answer carries the fix
// for the review diff (fixReview.ts).
export const SERVER_SELF_DEBUG = 'selfdebug.selfDebug';
export const SERVER_PROPOSE_FIX = 'selfdebug.proposeFix';
export const SERVER_RUN_TESTS = 'selfdebug.runTests';

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
    const cursor = editor.selection.active;
    try {
        const uri = await server.protocolUri(editor.document.uri);
        return await server.executeServerCommand(serverCommand, {
            uri,
            position: { line: cursor.line, character: cursor.character },
            version: editor.document.version, // the server refuses to debug text that moved on
        });
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        void vscode.window.showErrorMessage(message.startsWith('selfdebug') ? message : `selfdebug: ${message}`);
        return undefined;
    }
}
