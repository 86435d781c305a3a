/** The palette commands: thin wrappers that turn the cursor into a server command's arguments. */
import * as vscode from 'vscode';
import type { ServerController } from './client';

export const SERVER_SELF_DEBUG = 'selfdebug.selfDebug'; // the fix arrives as workspace/applyEdit
export const SERVER_PROPOSE_FIX = 'selfdebug.proposeFix'; // the same session; the fix comes back
export const SERVER_RUN_TESTS = 'selfdebug.runTests';

/**
 * Execute `serverCommand` with {uri, position} of the active Python editor's cursor. The server
 * finds the innermost function there; its progress, diagnostics and edits arrive as LSP messages.
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
            version: editor.document.version, // the server refuses a fix if the text moved on
        });
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        void vscode.window.showErrorMessage(message.startsWith('selfdebug') ? message : `selfdebug: ${message}`);
        return undefined;
    }
}
