/** Entry point: wires the server, the commands, the status bar and the report view together. */
import * as vscode from 'vscode';
import * as path from 'node:path';
import { INSTALL_COMMAND, ServerController } from './client';
import { runAtCursor, runOnTestItem, SERVER_PROPOSE_FIX, SERVER_RUN_TESTS } from './commands';
import type { TestArgument } from './testArgument';
import { ACCEPT_COMMAND, DISCARD_COMMAND, FixReview } from './fixReview';
import { onPythonInterpreterChanged } from './interpreter';
import { ReportView } from './reportView';
import { needsRestart, readInterpreterSetting } from './settings';
import { SessionStatusBar } from './statusBar';

let server: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    const output = vscode.window.createOutputChannel('selfdebug', { log: true });
    const reports = new ReportView();
    const review = new FixReview(reports);
    const status = new SessionStatusBar('selfdebug.showLastExplanation');
    server = new ServerController(output, status, reports, review, {
        bundledDir: path.join(context.extensionUri.fsPath, 'bundled'),
        storageDir: context.globalStorageUri.fsPath,
        state: context.globalState,
    });
    const controller = server;

    context.subscriptions.push(
        output,
        reports,
        review,
        status,
        controller,
        vscode.commands.registerCommand('selfdebug.selfDebugAtCursor', async () =>
            review.open(await runAtCursor(controller, SERVER_PROPOSE_FIX)),
        ),
        vscode.commands.registerCommand('selfdebug.debugTestFailure', async (argument?: TestArgument) =>
            review.open(await runOnTestItem(controller, argument)),
        ),
        vscode.commands.registerCommand(ACCEPT_COMMAND, () => review.accept()),
        vscode.commands.registerCommand(DISCARD_COMMAND, () => review.discard()),
        vscode.commands.registerCommand('selfdebug.runTestsAtCursor', () => runAtCursor(controller, SERVER_RUN_TESTS)),
        vscode.commands.registerCommand('selfdebug.showLastExplanation', () => reports.show()),
        vscode.commands.registerCommand('selfdebug.restartServer', () => controller.restart('restart command')),
        vscode.commands.registerCommand(INSTALL_COMMAND, () => controller.restart('install command', true)),
        vscode.workspace.onDidChangeConfiguration((event) => {
            if (needsRestart(event)) {
                void controller.restart('the server settings changed');
            }
        }),
    );

    void controller.restart('activation');
    // Registered after the start so that activating the Python extension never delays it.
    const pythonListener = await onPythonInterpreterChanged(() => {
        if (!readInterpreterSetting()) {
            void controller.restart('the Python extension changed the active interpreter');
        }
    });
    if (pythonListener) {
        context.subscriptions.push(pythonListener);
    }
}

export async function deactivate(): Promise<void> {
    await server?.stop();
    server = undefined;
}
