/** What the Testing view's menus pass to a command, reduced to the test item (no VS Code runtime
 * needed: unit-tested in test/testArgument.test.ts). */
import type * as vscode from 'vscode';

/** A test item (`testing/item/context`, `testing/item/result`), or the item with the failure
 * message it was opened from (`testing/message/context`). */
export type TestArgument = vscode.TestItem | { test: vscode.TestItem; message?: vscode.TestMessage } | undefined;

/** The test item of a Testing view argument, whichever menu it came from. */
export function testItemOf(argument: TestArgument): vscode.TestItem | undefined {
    if (argument && 'test' in argument) {
        return argument.test;
    }
    return argument;
}
