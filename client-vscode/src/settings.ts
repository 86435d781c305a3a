/**
 * The extension's settings and their 1:1 mapping onto the server's settings.
 *
 * The server pulls section "selfdebug" through `workspace/configuration` and expects camelCase keys
 * (server/lsp/settings.py); unknown keys are reported there as problems, so the client-only
 * settings (`interpreter`, `path`, `importStrategy`: which server runs; `trace.server`) are left out. Paths may use `${workspaceFolder}`, expanded here because VS Code's
 * configuration API returns the raw strings.
 */
import type { ConfigurationChangeEvent, Uri, WorkspaceFolder } from 'vscode';
import { DEFAULT_IMPORT_STRATEGY, IMPORT_STRATEGIES, type ImportStrategy, type LaunchSettings } from './serverResolution';
import { getConfiguration, getWorkspaceFolder, getWorkspaceFolders } from './vscodeapi';

export const SECTION = 'selfdebug';

export type Backend = 'llama' | 'openai';
export type Isolation = 'auto' | 'bwrap' | 'rlimits';

/**
 * What the server receives for section "selfdebug": the keys and defaults of `ServerSettings` in
 * server/lsp/settings.py, each contributed in package.json. tests/test_vocabulary.py checks
 * package.json against the server's settings and modes, test/manifest.test.ts checks
 * `SERVER_DEFAULTS` against package.json.
 */
export interface ServerSettings {
    backend: Backend;
    modelPath: string;
    modelKeepAlive: number;
    modelStallSeconds: number;
    modelCallDeadline: number;
    lookupDecoding: boolean;
    endpointUrl: string;
    modelName: string;
    apiKeyEnv: string;
    allowRemote: boolean;
    mode: string; // a mode of server/engine/modes.py (package.json lists them; the server checks)
    modelEditsSeconds: number;
    timeBudgetSeconds: number;
    maxTurns: number;
    samples: number;
    testSelection: 'auto' | string[];
    testTimeout: number;
    isolation: Isolation;
    runOnSave: boolean;
    showReport: boolean;
    maxDocumentBytes: number;
    pythonPath: string;
}

/** The defaults of package.json `contributes.configuration`, which are the server's own. */
export const SERVER_DEFAULTS: Readonly<ServerSettings> = {
    backend: 'llama',
    modelPath: '',
    modelKeepAlive: 300,
    modelStallSeconds: 40,
    modelCallDeadline: 0,
    lookupDecoding: false,
    endpointUrl: '',
    modelName: '',
    apiKeyEnv: 'OPENAI_API_KEY',
    allowRemote: false,
    mode: 'auto',
    modelEditsSeconds: 90,
    timeBudgetSeconds: 360,
    maxTurns: 10,
    samples: 1,
    testSelection: 'auto',
    testTimeout: 10,
    isolation: 'auto',
    runOnSave: false,
    showReport: false,
    maxDocumentBytes: 2000000,
    pythonPath: '',
};

export const SERVER_SETTING_KEYS = Object.keys(SERVER_DEFAULTS) as (keyof ServerSettings)[];

/** Settings whose value is a filesystem path and may contain `${workspaceFolder}`. */
const PATH_SETTINGS: ReadonlySet<keyof ServerSettings> = new Set(['modelPath', 'pythonPath']);

/** The folder whose settings apply to `scope`: its own folder, else the first one open. */
export function folderFor(scope?: Uri): WorkspaceFolder | undefined {
    const own = scope ? getWorkspaceFolder(scope) : undefined;
    return own ?? getWorkspaceFolders()[0];
}

/**
 * Expand `${workspaceFolder}`, `${workspaceFolder:name}`, `${userHome}` and `${env:NAME}`
 * (the variables the Python extension family supports in paths).
 */
