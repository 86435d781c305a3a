/**
 * How the server process is started, and the check that it can start at all.
 *
 * The check runs before the language client so that a missing interpreter or a missing package
 * becomes one clear message with the command that fixes it, instead of the client's generic
 * "server crashed 5 times" dialog.
 */
import { execFile } from 'node:child_process';
import type { Executable } from 'vscode-languageclient/node';
import { commandLine, privateEnv } from './serverInstall';
import type { Command, ServerChoice } from './serverResolution';

/** stdio transport (the default of an `Executable` without `transport`). The server in the
 * extension's own environment gets no PYTHONPATH/PYTHONHOME (they are the project's). */
export function serverExecutable(choice: Exclude<ServerChoice, { kind: 'unavailable' }>, cwd?: string): Executable {
    const env = choice.kind === 'bundled' ? privateEnv() : { ...process.env };
    return { command: choice.server.command, args: [...choice.server.args], options: { cwd, env } };
}

export type Preflight =
    | { ok: true; version: string; sha256: string }
    | { ok: false; problem: 'interpreter-missing' | 'package-missing' | 'failed'; detail: string };

/**
 * The command a user runs to install the server into `interpreter`: the wheel the extension
 * carries (the only selfdebug a user of the VSIX has at hand), or undefined without one.
 */
export function installCommand(interpreter: string, wheel: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
    if (!wheel) {
        return undefined;
    }
    return commandLine({ command: interpreter, args: ['-m', 'pip', 'install', wheel] }, platform);
}

/** Run the probe (`python -c <PYTHON_PROBE>` or `selfdebug --version`; a few hundred ms). */
export function preflight(probe: Command, cwd?: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 30_000): Promise<Preflight> {
    return new Promise((resolve) => {
        execFile(probe.command, probe.args, { cwd, env, timeout: timeoutMs }, (error, stdout, stderr) => {
            if (!error) {
                resolve({ ok: true, ...parseVersion(stdout) });
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

/** The probe's JSON ({version, sha256}), or `selfdebug --version`'s "selfdebug 0.1.0". */
function parseVersion(stdout: string): { version: string; sha256: string } {
    try {
        const answer = JSON.parse(stdout) as { version?: unknown; sha256?: unknown };
        return { version: String(answer.version ?? ''), sha256: String(answer.sha256 ?? '') };
    } catch {
        const words = stdout.trim().split(/\s+/);
        return { version: words[words.length - 1] ?? '', sha256: '' };
    }
}

/**
 * One sentence for the user, naming the server command and what to do; `wheel` is the bundled
 * wheel, whose install command is named for an interpreter without selfdebug.
 */
export function preflightMessage(
    result: Exclude<Preflight, { ok: true }>,
    choice: Exclude<ServerChoice, { kind: 'unavailable' }>,
    wheel: string | undefined,
): string {
    if (choice.kind === 'path') {
        const what = result.problem === 'interpreter-missing' ? 'was not found' : `fails: ${lastLine(result.detail)}`;
        return (
            `selfdebug: "selfdebug.path" is "${choice.server.command}", which ${what}. ` +
            'Point it at a selfdebug executable (`bash scripts/setup.sh` in a checkout makes ' +
            "`.venv/bin/selfdebug`), or clear it to use the extension's own server."
        );
    }
    if (choice.kind === 'bundled') {
        return (
            `selfdebug: the extension's server environment ${choice.venv} does not run: ` +
            `${lastLine(result.detail)}. Run "selfdebug: Install server" to make it again.`
        );
    }
    const interpreter = choice.interpreter.command;
    const command = installCommand(interpreter, wheel);
    const install = command ? ` Install it there with: ${command}` : '';
    switch (result.problem) {
        case 'interpreter-missing':
            return (
                `selfdebug: the Python interpreter "${interpreter}" was not found. ` +
                'Set "selfdebug.interpreter" to a Python that has selfdebug installed, or set ' +
                '"selfdebug.importStrategy" to "useBundled" (the extension\'s own server).' +
                install
            );
        case 'package-missing':
            return (
                `selfdebug: the package is not installed for "${interpreter}" ` +
                '("selfdebug.importStrategy" is "fromEnvironment"; "useBundled" runs the ' +
                "extension's own server)." +
                install
            );
        default:
            return `selfdebug: "${interpreter}" cannot import selfdebug: ${lastLine(result.detail)}.${command ? ` Reinstall it with: ${command}` : ''}`;
    }
}

function lastLine(text: string): string {
    const lines = text.split(/\r?\n/).filter((l) => l.trim());
    return lines[lines.length - 1] ?? text;
}
