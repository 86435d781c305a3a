/**
 * Which Pythons selfdebug uses. The server's (`python -m selfdebug serve`): the
 * `selfdebug.interpreter` setting, else the Python extension's active interpreter (when
 * ms-python.python is installed), else `python3`. The tests' (`pythonPath`, sent to the server
 * in the `workspace/configuration` answers): the `selfdebug.pythonPath` setting, else the
 * environment the Python extension has selected for the file's folder, else "" (the server then
 * takes the project's .venv/venv in a trusted workspace, else its own Python).
 */
import type { PythonExtension } from '@vscode/python-extension';
import type { Disposable, Uri } from 'vscode';
import { configurationFor, readInterpreterSetting, SECTION, type ServerSettings } from './settings';
import { getExtension } from './vscodeapi';

export const PYTHON_EXTENSION_ID = 'ms-python.python';
export const DEFAULT_INTERPRETER = 'python3';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
    command: string;
    source: InterpreterSource;
}

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

/** `settings` with `pythonPath` set to the Python extension's environment when it is empty. */
export async function withTestInterpreter(
    settings: ServerSettings,
    scope?: Uri,
    fromPythonExtension: ActiveEnvironment = activePythonExtensionInterpreter,
): Promise<ServerSettings> {
    if (settings.pythonPath) {
        return settings;
    }
    const active = await fromPythonExtension(scope);
    return active ? { ...settings, pythonPath: active } : settings;
}

/**
 * Answer one `workspace/configuration` item (see `configurationFor`), with the tests'
 * interpreter filled in from the Python extension; undefined when the section is not ours.
 */
export async function configurationAnswer(
    section: string | undefined,
    scope?: Uri,
    fromPythonExtension: ActiveEnvironment = activePythonExtensionInterpreter,
): Promise<unknown> {
    const answer = configurationFor(section, scope);
    if (section === SECTION && answer !== undefined) {
        return withTestInterpreter(answer as ServerSettings, scope, fromPythonExtension);
    }
    if (section === `${SECTION}.pythonPath` && answer === '') {
        return (await fromPythonExtension(scope)) ?? '';
    }
    return answer;
}
