/**
 * Which selfdebug server the extension starts, in ruff-vscode's order: the `selfdebug.path`
 * setting (a `selfdebug` executable), else by `selfdebug.importStrategy`: `fromEnvironment` runs
 * the interpreter's own selfdebug (`python -m selfdebug serve`), `useBundled` (the default) runs it
 * from the extension's own environment under its global storage, made from the interpreter with
 * the wheel the VSIX carries (serverInstall.ts builds and runs those commands).
 *
 * Why an environment of its own: the interpreter the Python extension picked is the user's project
 * environment, which never has selfdebug, and installing a tool into it would mix the tool's
 * dependencies into the project's. The project's interpreter stays the one the tests run with
 * (`pythonPath`, interpreter.ts).
 *
 * Pure: the caller supplies the settings, the interpreter and the file names; nothing here starts
 * a process or touches VS Code.
 */
import { join } from 'node:path';

export type ImportStrategy = 'useBundled' | 'fromEnvironment';
export const IMPORT_STRATEGIES: readonly ImportStrategy[] = ['useBundled', 'fromEnvironment'];
export const DEFAULT_IMPORT_STRATEGY: ImportStrategy = 'useBundled';

/** A program and its arguments (never a shell line: nothing is parsed by a shell). */
export interface Command {
    command: string;
    args: string[];
}

/** The wheel the VSIX carries (bundled/selfdebug-<version>-py3-none-any.whl). */
export interface BundledWheel {
    path: string;
    version: string;
}

export interface LaunchSettings {
    path: string; // selfdebug.path, expanded; "" when unset
    importStrategy: ImportStrategy;
}

/** The Python that runs the server (fromEnvironment) or that the private environment is made from. */
export interface BaseInterpreter {
    command: string;
    source: 'setting' | 'python-extension' | 'default';
}

export type ServerChoice =
    | { kind: 'path'; server: Command; probe: Command }
    | { kind: 'environment'; interpreter: BaseInterpreter; server: Command; probe: Command }
    | {
          kind: 'bundled';
          base: BaseInterpreter;
          wheel: BundledWheel;
          venv: string;
          server: Command;
          probe: Command;
      }
    | { kind: 'unavailable'; reason: string };

const WHEEL_NAME = /^selfdebug-([^-]+)-py3-none-any\.whl$/;
export const VENV_PREFIX = 'server-venv-';

// What the probe prints: the version it imports and, for an install from a wheel file, that file's
// sha256 as pip records it (direct_url.json), so that "installed" means this exact wheel.
export const PYTHON_PROBE = [
    'import json, sys',
    'import selfdebug',
    'try:',
    '    from importlib.metadata import distribution',
    "    url = json.loads(distribution('selfdebug').read_text('direct_url.json') or '{}')",
    'except Exception:',
    '    url = {}',
    "archive = url.get('archive_info') or {}",
    "digest = (archive.get('hashes') or {}).get('sha256') or (archive.get('hash') or '').partition('=')[2]",
    "sys.stdout.write(json.dumps({'version': selfdebug.__version__, 'sha256': digest}))",
].join('\n');

export const SERVE_MODULE_ARGS: readonly string[] = ['-m', 'selfdebug', 'serve'];
// The extension's own environment runs isolated (-I): neither the folder it starts in nor the
// user's PYTHONPATH/PYTHONHOME (the project's) comes before its own packages.
export const ISOLATED = '-I';

/** The wheel among the names in the extension's bundled/ folder (the newest if, oddly, several). */
export function findBundledWheel(dir: string, names: readonly string[]): BundledWheel | undefined {
    const wheels = names
        .map((name) => ({ name, match: WHEEL_NAME.exec(name) }))
        .filter((w): w is { name: string; match: RegExpExecArray } => w.match !== null)
        .sort((a, b) => compareVersions(a.match[1], b.match[1]));
    const last = wheels[wheels.length - 1];
    return last ? { path: join(dir, last.name), version: last.match[1] } : undefined;
}