export function expandVariables(
    value: string,
    folder: WorkspaceFolder | undefined,
    env: NodeJS.ProcessEnv = process.env,
): string {
    return value.replace(/\$\{([^}]+)\}/g, (whole: string, name: string) => {
        if (name === 'workspaceFolder') {
            return folder?.uri.fsPath ?? whole;
        }
        if (name.startsWith('workspaceFolder:')) {
            const wanted = name.slice('workspaceFolder:'.length);
            const match = getWorkspaceFolders().find((f) => f.name === wanted);
            return match?.uri.fsPath ?? whole;
        }
        if (name === 'userHome') {
            return env.HOME ?? env.USERPROFILE ?? whole;
        }
        if (name.startsWith('env:')) {
            return env[name.slice('env:'.length)] ?? '';
        }
        return whole;
    });
}

/**
 * The server's settings the user set for a document (or the window when `scope` is undefined):
 * in the user's, the workspace's or the folder's settings. An unset one is left out, where VS
 * Code's `get` would give its package.json default: the server then takes the project's
 * `[tool.selfdebug]` (pyproject.toml), else its own default, which is the same.
 */
export function readUserSettings(scope?: Uri): Partial<ServerSettings> {
    const folder = folderFor(scope);
    const config = getConfiguration(SECTION, scope ?? folder?.uri);
    const settings: Record<string, unknown> = {};
    for (const key of SERVER_SETTING_KEYS) {
        const found = config.inspect<unknown>(key);
        const value = found?.workspaceFolderValue ?? found?.workspaceValue ?? found?.globalValue;
        if (value === undefined || value === null) {
            continue;
        }
        settings[key] =
            typeof value === 'string' && PATH_SETTINGS.has(key)
                ? expandVariables(value, folder)
                : value;
    }
    return settings as Partial<ServerSettings>;
}

/** The server's settings for a document: what the user set over the defaults. */
export function readServerSettings(scope?: Uri): ServerSettings {
    return { ...SERVER_DEFAULTS, ...readUserSettings(scope) };
}

/** The `selfdebug.interpreter` setting, expanded; "" when unset. */
export function readInterpreterSetting(scope?: Uri): string {
    const folder = folderFor(scope);
    const raw = getConfiguration(SECTION, scope ?? folder?.uri).get<string>('interpreter') ?? '';
    return expandVariables(raw.trim(), folder);
}

/** `selfdebug.path` and `selfdebug.importStrategy`: which server the extension starts. */
export function readLaunchSettings(scope?: Uri): LaunchSettings {
    const folder = folderFor(scope);
    const config = getConfiguration(SECTION, scope ?? folder?.uri);
    const path = expandVariables((config.get<string>('path') ?? '').trim(), folder);
    const strategy = config.get<string>('importStrategy');
    const importStrategy = IMPORT_STRATEGIES.includes(strategy as ImportStrategy)
        ? (strategy as ImportStrategy)
        : DEFAULT_IMPORT_STRATEGY;
    return { path, importStrategy };
}

/**
 * Answer one `workspace/configuration` item, or undefined when it is not ours (the caller then
 * lets the default handler answer it).
 */
export function configurationFor(section: string | undefined, scope?: Uri): unknown {
    if (section === SECTION) {
        return readUserSettings(scope);
    }
    if (section?.startsWith(`${SECTION}.`)) {
        const key = section.slice(SECTION.length + 1) as keyof ServerSettings;
        if ((SERVER_SETTING_KEYS as string[]).includes(key)) {
            return readServerSettings(scope)[key];
        }
    }
    return undefined;
}

// The settings that choose the server process (serverResolution.ts).
const LAUNCH_SETTINGS = ['interpreter', 'path', 'importStrategy'];

/**
 * Whether a settings change needs a new server process: only a change of the settings that choose
 * it (`selfdebug.interpreter`, `selfdebug.path`, `selfdebug.importStrategy`). The server takes
 * every other setting when it next needs it (it pulls section "selfdebug" at each command, and
 * again on the `workspace/didChangeConfiguration` the client sends for it), so a running session
 * and the loaded model survive a settings change.
 */
export function needsRestart(event: Pick<ConfigurationChangeEvent, 'affectsConfiguration'>): boolean {
    return LAUNCH_SETTINGS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}
