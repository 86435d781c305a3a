/**
 * How the server process is started, and the check that it can start at all.
 *
 * The check runs before the language client so that a missing interpreter or a missing package
 * becomes one clear message with the command that fixes it, instead of the client's generic
 * "server crashed 5 times" dialog.
 */
import { execFile } from 'node:child_process';
import type { Executable } from 'vscode-languageclient/node';

export const SERVER_ARGS: readonly string[] = ['-m', 'selfdebug', 'serve'];

/** stdio transport (the default of an `Executable` without `transport`). */
export function serverExecutable(interpreter: string, cwd?: string): Executable {
    return { command: interpreter, args: [...SERVER_ARGS], options: { cwd, env: { ...process.env } } };
}

export type Preflight =
    | { ok: true; version: string }
    | { ok: false; problem: 'interpreter-missing' | 'package-missing' | 'failed'; detail: string };

/** The command a user runs to install the server into `interpreter`. */
export function installCommand(interpreter: string): string {
    const quoted = /[\s"'$`\\]/.test(interpreter) ? `"${interpreter.replace(/(["$`\\])/g, '\\$1')}"` : interpreter;
    return `${quoted} -m pip install selfdebug`;
}

const PROBE = 'import selfdebug, sys; sys.stdout.write(selfdebug.__version__)';

/** Ask `interpreter` whether it can import selfdebug (a few hundred ms). */
export function preflight(interpreter: string, cwd?: string, timeoutMs = 30_000): Promise<Preflight> {
    return new Promise((resolve) => {
        execFile(interpreter, ['-c', PROBE], { cwd, timeout: timeoutMs }, (error, stdout, stderr) => {
            if (!error) {
                resolve({ ok: true, version: stdout.trim() });
                return;
            }
            const code = (error as NodeJS.ErrnoException).code;
            if (code === 'ENOENT' || code === 'EACCES') {
                resolve({ ok: false, problem: 'interpreter-missing', detail: error.message });
            } else if (/ModuleNotFoundError: No module named '?selfdebug/.test(stderr)) {
                resolve({ ok: false, problem: 'package-missing', detail: stderr.trim() });
            } else {
                resolve({ ok: false, problem: 'failed', detail: (stderr || error.message).trim() });
            }
        });
    });
}

/** One sentence for the user, naming the interpreter and what to do. */
export function preflightMessage(result: Exclude<Preflight, { ok: true }>, interpreter: string): string {
    switch (result.problem) {
        case 'interpreter-missing':
            return (
                `selfdebug: the Python interpreter "${interpreter}" was not found. ` +
                'Set "selfdebug.interpreter" to a Python that has selfdebug installed, ' +
                `then install it there with: ${installCommand(interpreter)}`
            );
        case 'package-missing':
            return (
                `selfdebug: the package is not installed for "${interpreter}". ` +
                `Install it with: ${installCommand(interpreter)}`
            );
        default:
            return (
                `selfdebug: "${interpreter}" cannot import selfdebug: ${lastLine(result.detail)}. ` +
                `Reinstall it with: ${installCommand(interpreter)}`
            );
    }
}

function lastLine(text: string): string {
    const lines = text.split(/\r?\n/).filter((l) => l.trim());
    return lines[lines.length - 1] ?? text;
}
