/**
 * Which Python runs `-m selfdebug serve`: the `selfdebug.interpreter` setting, else the Python
 * extension's active interpreter (when ms-python.python is installed), else `python3`.
 */
import type { PythonExtension } from '@vscode/python-extension';
import type { Disposable, Uri } from 'vscode';
import { readInterpreterSetting } from './settings';
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
