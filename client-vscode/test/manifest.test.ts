import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_IMPORT_STRATEGY, IMPORT_STRATEGIES } from '../src/serverResolution';
import { SERVER_DEFAULTS, SERVER_SETTING_KEYS } from '../src/settings';

interface Property {
    default?: unknown;
    scope?: string;
    enum?: unknown[];
    enumDescriptions?: string[];
    anyOf?: Property[];
}

// The bundle runs from out/test/, the manifest is two levels up.
const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
const properties: Record<string, Property> = manifest.contributes.configuration.properties;

describe('package.json contributes', () => {
    test('every server setting, the server choice and the protocol trace are contributed, and nothing else', () => {
        const contributed = Object.keys(properties).sort();
        const client = ['interpreter', 'path', 'importStrategy', 'trace.server'];
        const expected = [...SERVER_SETTING_KEYS, ...client].map((k) => `selfdebug.${k}`).sort();
        assert.deepEqual(contributed, expected);
    });

    test("defaults match the client's (and so the server's) defaults", () => {
        for (const key of SERVER_SETTING_KEYS) {
            assert.deepEqual(properties[`selfdebug.${key}`].default, SERVER_DEFAULTS[key], key);
        }
    });

    test('each setting has a scope; each enum has a description per value', () => {
        for (const [name, property] of Object.entries(properties)) {
            assert.ok(property.scope, `${name} has no scope`);
            for (const schema of [property, ...(property.anyOf ?? [])]) {
                if (schema.enum) {
                    assert.equal(schema.enumDescriptions?.length, schema.enum.length, `${name} enumDescriptions`);
                }
            }
        }
        assert.deepEqual(properties['selfdebug.isolation'].enum, ['auto', 'bwrap', 'rlimits']);
        assert.deepEqual(properties['selfdebug.backend'].enum, ['llama', 'openai']);
    });

    test("the extension's own server is the default; the strategies are the client's", () => {
        const strategy = properties['selfdebug.importStrategy'];
        assert.deepEqual(strategy.enum, [...IMPORT_STRATEGIES]);
        assert.equal(strategy.default, DEFAULT_IMPORT_STRATEGY);
        assert.equal(strategy.default, 'useBundled');
        assert.equal(properties['selfdebug.path'].default, '');
    });

    test('the eight commands are contributed', () => {
        const commands = manifest.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]);
        assert.deepEqual(commands, [
            ['selfdebug.selfDebugAtCursor', 'Self-debug function at cursor'],
            ['selfdebug.runTestsAtCursor', 'Run tests for function at cursor'],
            ['selfdebug.debugTestFailure', 'Self-debug the failure of this test'],
            ['selfdebug.showLastExplanation', 'Show last explanation'],
            ['selfdebug.restartServer', 'Restart server'],
            ['selfdebug.installServer', 'Install server'],
            ['selfdebug.acceptFix', 'Accept fix'],
            ['selfdebug.discardFix', 'Discard fix'],
        ]);
    });

    test('the Testing view offers a failure only on a failed, current result; the palette never', () => {
        const failed = 'testResultState == failed && !testResultOutdated';
        for (const menu of ['testing/item/context', 'testing/item/result']) {
            assert.deepEqual(manifest.contributes.menus[menu], [
                { command: 'selfdebug.debugTestFailure', when: failed, group: 'selfdebug@1' },
            ], menu);
        }
        // a failure message's menu: only when its test item has a file to start from
        assert.deepEqual(manifest.contributes.menus['testing/message/context'], [
            { command: 'selfdebug.debugTestFailure', when: 'testing.testItemHasUri', group: 'selfdebug@1' },
        ]);
        const palette = manifest.contributes.menus.commandPalette.find((m: { command: string }) => m.command === 'selfdebug.debugTestFailure');
        assert.equal(palette?.when, 'false'); // it needs a test item: from the menu only
    });

    test('Accept and Discard: title buttons and shortcuts in the review diff only', () => {
        const inReview = 'selfdebug.fixUnderReview && resourceScheme == selfdebug-fix';
        const title = manifest.contributes.menus['editor/title'];
        assert.deepEqual(
            title.map((m: { command: string; when: string }) => [m.command, m.when]),
            [['selfdebug.acceptFix', inReview], ['selfdebug.discardFix', inReview]],
        );
        const keys = manifest.contributes.keybindings.map((k: { command: string; key: string; when: string }) => [k.command, k.key, k.when]);
        assert.deepEqual(keys, [
            ['selfdebug.acceptFix', 'ctrl+enter', inReview],
            ['selfdebug.discardFix', 'ctrl+backspace', inReview],
        ]);
        for (const command of manifest.contributes.commands.filter((c: { command: string }) => /Fix$/.test(c.command))) {
            assert.match(command.icon, /^\$\(/, `${command.command} has an icon for the title bar`);
        }
    });
});
