/**
 * The install step of the extension's own server: make a virtual environment with the user's
 * Python (`uv venv --seed` when uv is on PATH, else `python -m venv`), install the bundled wheel
 * into it with pip (pinned: that exact file; its dependencies come from the user's package index),
 * and check that it imports. Cancellable: an abort kills the running step's process group.
 * A failed or cancelled install removes the half-made environment, so a later start never
 * mistakes it for a working one, and reports the step that failed.
 *
 * Plain Node (no VS Code API): the extension wraps it in a cancellable progress notification
 * (client.ts), the unit tests run it with real processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { type BundledWheel, type Command, ISOLATED, PYTHON_PROBE, venvPython } from './serverResolution';

export interface InstallPlan {
    venv: string;
    python: string; // the environment's interpreter, which then runs the server
    wheel: BundledWheel;
    steps: Command[]; // make the environment, install the wheel
    check: Command; // the import check afterwards
}

/** The commands, in order; `uv` is uv's path when it is on PATH. */
export function installPlan(
    base: string,
    wheel: BundledWheel,
    venv: string,
    uv: string | undefined,
    platform: NodeJS.Platform = process.platform,
): InstallPlan {
    const python = venvPython(venv, platform);
    const create: Command = uv
        ? { command: uv, args: ['venv', '--seed', '--python', base, venv] } // --seed: pip in it
        : { command: base, args: ['-m', 'venv', venv] };
    const install: Command = {
        command: python,
        args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel.path],
    };
    const check: Command = { command: python, args: [ISOLATED, '-c', PYTHON_PROBE] };
    return { venv, python, wheel, steps: [create, install], check };
}

/** One command as a user types it: POSIX shell quoting (cmd.exe quoting on Windows). */
export function commandLine(command: Command, platform: NodeJS.Platform = process.platform): string {
    return [command.command, ...command.args].map((word) => quote(word, platform)).join(' ');
}

