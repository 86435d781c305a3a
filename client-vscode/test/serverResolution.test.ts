import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
    bundledState,
    chooseServer,
    findBundledWheel,
    installDecision,
    otherVenvs,
    serverVenv,
    venvPython,
} from '../src/serverResolution';

const python = { command: '/ws/.venv/bin/python', source: 'python-extension' } as const;
const wheel = { path: '/ext/bundled/selfdebug-0.1.0-py3-none-any.whl', version: '0.1.0' };

describe('chooseServer: selfdebug.path, then fromEnvironment, then useBundled', () => {
    test('selfdebug.path wins over either strategy: `<path> serve`, probed with --version', () => {
        for (const importStrategy of ['useBundled', 'fromEnvironment'] as const) {
            const choice = chooseServer({ path: '/opt/sd/bin/selfdebug', importStrategy }, python, wheel, '/storage');
            assert.deepEqual(choice, {
                kind: 'path',
                server: { command: '/opt/sd/bin/selfdebug', args: ['serve'] },
                probe: { command: '/opt/sd/bin/selfdebug', args: ['--version'] },
            });
        }
    });

    test("fromEnvironment: the interpreter's own selfdebug (today's behaviour)", () => {
        const choice = chooseServer({ path: '', importStrategy: 'fromEnvironment' }, python, wheel, '/storage');
        assert.equal(choice.kind, 'environment');
        assert.ok(choice.kind === 'environment');
        assert.deepEqual(choice.server, { command: '/ws/.venv/bin/python', args: ['-m', 'selfdebug', 'serve'] });
        assert.equal(choice.probe.command, '/ws/.venv/bin/python');
        assert.equal(choice.probe.args[0], '-c');
    });

    test("useBundled (the default): the extension's own environment of the wheel's version, made from the interpreter", () => {
        const choice = chooseServer({ path: '', importStrategy: 'useBundled' }, python, wheel, '/home/u/.config/Code/User/globalStorage/selfdebug.selfdebug', 'linux');
        assert.ok(choice.kind === 'bundled');
        const venv = '/home/u/.config/Code/User/globalStorage/selfdebug.selfdebug/server-venv-0.1.0';
        assert.equal(choice.venv, venv);
        // isolated (-I): the folder it starts in and the project's PYTHONPATH come after nothing
        assert.deepEqual(choice.server, { command: `${venv}/bin/python`, args: ['-I', '-m', 'selfdebug', 'serve'] });
        assert.equal(choice.probe.command, `${venv}/bin/python`);
        assert.deepEqual(choice.probe.args.slice(0, 2), ['-I', '-c']);
        assert.deepEqual(choice.base, python, 'the Python the environment is made with');
        assert.notEqual(choice.server.command, python.command, "the server never runs in the project's interpreter");
    });

    test('useBundled without a bundled wheel: a message that names the other two ways', () => {
        const choice = chooseServer({ path: '', importStrategy: 'useBundled' }, python, undefined, '/storage');
        assert.ok(choice.kind === 'unavailable');
        assert.match(choice.reason, /no selfdebug wheel/);
        assert.match(choice.reason, /"fromEnvironment"/);
        assert.match(choice.reason, /selfdebug\.path/);
    });
});

describe('the bundled wheel and its environments', () => {
    test('the wheel is found by its name; other files are not wheels of ours', () => {
        assert.deepEqual(findBundledWheel('/ext/bundled', ['README.md', 'selfdebug-0.1.0-py3-none-any.whl', 'other-1.0-py3-none-any.whl']), wheel);
        assert.equal(findBundledWheel('/ext/bundled', []), undefined);
        assert.equal(findBundledWheel('/ext/bundled', ['selfdebug-0.1.0.tar.gz', 'selfdebug-0.1.0-cp311-cp311-linux_x86_64.whl']), undefined);
        assert.equal(
            findBundledWheel('/b', ['selfdebug-0.9.0-py3-none-any.whl', 'selfdebug-0.10.0-py3-none-any.whl'])?.version,
            '0.10.0',
        );
    });

    test("an environment per version; other versions' are found for removal", () => {
        assert.equal(serverVenv('/s', '0.2.0'), '/s/server-venv-0.2.0');
        assert.deepEqual(otherVenvs('/s', ['server-venv-0.1.0', 'server-venv-0.2.0', 'notes.json'], '/s/server-venv-0.2.0'), ['/s/server-venv-0.1.0']);
        assert.equal(venvPython('/s/v', 'linux'), '/s/v/bin/python');
        assert.equal(venvPython('C:\\s\\v', 'win32').endsWith('python.exe'), true);
    });
});

describe('bundledState', () => {
    const hash = 'aa'.repeat(32);
    test('ready only with the same version and the same wheel file', () => {
        assert.equal(bundledState({ ok: true, version: '0.1.0', sha256: hash }, true, wheel, hash), 'ready');
        assert.equal(bundledState({ ok: true, version: '0.1.0', sha256: '' }, true, wheel, hash), 'ready', 'installed by hand: no hash recorded');
        assert.equal(bundledState({ ok: true, version: '0.1.0', sha256: 'bb'.repeat(32) }, true, wheel, hash), 'stale', 'another build of 0.1.0');
        assert.equal(bundledState({ ok: true, version: '0.0.9', sha256: hash }, true, wheel, hash), 'stale');
    });

    test('nothing there is missing; a folder that does not run is stale', () => {
        assert.equal(bundledState({ ok: false }, false, wheel, hash), 'missing');
        assert.equal(bundledState({ ok: false }, true, wheel, hash), 'stale');
    });
});

describe('installDecision', () => {
    const none = { requested: false, dontAsk: false, installedBefore: false };
    test('a ready environment starts; a missing one is offered first', () => {
        assert.equal(installDecision('ready', none), 'start');
        assert.equal(installDecision('missing', none), 'ask');
    });

    test("Don't ask again: no notification, a message instead", () => {
        assert.equal(installDecision('missing', { ...none, dontAsk: true }), 'refuse');
    });

    test('installed without asking when the user asked, or agreed to an earlier version (an update)', () => {
        assert.equal(installDecision('missing', { ...none, requested: true, dontAsk: true }), 'install');
        assert.equal(installDecision('ready', { ...none, requested: true }), 'install', 'the Install command reinstalls');
        assert.equal(installDecision('missing', { ...none, installedBefore: true }), 'install');
        assert.equal(installDecision('stale', none), 'install');
    });
});