function compareVersions(a: string, b: string): number {
    const pa = a.split('.').map((p) => Number.parseInt(p, 10) || 0);
    const pb = b.split('.').map((p) => Number.parseInt(p, 10) || 0);
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
        const d = (pa[i] ?? 0) - (pb[i] ?? 0);
        if (d !== 0) {
            return d;
        }
    }
    return a.localeCompare(b);
}

/** The private environment of one server version: <globalStorage>/server-venv-<version>. */
export function serverVenv(storageDir: string, version: string): string {
    return join(storageDir, `${VENV_PREFIX}${version}`);
}

/** The folders of other versions' environments (left behind by an update), to remove. */
export function otherVenvs(storageDir: string, names: readonly string[], keep: string): string[] {
    return names.filter((n) => n.startsWith(VENV_PREFIX) && join(storageDir, n) !== keep).map((n) => join(storageDir, n));
}

export function venvPython(venv: string, platform: NodeJS.Platform = process.platform): string {
    return platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
}

/** The server to start, in the order path -> fromEnvironment -> useBundled. */
export function chooseServer(
    settings: LaunchSettings,
    interpreter: BaseInterpreter,
    wheel: BundledWheel | undefined,
    storageDir: string,
    platform: NodeJS.Platform = process.platform,
): ServerChoice {
    if (settings.path) {
        return {
            kind: 'path',
            server: { command: settings.path, args: ['serve'] },
            probe: { command: settings.path, args: ['--version'] },
        };
    }
    if (settings.importStrategy === 'fromEnvironment') {
        return {
            kind: 'environment',
            interpreter,
            server: { command: interpreter.command, args: [...SERVE_MODULE_ARGS] },
            probe: { command: interpreter.command, args: ['-c', PYTHON_PROBE] },
        };
    }
    if (!wheel) {
        return {
            kind: 'unavailable',
            reason:
                'selfdebug: this build of the extension carries no selfdebug wheel (build it with ' +
                '`bash scripts/vscode/build.sh`). Set "selfdebug.importStrategy" to "fromEnvironment" ' +
                'to use the selfdebug installed in your interpreter, or "selfdebug.path" to a selfdebug ' +
                'executable (`bash scripts/setup.sh` in a checkout makes `.venv/bin/selfdebug`).',
        };
    }
    const venv = serverVenv(storageDir, wheel.version);
    const python = venvPython(venv, platform);
    return {
        kind: 'bundled',
        base: interpreter,
        wheel,
        venv,
        server: { command: python, args: [ISOLATED, ...SERVE_MODULE_ARGS] },
        probe: { command: python, args: [ISOLATED, '-c', PYTHON_PROBE] },
    };
}

/** What the probe of the private environment found (see `PYTHON_PROBE`). */
export type ProbeAnswer = { ok: true; version: string; sha256: string } | { ok: false };

/**
 * The private environment holds the bundled wheel (`ready`), holds nothing usable yet (`missing`),
 * or holds another build, a broken one or one whose Python is gone (`stale`: made again).
 */
export type BundledState = 'ready' | 'missing' | 'stale';

export function bundledState(answer: ProbeAnswer, venvExists: boolean, wheel: BundledWheel, wheelSha256: string): BundledState {
    if (!answer.ok) {
        return venvExists ? 'stale' : 'missing';
    }
    if (answer.version !== wheel.version) {
        return 'stale';
    }
    // an install by hand from another source records no hash (or another one)
    return answer.sha256 === '' || answer.sha256 === wheelSha256 ? 'ready' : 'stale';
}

export interface InstallContext {
    requested: boolean; // the user asked for it (Install in the notification, or the command)
    dontAsk: boolean; // the user chose "Don't ask again"
    installedBefore: boolean; // an environment of another version exists: the user agreed before
}

/**
 * Start it, ask first (a notification: Install / Show command / Don't ask again), install without
 * asking (the user asked, or agreed to an earlier version: an update), or give up with a message.
 */
export type InstallDecision = 'start' | 'ask' | 'install' | 'refuse';

export function installDecision(state: BundledState, context: InstallContext): InstallDecision {
    if (state === 'ready' && !context.requested) {
        return 'start';
    }
    if (context.requested || state === 'stale' || context.installedBefore) {
        return 'install';
    }
    return context.dontAsk ? 'refuse' : 'ask';
}
