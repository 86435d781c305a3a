import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledTestInterpreter, configurationAnswer, resolveInterpreter, withTestInterpreter } from '../src/interpreter';
import {
    configurationFor,
    expandVariables,
    needsRestart,
    readInterpreterSetting,
    readLaunchSettings,
    readServerSettings,
    SERVER_DEFAULTS,
} from '../src/settings';
import { fakeUri, setFakeWorkspace } from './fakeVscodeapi';

describe('readServerSettings', () => {
    beforeEach(() => setFakeWorkspace({ settings: {}, folders: [{ name: 'proj', path: '/home/u/proj' }] }));

    test('unset settings give the server defaults', () => {
        assert.deepEqual(readServerSettings(), SERVER_DEFAULTS);
    });

    test('every setting maps 1:1 onto the camelCase key the server reads', () => {
        const user = {
            backend: 'openai',
            modelPath: '/models/m.gguf',
            modelKeepAlive: 60,
            modelStallSeconds: 90,
            modelCallDeadline: 600,
            lookupDecoding: true,
            endpointUrl: 'http://127.0.0.1:8000/v1',
            modelName: 'qwen',
            apiKeyEnv: 'MY_KEY',
            allowRemote: true,
            mode: 'print',
            modelEditsSeconds: 30,
            timeBudgetSeconds: 120,
            maxTurns: 3,
            samples: 4,
            testSelection: ['tests/test_a.py::test_x'],
            testTimeout: 2.5,
            isolation: 'rlimits',
            runOnSave: true,
            showReport: true,
            maxDocumentBytes: 500000,
            pythonPath: '/usr/bin/python3.12',
        };
        const client = { interpreter: '/venv/bin/python', path: '/sd/bin/selfdebug', importStrategy: 'fromEnvironment' };
        setFakeWorkspace({ settings: { '': { ...user, ...client } }, folders: [] });
        assert.deepEqual(readServerSettings(), user);
    });

    test('the client-only settings (the server choice, trace) are not sent to the server', () => {
        setFakeWorkspace({
            settings: {
                '': {
                    interpreter: '/venv/bin/python',
                    path: '/sd/bin/selfdebug',
                    importStrategy: 'fromEnvironment',
                    'trace.server': 'verbose',
                },
            },
            folders: [],
        });
        assert.deepEqual(readServerSettings(), SERVER_DEFAULTS);
        for (const key of ['interpreter', 'path', 'importStrategy', 'trace.server']) {
            assert.equal(configurationFor(`selfdebug.${key}`), undefined, key);
        }
    });

    test('${workspaceFolder} is expanded in paths, for the folder of the scope', () => {
        setFakeWorkspace({
            settings: {
                '': { modelPath: '${workspaceFolder}/models/m.gguf' },
                b: { pythonPath: '${workspaceFolder}/.venv/bin/python' },
            },
            folders: [
                { name: 'a', path: '/ws/a' },
                { name: 'b', path: '/ws/b' },
            ],
        });
        const inB = readServerSettings(fakeUri('/ws/b/src/x.py'));
        assert.equal(inB.modelPath, '/ws/b/models/m.gguf');
        assert.equal(inB.pythonPath, '/ws/b/.venv/bin/python');
        const noScope = readServerSettings();
        assert.equal(noScope.modelPath, '/ws/a/models/m.gguf', 'the first folder without a scope');
        assert.equal(noScope.pythonPath, '');
    });

    test('folder settings override user settings', () => {
        setFakeWorkspace({
            settings: { '': { mode: 'ut', maxTurns: 5 }, proj: { mode: 'trace' } },
            folders: [{ name: 'proj', path: '/home/u/proj' }],
        });
        const settings = readServerSettings(fakeUri('/home/u/proj/a.py'));
        assert.equal(settings.mode, 'trace');
        assert.equal(settings.maxTurns, 5);
    });

    test('non-path strings are sent verbatim', () => {
        setFakeWorkspace({ settings: { '': { modelName: '${workspaceFolder}' } }, folders: [{ name: 'p', path: '/p' }] });
        assert.equal(readServerSettings().modelName, '${workspaceFolder}');
    });
});

