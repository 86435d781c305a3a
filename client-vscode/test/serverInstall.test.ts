import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { commandLine, findExecutable, installPlan, manualCommands, runInstall } from '../src/serverInstall';

const wheel = { path: '/ext/bundled/selfdebug-0.1.0-py3-none-any.whl', version: '0.1.0' };

function script(dir: string, name: string, body: string): string {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
}

/**
 * A base "python" whose `-m venv DIR` makes DIR/bin/python from `venvPython` (a script playing the
 * environment's python: pip, then the import check), so each way the steps can end is a real
 * process that ends that way.
 */
function fakeBase(venvPython: string): { base: string; venv: string; dir: string } {
    const dir = mkdtempSync(join(tmpdir(), 'selfdebug-install-'));
    const template = script(dir, 'venv-python', venvPython);
    const base = script(dir, 'python3', `[ "$1 $2" = "-m venv" ] && mkdir -p "$3/bin" && cp "${template}" "$3/bin/python"`);
    return { base, venv: join(dir, 'storage', 'server-venv-0.1.0'), dir };
}

const PROBE_OK = `[ "$1 $2" = "-I -c" ] && printf '{"version": "0.1.0", "sha256": ""}'; exit 0`;

/** Running (a zombie, dead but not yet reaped by its new parent, counts as gone). */
function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
    } catch {
        return false;
    }
    try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
        return true;
    }
}

describe('installPlan', () => {
    test('python -m venv, then pip installs the exact wheel file into it', () => {
        const plan = installPlan('/usr/bin/python3', wheel, '/s/server-venv-0.1.0', undefined, 'linux');
        assert.deepEqual(plan.steps, [
            { command: '/usr/bin/python3', args: ['-m', 'venv', '/s/server-venv-0.1.0'] },
            {
                command: '/s/server-venv-0.1.0/bin/python',
                args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel.path],
            },
        ]);
        assert.equal(plan.python, '/s/server-venv-0.1.0/bin/python');
        assert.deepEqual(manualCommands(plan, 'linux'), [
            '/usr/bin/python3 -m venv /s/server-venv-0.1.0',
            `/s/server-venv-0.1.0/bin/python -m pip install --disable-pip-version-check --no-input ${wheel.path}`,
            '/s/server-venv-0.1.0/bin/python -m selfdebug --version',
        ]);
    });

    test('uv on PATH makes the environment (with pip in it: --seed), pip still installs', () => {
        const plan = installPlan('python3', wheel, '/s/v', '/home/u/.local/bin/uv', 'linux');
        assert.deepEqual(plan.steps[0], { command: '/home/u/.local/bin/uv', args: ['venv', '--seed', '--python', 'python3', '/s/v'] });
        assert.deepEqual(plan.steps[1].args.slice(0, 3), ['-m', 'pip', 'install']);
    });

    test('commands are quoted the way a shell reads them back', () => {
        const line = commandLine({ command: '/My Python/bin/python', args: ['-c', "print('x')", '--flag=a,b'] }, 'linux');
        assert.equal(line, `'/My Python/bin/python' -c 'print('\\''x'\\'')' --flag=a,b`);
        const words = ['%s\n', '/My Python/bin/python', "print('x')", 'a b', '$HOME', ''];
        const echoed = execFileSync('sh', ['-c', commandLine({ command: 'printf', args: words }, 'linux')], { encoding: 'utf8' });
        assert.deepEqual(echoed.split('\n').slice(0, -1), words.slice(1), 'the shell reads the same words back');
    });
});

describe('findExecutable', () => {
    test('the first executable of that name on PATH; none when absent', () => {
        const a = mkdtempSync(join(tmpdir(), 'selfdebug-path-'));
        const b = mkdtempSync(join(tmpdir(), 'selfdebug-path-'));
        writeFileSync(join(a, 'uv'), 'not executable');
        const uv = script(b, 'uv', 'exit 0');
        assert.equal(findExecutable('uv', { PATH: `${a}:${b}` }, 'linux'), uv);
        assert.equal(findExecutable('uv', { PATH: a }, 'linux'), undefined);
        assert.equal(findExecutable(uv, { PATH: '' }, 'linux'), uv, 'a path is taken as it is');
    });
});

