/**
 * Which Pythons selfdebug uses. The user's (`Interpreter`): the `selfdebug.interpreter` setting,
 * else the Python extension's active interpreter (when ms-python.python is installed), else
 * `python3`; it runs the server (`importStrategy` "fromEnvironment") or the extension's own
 * server environment is made from it ("useBundled", serverResolution.ts). The tests'
 * (`pythonPath`, sent to the server in the `workspace/configuration` answers): the
 * `selfdebug.pythonPath` setting, else the environment the Python extension has selected for the
 * file's folder, else `fallback`: "" (the server then takes the project's .venv/venv in a trusted
 * workspace, else its own Python) or, for a server in its own environment, the user's Python
 * (`bundledTestInterpreter`): the server's environment is never the project's.
 */
import type { PythonExtension } from '@vscode/python-extension';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Disposable, Uri } from 'vscode';
import { findExecutable } from './serverInstall';
import type { BaseInterpreter } from './serverResolution';
import { configurationFor, readInterpreterSetting, SECTION, type ServerSettings } from './settings';
import { getExtension } from './vscodeapi';

export const PYTHON_EXTENSION_ID = 'ms-python.python';
export const DEFAULT_INTERPRETER = 'python3';

export type Interpreter = BaseInterpreter;
export type InterpreterSource = Interpreter['source'];

// The server's own lookup of a project's environment (server/runner/project.py VENV_DIRS).
const PROJECT_VENV_DIRS = ['.venv', 'venv', 'env', '.env'];

/** The Python extension's API, or undefined when it is not installed or fails to activate. */
export async function pythonExtensionApi(): Promise<PythonExtension | undefined> {
    const extension = getExtension<PythonExtension>(PYTHON_EXTENSION_ID);
    if (!extension) {
        return undefined;
    }
    try {
        return extension.isActive ? extension.exports : await extension.activate();
    } catch {
        return undefined;
    }
}

/** The executable of the Python extension's active environment for `scope`, if any. */
export async function activePythonExtensionInterpreter(scope?: Uri): Promise<string | undefined> {
    const api = await pythonExtensionApi();
    if (!api?.environments) {
        return undefined;
    }
    const active = api.environments.getActiveEnvironmentPath(scope);
    const resolved = await api.environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath;
}

export async function resolveInterpreter(
    scope?: Uri,
    fromPythonExtension: (scope?: Uri) => Promise<string | undefined> = activePythonExtensionInterpreter,
): Promise<Interpreter> {
    const configured = readInterpreterSetting(scope);
    if (configured) {
        return { command: configured, source: 'setting' };
    }
    const active = await fromPythonExtension(scope);
    if (active) {
        return { command: active, source: 'python-extension' };
    }
    return { command: DEFAULT_INTERPRETER, source: 'default' };
}

/** Call `listener` when the Python extension's active interpreter changes (no-op without it). */
export async function onPythonInterpreterChanged(listener: () => void): Promise<Disposable | undefined> {
    const api = await pythonExtensionApi();
    return api?.environments?.onDidChangeActiveEnvironmentPath(() => listener());
}

type ActiveEnvironment = (scope?: Uri) => Promise<string | undefined>;

/**
 * The tests' interpreter for a server in the extension's own environment when neither
 * `selfdebug.pythonPath` nor the Python extension names one: "" when the server's own lookup will
 * find the project's (an active virtualenv, a .venv/venv/env/.env in the folder, which the server
 * uses only in a trusted workspace), else the user's Python (`base`, found on PATH), so that the
 * tests never run in the server's environment.
 */
export function bundledTestInterpreter(
    base: string,
    folder: string | undefined,
    env: NodeJS.ProcessEnv = process.env,
    exists: (path: string) => boolean = existsSync,
): string {
    if (env.VIRTUAL_ENV) {
        return '';
    }
    const pythons = ['bin/python', 'Scripts/python.exe'];
    if (folder && PROJECT_VENV_DIRS.some((dir) => pythons.some((python) => exists(join(folder, dir, python))))) {
        return '';
    }
    return findExecutable(base, env) ?? '';
}

/**
 * `settings` with `pythonPath` set, when it is empty, to the Python extension's environment, else
 * to `fallback`.
 */
export async function withTestInterpreter<T extends Partial<ServerSettings>>(
    settings: T,
    scope?: Uri,
    fromPythonExtension: ActiveEnvironment = activePythonExtensionInterpreter,
    fallback = '',
): Promise<T> {
    if (settings.pythonPath) {
        return settings;
    }
    const chosen = (await fromPythonExtension(scope)) ?? fallback;
    return chosen ? { ...settings, pythonPath: chosen } : settings;
}

/**
 * Answer one `workspace/configuration` item (see `configurationFor`), with the tests'
 * interpreter filled in from the Python extension (else `fallback`); undefined when the section
 * is not ours.
 */
export async function configurationAnswer(
    section: string | undefined,
    scope?: Uri,
    fromPythonExtension: ActiveEnvironment = activePythonExtensionInterpreter,
    fallback = '',
): Promise<unknown> {
    const answer = configurationFor(section, scope);
    if (section === SECTION && answer !== undefined) {
        return withTestInterpreter(answer as Partial<ServerSettings>, scope, fromPythonExtension, fallback);
    }
    if (section === `${SECTION}.pythonPath` && answer === '') {
        return (await fromPythonExtension(scope)) ?? fallback;
    }
    return answer;
}
