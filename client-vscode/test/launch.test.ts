import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { installCommand, preflight, preflightMessage, SERVER_ARGS, serverExecutable } from '../src/launch';

/** A fake "python" that answers `-c ...` like a real one would in the given situation. */
function fakePython(script: string): string {
    const path = join(mkdtempSync(join(tmpdir(), 'selfdebug-launch-')), 'python');
    writeFileSync(path, `#!/bin/sh\n${script}\n`);
    chmodSync(path, 0o755);
    return path;
}

describe('serverExecutable', () => {
    test('runs `<python> -m selfdebug serve` over stdio and inherits the environment', () => {
        process.env.SELFDEBUG_TEST_MARKER = 'kept';
        const executable = serverExecutable('/venv/bin/python', '/ws');
        assert.equal(executable.command, '/venv/bin/python');
        assert.deepEqual(executable.args, ['-m', 'selfdebug', 'serve']);
        assert.deepEqual(SERVER_ARGS, ['-m', 'selfdebug', 'serve']);
        assert.equal(executable.transport, undefined, 'no transport means stdio');
        assert.equal(executable.options?.cwd, '/ws');
        assert.equal(executable.options?.env?.SELFDEBUG_TEST_MARKER, 'kept');
    });
});

describe('preflight', () => {
    test('a missing interpreter is named, with the install command', async () => {
        const result = await preflight('/nonexistent/bin/python3');
        assert.equal(result.ok, false);
        assert.ok(!result.ok && result.problem === 'interpreter-missing');
        const message = preflightMessage(result, '/nonexistent/bin/python3');
        assert.match(message, /"\/nonexistent\/bin\/python3" was not found/);
        assert.match(message, /selfdebug\.interpreter/);
        assert.match(message, /\/nonexistent\/bin\/python3 -m pip install selfdebug/);
    });

    test('an interpreter without the package says how to install it', async () => {
        const python = fakePython(
            `echo "ModuleNotFoundError: No module named 'selfdebug'" >&2; exit 1`,
        );
        const result = await preflight(python);
        assert.ok(!result.ok && result.problem === 'package-missing');
        assert.equal(
            preflightMessage(result, python),
            `selfdebug: the package is not installed for "${python}". Install it with: ${python} -m pip install selfdebug`,
        );
    });

    test('a broken install reports its last error line', async () => {
        const python = fakePython(`echo "Traceback..." >&2; echo "ImportError: bad wheel" >&2; exit 1`);
        const result = await preflight(python);
        assert.ok(!result.ok && result.problem === 'failed');
        assert.match(preflightMessage(result, python), /cannot import selfdebug: ImportError: bad wheel\./);
    });

    test('a working interpreter reports the version it imports', async () => {
        const python = fakePython(`printf 0.1.0`);
        assert.deepEqual(await preflight(python), { ok: true, version: '0.1.0' });
    });

    test('the real project venv imports selfdebug', { skip: !process.env.SELFDEBUG_PYTHON }, async () => {
        const result = await preflight(process.env.SELFDEBUG_PYTHON as string);
        assert.equal(result.ok, true, JSON.stringify(result));
    });
});

describe('installCommand', () => {
    test('quotes interpreters with spaces', () => {
        assert.equal(installCommand('python3'), 'python3 -m pip install selfdebug');
        assert.equal(installCommand('/My Envs/py/bin/python'), '"/My Envs/py/bin/python" -m pip install selfdebug');
    });
});