describe('configurationFor (workspace/configuration answers)', () => {
    beforeEach(() =>
        setFakeWorkspace({ settings: { '': { maxTurns: 7 } }, folders: [{ name: 'p', path: '/p' }] }),
    );

    test('section "selfdebug" gets the settings the user set, no defaults', () => {
        // an unset one is left to the project's [tool.selfdebug], else the server's default
        assert.deepEqual(configurationFor('selfdebug'), { maxTurns: 7 });
    });

    test("a folder's setting wins over the user's, both are sent as set", () => {
        setFakeWorkspace({
            settings: { '': { maxTurns: 7, mode: 'ut' }, p: { mode: 'search' } },
            folders: [{ name: 'p', path: '/p' }],
        });
        assert.deepEqual(configurationFor('selfdebug', fakeUri('/p/m.py')), { maxTurns: 7, mode: 'search' });
        assert.deepEqual(readServerSettings(fakeUri('/p/m.py')), { ...SERVER_DEFAULTS, maxTurns: 7, mode: 'search' });
    });

    test('a dotted key gets one value', () => {
        assert.equal(configurationFor('selfdebug.maxTurns'), 7);
        assert.equal(configurationFor('selfdebug.mode'), 'auto');
    });

    test('other sections are left to the default handler', () => {
        assert.equal(configurationFor('python'), undefined);
        assert.equal(configurationFor(undefined), undefined);
        assert.equal(configurationFor('selfdebugx'), undefined);
    });
});

describe('expandVariables', () => {
    const folder = { name: 'p', index: 0, uri: fakeUri('/ws/p') };

    test('expands workspace, named folder, home and env variables', () => {
        setFakeWorkspace({ settings: {}, folders: [{ name: 'other', path: '/ws/other' }] });
        const env = { HOME: '/home/u', VENV: '/opt/venv' };
        assert.equal(expandVariables('${workspaceFolder}/x', folder, env), '/ws/p/x');
        assert.equal(expandVariables('${workspaceFolder:other}/y', folder, env), '/ws/other/y');
        assert.equal(expandVariables('${userHome}/.venv', folder, env), '/home/u/.venv');
        assert.equal(expandVariables('${env:VENV}/bin/python', folder, env), '/opt/venv/bin/python');
        assert.equal(expandVariables('${env:MISSING}x', folder, env), 'x');
    });

    test('leaves unknown variables and a missing folder alone', () => {
        assert.equal(expandVariables('${workspaceFolder}/x', undefined, {}), '${workspaceFolder}/x');
        assert.equal(expandVariables('${config:foo}', folder, {}), '${config:foo}');
    });
});

describe('interpreter resolution', () => {
    beforeEach(() => setFakeWorkspace({ settings: {}, folders: [{ name: 'p', path: '/ws/p' }] }));
    const pythonExtension = async () => '/ws/p/.venv/bin/python';
    const noPythonExtension = async () => undefined;

    test('the setting wins, expanded', async () => {
        setFakeWorkspace({
            settings: { '': { interpreter: ' ${workspaceFolder}/env/bin/python ' } },
            folders: [{ name: 'p', path: '/ws/p' }],
        });
        assert.equal(readInterpreterSetting(), '/ws/p/env/bin/python');
        assert.deepEqual(await resolveInterpreter(undefined, pythonExtension), {
            command: '/ws/p/env/bin/python',
            source: 'setting',
        });
    });

    test("then the Python extension's active interpreter", async () => {
        assert.deepEqual(await resolveInterpreter(undefined, pythonExtension), {
            command: '/ws/p/.venv/bin/python',
            source: 'python-extension',
        });
    });

    test('then python3', async () => {
        assert.deepEqual(await resolveInterpreter(undefined, noPythonExtension), { command: 'python3', source: 'default' });
    });

    test('without ms-python.python installed the default lookup falls back to python3', async () => {
        assert.deepEqual(await resolveInterpreter(), { command: 'python3', source: 'default' });
    });

    test("with ms-python.python installed its active environment's executable is used", async () => {
        setFakeWorkspace({
            settings: {},
            folders: [],
            extensions: {
                'ms-python.python': {
                    environments: {
                        getActiveEnvironmentPath: () => ({ id: 'x', path: '/envs/a' }),
                        resolveEnvironment: async (env: { path: string }) => ({
                            executable: { uri: fakeUri(`${env.path}/bin/python`) },
                        }),
                    },
                },
            },
        });
        assert.deepEqual(await resolveInterpreter(), { command: '/envs/a/bin/python', source: 'python-extension' });
    });
});

