import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { installCommand, preflight, preflightMessage, serverExecutable } from '../src/launch';
import { findExecutable } from '../src/serverInstall';
import { chooseServer, ISOLATED, PYTHON_PROBE, type ServerChoice } from '../src/serverResolution';

/** A fake "python" that answers `-c ...` like a real one would in the given situation. */
function fakePython(script: string): string {
    const path = join(mkdtempSync(join(tmpdir(), 'selfdebug-launch-')), 'python');
    writeFileSync(path, `#!/bin/sh\n${script}\n`);
    chmodSync(path, 0o755);
    return path;
}

const WHEEL = '/ext/bundled/selfdebug-0.1.0-py3-none-any.whl';
type Startable = Exclude<ServerChoice, { kind: 'unavailable' }>;

function fromEnvironment(python: string): Startable {
    return chooseServer(
        { path: '', importStrategy: 'fromEnvironment' },
        { command: python, source: 'setting' },
        undefined,
        '/storage',
    ) as Startable;
}

describe('serverExecutable', () => {
    test('runs `<python> -m selfdebug serve` over stdio and inherits the environment', () => {
        process.env.SELFDEBUG_TEST_MARKER = 'kept';
        const executable = serverExecutable(fromEnvironment('/venv/bin/python'), '/ws');
        assert.equal(executable.command, '/venv/bin/python');
        assert.deepEqual(executable.args, ['-m', 'selfdebug', 'serve']);
        assert.equal(executable.transport, undefined, 'no transport means stdio');
        assert.equal(executable.options?.cwd, '/ws');
        assert.equal(executable.options?.env?.SELFDEBUG_TEST_MARKER, 'kept');
    });

    test("the server in the extension's own environment gets no PYTHONPATH (the project's)", () => {
        process.env.PYTHONPATH = '/project/src';
        try {
            const bundled = chooseServer(
                { path: '', importStrategy: 'useBundled' },
                { command: 'python3', source: 'default' },
                { path: WHEEL, version: '0.1.0' },
                '/storage',
                'linux',
            ) as Startable;
            const executable = serverExecutable(bundled);
            assert.equal(executable.command, '/storage/server-venv-0.1.0/bin/python');
            assert.equal(executable.options?.env?.PYTHONPATH, undefined);
            assert.equal(serverExecutable(fromEnvironment('python3')).options?.env?.PYTHONPATH, '/project/src');
        } finally {
            delete process.env.PYTHONPATH;
        }
    });
});

describe('preflight', () => {
    test('a missing interpreter is named, with the command that installs the bundled wheel', async () => {
        const choice = fromEnvironment('/nonexistent/bin/python3');
        const result = await preflight(choice.probe);
        assert.ok(!result.ok && result.problem === 'interpreter-missing');
        const message = preflightMessage(result, choice, WHEEL);
        assert.match(message, /"\/nonexistent\/bin\/python3" was not found/);
        assert.match(message, /selfdebug\.interpreter/);
        assert.ok(message.endsWith(`Install it there with: /nonexistent/bin/python3 -m pip install ${WHEEL}`), message);
    });

    test('an interpreter without the package says how to install it, or to use the bundled server', async () => {
        const python = fakePython(`echo "ModuleNotFoundError: No module named 'selfdebug'" >&2; exit 1`);
        const result = await preflight(fromEnvironment(python).probe);
        assert.ok(!result.ok && result.problem === 'package-missing');
        const message = preflightMessage(result, fromEnvironment(python), WHEEL);
        assert.match(message, /"useBundled" runs the extension's own server/);
        assert.ok(message.endsWith(`Install it there with: ${python} -m pip install ${WHEEL}`), message);
        // no wheel in this build: no install command that could not work
        assert.doesNotMatch(preflightMessage(result, fromEnvironment(python), undefined), /pip install/);
    });

    test('a broken install reports its last error line', async () => {
        const python = fakePython(`echo "Traceback..." >&2; echo "ImportError: bad wheel" >&2; exit 1`);
        const result = await preflight(fromEnvironment(python).probe);
        assert.ok(!result.ok && result.problem === 'failed');
        assert.match(preflightMessage(result, fromEnvironment(python), WHEEL), /cannot import selfdebug: ImportError: bad wheel\./);
    });

    test("a working interpreter reports the version and the wheel's hash the probe prints", async () => {
        const python = fakePython(`printf '{"version": "0.1.0", "sha256": "ab12"}'`);
        assert.deepEqual(await preflight(fromEnvironment(python).probe), { ok: true, version: '0.1.0', sha256: 'ab12' });
    });

    test('`selfdebug --version` (the selfdebug.path probe) gives the version', async () => {
        const selfdebug = fakePython(`[ "$1" = --version ] && echo "selfdebug 0.2.0"`);
        const choice = chooseServer({ path: selfdebug, importStrategy: 'useBundled' }, { command: 'python3', source: 'default' }, undefined, '/s');
        assert.equal(choice.kind, 'path');
        assert.deepEqual(await preflight((choice as Startable).probe), { ok: true, version: '0.2.0', sha256: '' });
    });

    test('a missing selfdebug.path is named, with what to do', async () => {
        const choice = chooseServer({ path: '/nowhere/selfdebug', importStrategy: 'useBundled' }, { command: 'python3', source: 'default' }, undefined, '/s') as Startable;
        const result = await preflight(choice.probe);
        assert.ok(!result.ok);
        assert.match(preflightMessage(result, choice, WHEEL), /"selfdebug\.path" is "\/nowhere\/selfdebug", which was not found/);
    });

    test("the isolated probe of the extension's environment ignores a selfdebug in the folder or on PYTHONPATH", { skip: !findExecutable('python3') }, async () => {
        // a folder with a package named selfdebug, as a selfdebug checkout or a project may have
        const folder = mkdtempSync(join(tmpdir(), 'selfdebug-shadow-'));
        mkdirSync(join(folder, 'selfdebug'));
        writeFileSync(join(folder, 'selfdebug', '__init__.py'), "__version__ = '9.9'\n");
        const env = { ...process.env, PYTHONPATH: folder };
        const isolated = await preflight({ command: 'python3', args: [ISOLATED, '-c', PYTHON_PROBE] }, folder, env);
        assert.ok(!isolated.ok && isolated.problem === 'package-missing', JSON.stringify(isolated));
        // what the same probe finds without -I: the folder's package
        const plain = await preflight({ command: 'python3', args: ['-c', PYTHON_PROBE] }, folder, env);
        assert.ok(plain.ok && plain.version === '9.9', JSON.stringify(plain));
    });

    test('the real project venv imports selfdebug with the real probe', { skip: !process.env.SELFDEBUG_PYTHON }, async () => {
        const result = await preflight({ command: process.env.SELFDEBUG_PYTHON as string, args: ['-c', PYTHON_PROBE] });
        assert.equal(result.ok, true, JSON.stringify(result));
    });
});

describe('installCommand', () => {
    test('names the bundled wheel, quoted for a shell', () => {
        assert.equal(installCommand('python3', WHEEL, 'linux'), `python3 -m pip install ${WHEEL}`);
        assert.equal(
            installCommand('/My Envs/py/bin/python', '/ext dir/selfdebug-0.1.0-py3-none-any.whl', 'linux'),
            "'/My Envs/py/bin/python' -m pip install '/ext dir/selfdebug-0.1.0-py3-none-any.whl'",
        );
        assert.equal(installCommand('python3', undefined), undefined);
    });
});