describe('runInstall (real processes)', () => {
    test('success: every step ran in order, the check imports the wheel version, the environment stays', async () => {
        const { base, venv } = fakeBase(PROBE_OK);
        const steps: number[] = [];
        const lines: string[] = [];
        const outcome = await runInstall(installPlan(base, wheel, venv, undefined), {
            onStep: (i) => steps.push(i),
            log: (l) => lines.push(l),
        });
        assert.deepEqual(outcome, { ok: true, version: '0.1.0' });
        assert.deepEqual(steps, [0, 1, 2]);
        assert.ok(existsSync(join(venv, 'bin', 'python')));
        assert.ok(lines.some((l) => l.startsWith('$ ') && l.includes('-m venv')), lines.join('\n'));
    });

    test('a failing pip: the step and its last lines are reported and the half-made environment is removed', async () => {
        const { base, venv } = fakeBase(
            `[ "$2" = pip ] && { echo "Processing ${wheel.path}"; echo "ERROR: No matching distribution found for pygls<3,>=2.1" >&2; exit 1; }\n${PROBE_OK}`,
        );
        const outcome = await runInstall(installPlan(base, wheel, venv, undefined));
        assert.equal(outcome.ok, false);
        assert.ok(!outcome.ok);
        assert.equal(outcome.cancelled, false);
        assert.deepEqual(outcome.failed.args.slice(0, 3), ['-m', 'pip', 'install']);
        assert.match(outcome.detail, /No matching distribution found for pygls/);
        assert.equal(existsSync(venv), false, 'the half-made environment is gone');
    });

    test('a check that imports another version fails the install and removes the environment', async () => {
        const { base, venv } = fakeBase(`[ "$1 $2" = "-I -c" ] && printf '{"version": "0.0.9", "sha256": ""}'; exit 0`);
        const outcome = await runInstall(installPlan(base, wheel, venv, undefined));
        assert.ok(!outcome.ok);
        assert.match(outcome.detail, /imports selfdebug 0\.0\.9, not 0\.1\.0/);
        assert.equal(existsSync(venv), false);
    });

    test('cancel kills the running step and what it started (its process group), then removes the environment', async () => {
        const { base, venv, dir } = fakeBase(
            `[ "$2" = pip ] && { sleep 300 & echo $$ > "$MARK_DIR/child"; echo $! > "$MARK_DIR/grandchild"; wait; }\n${PROBE_OK}`,
        );
        const abort = new AbortController();
        const started = Date.now();
        const running = runInstall(installPlan(base, wheel, venv, undefined), {
            signal: abort.signal,
            env: { ...process.env, MARK_DIR: dir },
            onStep: (i) => {
                if (i === 1) {
                    // cancel once pip (the fake) has started its child
                    const poll = setInterval(() => {
                        if (existsSync(join(dir, 'grandchild'))) {
                            clearInterval(poll);
                            abort.abort();
                        }
                    }, 20);
                }
            },
        });
        const outcome = await running;
        assert.ok(!outcome.ok);
        assert.equal(outcome.cancelled, true);
        assert.ok(Date.now() - started < 20_000, 'it did not wait for the step to end by itself');
        const child = Number(readFileSync(join(dir, 'child'), 'utf8'));
        const grandchild = Number(readFileSync(join(dir, 'grandchild'), 'utf8'));
        assert.equal(alive(child), false, 'the step is killed');
        assert.equal(alive(grandchild), false, 'and what it started');
        assert.equal(existsSync(venv), false);
    });

    test('a base Python that does not exist: the first step is reported, nothing is left', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'selfdebug-install-'));
        mkdirSync(join(dir, 'storage'));
        const venv = join(dir, 'storage', 'server-venv-0.1.0');
        const outcome = await runInstall(installPlan('/nonexistent/python3', wheel, venv, undefined));
        assert.ok(!outcome.ok);
        assert.equal(outcome.failed.command, '/nonexistent/python3');
        assert.match(outcome.detail, /ENOENT/);
        assert.equal(existsSync(venv), false);
    });

    test(
        'real python -m venv and real pip: a wheel file that is not there fails at pip, and the environment is removed',
        { skip: !findExecutable('python3') },
        async () => {
            const dir = mkdtempSync(join(tmpdir(), 'selfdebug-install-'));
            const venv = join(dir, 'server-venv-0.1.0');
            const missing = { path: join(dir, 'selfdebug-0.1.0-py3-none-any.whl'), version: '0.1.0' };
            const outcome = await runInstall(installPlan('python3', missing, venv, undefined));
            assert.ok(!outcome.ok);
            assert.deepEqual(outcome.failed.args.slice(0, 3), ['-m', 'pip', 'install']);
            assert.match(outcome.detail, /does not exist|No such file|not a valid wheel/i);
            assert.equal(existsSync(venv), false);
        },
    );
});