describe("the tests' interpreter (pythonPath)", () => {
    beforeEach(() => setFakeWorkspace({ settings: {}, folders: [{ name: 'p', path: '/ws/p' }] }));
    const selected = async (scope?: { fsPath: string }) => (scope ? `${scope.fsPath}/.venv/bin/python` : undefined);
    const noPythonExtension = async () => undefined;

    test("empty: the Python extension's environment for the file's folder", async () => {
        const answer = (await configurationAnswer('selfdebug', fakeUri('/ws/p'), selected)) as { pythonPath: string };
        assert.equal(answer.pythonPath, '/ws/p/.venv/bin/python');
        assert.equal(await configurationAnswer('selfdebug.pythonPath', fakeUri('/ws/p'), selected), '/ws/p/.venv/bin/python');
    });

    test('the setting wins over the Python extension, expanded', async () => {
        setFakeWorkspace({
            settings: { p: { pythonPath: '${workspaceFolder}/env/bin/python' } },
            folders: [{ name: 'p', path: '/ws/p' }],
        });
        const answer = (await configurationAnswer('selfdebug', fakeUri('/ws/p/m.py'), selected)) as { pythonPath: string };
        assert.equal(answer.pythonPath, '/ws/p/env/bin/python');
    });

    test('without the Python extension it stays empty (the server looks for .venv/venv)', async () => {
        const settings = { ...SERVER_DEFAULTS };
        assert.equal((await withTestInterpreter(settings, fakeUri('/ws/p'), noPythonExtension)).pythonPath, '');
        assert.equal(await configurationAnswer('selfdebug.pythonPath', undefined, noPythonExtension), '');
        // the real lookup, with ms-python.python not installed: not sent (the server's default)
        assert.equal(((await configurationAnswer('selfdebug', fakeUri('/ws/p'))) as { pythonPath?: string }).pythonPath, undefined);
    });

    test("with ms-python.python installed its environments API is asked for the folder", async () => {
        const asked: unknown[] = [];
        setFakeWorkspace({
            settings: {},
            folders: [{ name: 'p', path: '/ws/p' }],
            extensions: {
                'ms-python.python': {
                    environments: {
                        getActiveEnvironmentPath: (scope: unknown) => {
                            asked.push(scope);
                            return { id: 'x', path: '/ws/p/.venv' };
                        },
                        resolveEnvironment: async (env: { path: string }) => ({
                            executable: { uri: fakeUri(`${env.path}/bin/python`) },
                        }),
                    },
                },
            },
        });
        const answer = (await configurationAnswer('selfdebug', fakeUri('/ws/p/m.py'))) as { pythonPath: string };
        assert.equal(answer.pythonPath, '/ws/p/.venv/bin/python');
        assert.equal((asked[0] as { fsPath: string }).fsPath, '/ws/p/m.py');
    });

    test('other sections are still left to the default handler', async () => {
        assert.equal(await configurationAnswer('python', undefined, selected), undefined);
    });
});

