/**
 * The only module that touches the `vscode` API for reading settings, workspace folders and
 * extensions. Unit tests run outside VS Code, so their bundle swaps this file for
 * `test/fakeVscodeapi.ts` (see esbuild.mjs); everything the tests exercise goes through here.
 */
import * as vscode from 'vscode';

export function getConfiguration(
    section: string,
    scope?: vscode.ConfigurationScope | null,
): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(section, scope);
}

export function getWorkspaceFolders(): readonly vscode.WorkspaceFolder[] {
    return vscode.workspace.workspaceFolders ?? [];
}

export function getWorkspaceFolder(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.getWorkspaceFolder(uri);
}

export function getExtension<T>(id: string): vscode.Extension<T> | undefined {
    return vscode.extensions.getExtension<T>(id);
}
