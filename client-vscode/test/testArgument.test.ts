import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type * as vscode from 'vscode';
import { testItemOf } from '../src/testArgument';

const item = { id: 'tests/test_calc.py::test_mean', label: 'test_mean' } as unknown as vscode.TestItem;

describe('the Testing view argument', () => {
    test('a test item (item and result menus) is itself', () => {
        assert.equal(testItemOf(item), item);
    });
    test('{test, message} (the failure message menu) is its test', () => {
        const message = { message: 'assert 2.0 == 3' } as unknown as vscode.TestMessage;
        assert.equal(testItemOf({ test: item, message }), item);
    });
    test('nothing is nothing', () => {
        assert.equal(testItemOf(undefined), undefined);
    });
});