describe('readLaunchSettings (which server runs)', () => {
    test('unset: the bundled server, no path', () => {
        setFakeWorkspace({ settings: {}, folders: [{ name: 'p', path: '/ws/p' }] });
        assert.deepEqual(readLaunchSettings(), { path: '', importStrategy: 'useBundled' });
    });

    test('path is expanded; a known strategy is taken, an unknown one falls back to the default', () => {
        setFakeWorkspace({
            settings: { '': { path: ' ${workspaceFolder}/.venv/bin/selfdebug ', importStrategy: 'fromEnvironment' } },
            folders: [{ name: 'p', path: '/ws/p' }],
        });
        assert.deepEqual(readLaunchSettings(), { path: '/ws/p/.venv/bin/selfdebug', importStrategy: 'fromEnvironment' });
        setFakeWorkspace({ settings: { '': { importStrategy: 'fromPath' } }, folders: [] });
        assert.equal(readLaunchSettings().importStrategy, 'useBundled');
    });
});

describe("the tests' interpreter for a server in its own environment", () => {
    function folderWith(venvDir?: string): string {
        const folder = mkdtempSync(join(tmpdir(), 'selfdebug-project-'));
        if (venvDir) {
            mkdirSync(join(folder, venvDir, 'bin'), { recursive: true });
            writeFileSync(join(folder, venvDir, 'bin', 'python'), '');
        }
        return folder;
    }
    const bin = mkdtempSync(join(tmpdir(), 'selfdebug-bin-'));
    writeFileSync(join(bin, 'python3'), '#!/bin/sh\n', { mode: 0o755 });

    test("the project's own venv, an active virtualenv: left to the server's lookup (with workspace trust)", () => {
        for (const dir of ['.venv', 'venv', 'env', '.env']) {
            assert.equal(bundledTestInterpreter('python3', folderWith(dir), { PATH: bin }), '', dir);
        }
        assert.equal(bundledTestInterpreter('python3', folderWith(), { PATH: bin, VIRTUAL_ENV: '/v' }), '');
    });

    test("else the user's Python, found on PATH: never the server's environment", () => {
        assert.equal(bundledTestInterpreter('python3', folderWith(), { PATH: bin }), join(bin, 'python3'));
        assert.equal(bundledTestInterpreter(join(bin, 'python3'), undefined, { PATH: '' }), join(bin, 'python3'));
    });

    test("the answer carries it unless pythonPath or the Python extension names one", async () => {
        setFakeWorkspace({ settings: {}, folders: [{ name: 'p', path: '/ws/p' }] });
        const none = async () => undefined;
        const answer = (await configurationAnswer('selfdebug', fakeUri('/ws/p'), none, '/usr/bin/python3')) as { pythonPath: string };
        assert.equal(answer.pythonPath, '/usr/bin/python3');
        assert.equal(await configurationAnswer('selfdebug.pythonPath', undefined, none, '/usr/bin/python3'), '/usr/bin/python3');
        const selected = async () => '/ws/p/.venv/bin/python';
        const fromExtension = (await configurationAnswer('selfdebug', fakeUri('/ws/p'), selected, '/usr/bin/python3')) as { pythonPath: string };
        assert.equal(fromExtension.pythonPath, '/ws/p/.venv/bin/python');
        setFakeWorkspace({ settings: { '': { pythonPath: '/opt/py/bin/python' } }, folders: [{ name: 'p', path: '/ws/p' }] });
        const configured = (await configurationAnswer('selfdebug', fakeUri('/ws/p'), none, '/usr/bin/python3')) as { pythonPath: string };
        assert.equal(configured.pythonPath, '/opt/py/bin/python');
    });
});

describe('needsRestart', () => {
    const change = (...sections: string[]) => ({
        affectsConfiguration: (section: string) =>
            sections.some((s) => s === section || s.startsWith(`${section}.`)),
    });

    test('only the settings that choose the server restart it; the server pulls the others itself', () => {
        assert.equal(needsRestart(change('selfdebug.interpreter')), true);
        assert.equal(needsRestart(change('selfdebug.path')), true);
        assert.equal(needsRestart(change('selfdebug.importStrategy')), true);
        assert.equal(needsRestart(change('selfdebug.backend')), false);
        assert.equal(needsRestart(change('selfdebug.mode', 'selfdebug.pythonPath')), false);
        assert.equal(needsRestart(change('selfdebug.trace.server')), false);
        assert.equal(needsRestart(change('editor.fontSize')), false);
    });
});