function quote(word: string, platform: NodeJS.Platform): string {
    if (word !== '' && /^[\w@%+=:,./-]+$/.test(word)) {
        return word;
    }
    if (platform === 'win32') {
        return `"${word.replace(/"/g, '""')}"`;
    }
    return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The lines a user runs by hand to do what the install step does (the check's probe left out). */
export function manualCommands(plan: InstallPlan, platform: NodeJS.Platform = process.platform): string[] {
    return [
        ...plan.steps.map((step) => commandLine(step, platform)),
        commandLine({ command: plan.python, args: ['-m', 'selfdebug', '--version'] }, platform),
    ];
}

/** The first executable `name` on PATH (or `name` itself when it is a path), else undefined. */
export function findExecutable(
    name: string,
    env: NodeJS.ProcessEnv = process.env,
    platform: NodeJS.Platform = process.platform,
): string | undefined {
    const candidates = isAbsolute(name)
        ? [name]
        : (env.PATH ?? env.Path ?? '')
              .split(delimiter)
              .filter(Boolean)
              .flatMap((dir) => (platform === 'win32' ? [join(dir, `${name}.exe`), join(dir, name)] : [join(dir, name)]));
    return candidates.find((path) => {
        try {
            accessSync(path, constants.X_OK);
            return true;
        } catch {
            return false;
        }
    });
}

/**
 * The environment for the install and for the server in its own environment: without PYTHONPATH
 * and PYTHONHOME, which belong to the user's project and would shadow (or break) its packages.
 */
export function privateEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
    const clean = { ...env };
    delete clean.PYTHONPATH;
    delete clean.PYTHONHOME;
    return clean;
}

export function sha256File(path: string): string {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export type InstallOutcome =
    | { ok: true; version: string }
    | { ok: false; cancelled: boolean; failed: Command; detail: string };

export interface InstallOptions {
    signal?: AbortSignal;
    log?: (line: string) => void; // each output line of the steps, and each command before it runs
    onStep?: (index: number, step: Command) => void; // index === steps.length: the check
    env?: NodeJS.ProcessEnv;
    killGraceMs?: number; // SIGTERM, then SIGKILL after this long
}

/** Run the plan; on failure or cancel the environment folder is removed. */
export async function runInstall(plan: InstallPlan, options: InstallOptions = {}): Promise<InstallOutcome> {
    const log = options.log ?? (() => undefined);
    const env = privateEnv(options.env);
    await rm(plan.venv, { recursive: true, force: true }); // a half-made leftover
    // Each step runs in the folder that holds the environment (made here): not the workspace,
    // whose own files must not shadow what is installed or checked.
    const cwd = dirname(plan.venv);
    await mkdir(cwd, { recursive: true });
    const steps = [...plan.steps, plan.check];
    let output = '';
    for (const [index, step] of steps.entries()) {
        options.onStep?.(index, step);
        const shown = index === plan.steps.length ? `${commandLine({ command: step.command, args: [] })} -I -c <import selfdebug>` : commandLine(step);
        log(`$ ${shown}`);
        const result = await runStep(step, env, cwd, log, options.signal, options.killGraceMs ?? 2000);
        output = result.output;
        if (result.cancelled || result.code !== 0) {
            await rm(plan.venv, { recursive: true, force: true });
            return {
                ok: false,
                cancelled: result.cancelled,
                failed: step,
                detail: result.cancelled ? 'cancelled' : lastLines(result.error ?? output),
            };
        }
    }
    let version = '';
    try {
        version = String((JSON.parse(output) as { version?: unknown }).version ?? '');
    } catch {
        // not the probe's JSON: reported below
    }
    if (version !== plan.wheel.version) {
        await rm(plan.venv, { recursive: true, force: true });
        return {
            ok: false,
            cancelled: false,
            failed: plan.check,
            detail: `the environment imports selfdebug ${version || '(nothing)'}, not ${plan.wheel.version}`,
        };
    }
    return { ok: true, version };
}

interface StepResult {
    code: number | null;
    cancelled: boolean;
    output: string; // stdout (the probe's answer)
    error?: string; // why it did not run, or its stderr
}

function runStep(
    step: Command,
    env: NodeJS.ProcessEnv,
    cwd: string,
    log: (line: string) => void,
    signal: AbortSignal | undefined,
    graceMs: number,
): Promise<StepResult> {
    return new Promise((resolve) => {
        if (signal?.aborted) {
            resolve({ code: null, cancelled: true, output: '' });
            return;
        }
        let child: ChildProcess;
        try {
            // its own process group (POSIX), so that a cancel also stops pip's children
            child = spawn(step.command, step.args, { env, cwd, detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (error) {
            resolve({ code: null, cancelled: false, output: '', error: String(error) });
            return;
        }
        let stdout = '';
        let stderr = '';
        let cancelled = false;
        const lines = (chunk: Buffer, into: 'out' | 'err') => {
            const text = chunk.toString();
            if (into === 'out') {
                stdout += text;
            } else {
                stderr += text;
            }
            for (const line of text.split(/\r?\n/)) {
                if (line.trim()) {
                    log(line);
                }
            }
        };
        child.stdout?.on('data', (chunk: Buffer) => lines(chunk, 'out'));
        child.stderr?.on('data', (chunk: Buffer) => lines(chunk, 'err'));
        let killTimer: NodeJS.Timeout | undefined;
        const onAbort = () => {
            cancelled = true;
            kill(child, 'SIGTERM');
            killTimer = setTimeout(() => kill(child, 'SIGKILL'), graceMs);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        child.on('error', (error) => {
            signal?.removeEventListener('abort', onAbort);
            resolve({ code: null, cancelled, output: stdout, error: error.message });
        });
        child.on('close', (code) => {
            signal?.removeEventListener('abort', onAbort);
            if (killTimer) {
                clearTimeout(killTimer);
            }
            resolve({ code, cancelled, output: stdout, error: code === 0 ? undefined : stderr || stdout });
        });
    });
}

function kill(child: ChildProcess, sig: NodeJS.Signals): void {
    try {
        if (process.platform !== 'win32' && child.pid) {
            process.kill(-child.pid, sig); // the group: pip and whatever it started
        } else {
            child.kill(sig);
        }
    } catch {
        // already gone
    }
}

function lastLines(text: string, count = 3): string {
    const lines = text.split(/\r?\n/).filter((l) => l.trim());
    return lines.slice(-count).join('\n') || text.trim();
}
