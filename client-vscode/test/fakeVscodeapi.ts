/**
 * Stand-in for src/vscodeapi.ts in unit tests: settings per scope, workspace folders and
 * extensions come from plain objects the tests set up with `setFakeWorkspace`.
 */
import type { Extension, Uri, WorkspaceConfiguration, WorkspaceFolder } from 'vscode';

export interface FakeWorkspace {
    /** folder name -> "selfdebug.*" key (without the section) -> value; "" holds user settings. */
    settings: Record<string, Record<string, unknown>>;
    folders: { name: string; path: string }[];
    extensions?: Record<string, unknown>;
}

let workspace: FakeWorkspace = { settings: {}, folders: [] };

export function setFakeWorkspace(next: FakeWorkspace): void {
    workspace = next;
}

export function fakeUri(path: string): Uri {
    return { fsPath: path, path, scheme: 'file', toString: () => `file://${path}` } as unknown as Uri;
}

function folders(): WorkspaceFolder[] {
    return workspace.folders.map((f, index) => ({ name: f.name, index, uri: fakeUri(f.path) }));
}

export function getWorkspaceFolders(): readonly WorkspaceFolder[] {
    return folders();
}

export function getWorkspaceFolder(uri: Uri): WorkspaceFolder | undefined {
    return folders().find((f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(`${f.uri.fsPath}/`));
}

/** Folder settings override user settings, as in VS Code. */
export function getConfiguration(section: string, scope?: unknown): WorkspaceConfiguration {
    const folder = scope ? getWorkspaceFolder(scope as Uri) : undefined;
    const merged: Record<string, unknown> = {
        ...(workspace.settings[''] ?? {}),
        ...(folder ? (workspace.settings[folder.name] ?? {}) : {}),
    };
    return {
        get: <T>(key: string, fallback?: T): T | undefined =>
            section === 'selfdebug' && key in merged ? (merged[key] as T) : fallback,
        has: (key: string) => key in merged,
        // as VS Code: where each layer set it (the fake's folder settings: workspaceFolderValue)
        inspect: <T>(key: string) => {
            if (section !== 'selfdebug') {
                return undefined;
            }
            const inFolder = folder ? (workspace.settings[folder.name] ?? {}) : {};
            const inUser = workspace.settings[''] ?? {};
            return {
                key: `${section}.${key}`,
                globalValue: inUser[key] as T | undefined,
                workspaceFolderValue: inFolder[key] as T | undefined,
            };
        },
        update: async () => undefined,
    } as WorkspaceConfiguration;
}

export function getExtension<T>(id: string): Extension<T> | undefined {
    const exports = workspace.extensions?.[id];
    if (exports === undefined) {
        return undefined;
    }
    return { id, isActive: true, exports: exports as T, activate: async () => exports as T } as unknown as Extension<T>;
}
