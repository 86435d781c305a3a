/**
 * The language client's lifecycle: resolve the interpreter, check it can run the server, start
 * `python -m selfdebug serve` over stdio, and restart it (serialized) on demand.
 */
import * as vscode from 'vscode';
import {
    ExecuteCommandRequest,
    LanguageClient,
    type LanguageClientOptions,
    ResponseError,
    RevealOutputChannelOn,
    WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import { configurationAnswer, type Interpreter, resolveInterpreter } from './interpreter';
import { installCommand, preflight, preflightMessage, serverExecutable } from './launch';
import { ProgressNotifications } from './progressNotification';
import { parseSessionReport, SESSION_REPORT_METHOD } from './report';
import { folderFor, readServerSettings, SECTION } from './settings';
import { SERVER_DEBUG_FAILURE, SERVER_PROPOSE_FAILURE_FIX, SERVER_PROPOSE_FIX, SERVER_SELF_DEBUG } from './commands';
import type { FixReview } from './fixReview';
import type { ReportView } from './reportView';

// A code action's command that applies a fix -> the one that proposes it (for the review diff).
const PROPOSING: Record<string, string | undefined> = {
    [SERVER_SELF_DEBUG]: SERVER_PROPOSE_FIX,
    [SERVER_DEBUG_FAILURE]: SERVER_PROPOSE_FAILURE_FIX,
};
import type { SessionStatusBar } from './statusBar';

const CLIENT_ID = 'selfdebug';
const CLIENT_NAME = 'selfdebug';

export class ServerController implements vscode.Disposable {
    private client: LanguageClient | undefined;
    private starting: Promise<LanguageClient | undefined> = Promise.resolve(undefined);
    private lastFailure = 'the selfdebug server has not started yet';
    private readonly notifications = new ProgressNotifications();

    constructor(
        private readonly output: vscode.LogOutputChannel,
        private readonly status: SessionStatusBar,
        private readonly reports: ReportView,
        private readonly review: FixReview,
    ) {}

    /** Stop the running server (if any) and start a new one; calls never overlap. */
    restart(reason: string): Promise<LanguageClient | undefined> {
        this.starting = this.starting
            .catch(() => undefined)
            .then(() => this.stop())
            .then(() => this.start(reason));
        return this.starting;
    }

    /** The running client, waiting for a start in progress; throws with the reason it is not running. */
    async ready(): Promise<LanguageClient> {
        const client = await this.starting.catch(() => undefined);
        if (!client || !client.isRunning()) {
            throw new Error(this.lastFailure);
        }
        return client;
    }

    /** `workspace/executeCommand` on the server, e.g. `selfdebug.selfDebug` with {uri, position}. */
    async executeServerCommand(command: string, args: unknown): Promise<unknown> {
        const client = await this.ready();
        return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
    }

    /** The protocol form of a document URI, as the server sees it. */
    async protocolUri(uri: vscode.Uri): Promise<string> {
        return (await this.ready()).code2ProtocolConverter.asUri(uri);
    }

    async stop(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        if (client) {
            try {
                await client.stop(5000);
            } catch (error) {
                this.output.warn(`stopping the server: ${String(error)}`);
            }
            await client.dispose().catch(() => undefined);
        }
    }

    private async start(reason: string): Promise<LanguageClient | undefined> {
        const interpreter = await resolveInterpreter();
        const cwd = folderFor()?.uri.fsPath;
        this.output.info(`starting the server (${reason}): ${interpreter.command} -m selfdebug serve [${interpreter.source}]`);
        this.status.showMessage('$(loading~spin) selfdebug: starting', `Starting ${interpreter.command} -m selfdebug serve`);

        const check = await preflight(interpreter.command, cwd);
        if (!check.ok) {
            this.fail(preflightMessage(check, interpreter.command), check.detail, interpreter);
            return undefined;
        }
        this.output.info(`selfdebug ${check.version} found for ${interpreter.command}`);

        const executable = serverExecutable(interpreter.command, cwd);
        const options = this.clientOptions(() => client);
        const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, { run: executable, debug: executable }, options);
        client.onNotification(SESSION_REPORT_METHOD, (params: unknown) => this.reports.setReport(parseSessionReport(params)));
        try {
            await client.start();
        } catch (error) {
            await client.dispose().catch(() => undefined);
            this.fail(`selfdebug: the server failed to start: ${String(error)}`, String(error), interpreter);
            return undefined;
        }
        this.client = client;
        this.status.showMessage('$(debug-alt) selfdebug', `selfdebug ${check.version} (${interpreter.command})`);
        return client;
    }

    private clientOptions(client: () => LanguageClient): LanguageClientOptions {
        return {
            documentSelector: [
                { scheme: 'file', language: 'python' },
                { scheme: 'untitled', language: 'python' },
            ],
            outputChannel: this.output,
            revealOutputChannelOn: RevealOutputChannelOn.Never,
            // The client's own layer: the user's settings, and VS Code's workspace trust (the
            // project's own interpreter runs only in a trusted workspace; server/lsp/settings.py).
            initializationOptions: {
                selfdebug: { ...readServerSettings(), trustedWorkspace: vscode.workspace.isTrusted },
            },
            // A change of a "selfdebug" setting is announced (workspace/didChangeConfiguration);
            // the server then pulls the settings again, answered by `configuration` below.
            synchronize: { configurationSection: SECTION },
            middleware: {
                // "Self-debug `f`" and "Self-debug the failure of `test_x`" (code actions'
                // commands): ask for a proposal instead of an applied edit, and open it as a
                // diff to accept or discard (fixReview.ts).
                executeCommand: async (command, args, next) => {
                    const proposing = PROPOSING[command];
                    if (!proposing) {
                        return next(command, args);
                    }
                    const answer = await next(proposing, args);
                    await this.review.open(answer);
                    return answer;
                },
                workspace: {
                    // The server pulls section "selfdebug"; answer with expanded, camelCase settings.
                    configuration: async (params, token, next) => {
                        const defaults = await next(params, token);
                        if (!Array.isArray(defaults)) {
                            return defaults;
                        }
                        return Promise.all(
                            params.items.map(async (item, index) => {
                                const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
                                return (await configurationAnswer(item.section, scope)) ?? defaults[index];
                            }),
                        );
                    },
                },
                // With `showReport` the server asks to show the report's markdown file: show the
                // rendered report with its transcript instead.
                window: {
                    showDocument: async (params, next) => {
                        if (this.reports.isReportFile(vscode.Uri.parse(params.uri))) {
                            await this.reports.show();
                            return { success: true };
                        }
                        const shown = await next(params, new vscode.CancellationTokenSource().token);
                        return shown instanceof ResponseError ? { success: false } : shown;
                    },
                },
                // The phase goes to the status bar; cancellable progress becomes a notification
                // with Cancel (see progressNotification.ts), the rest stays the library's.
                handleWorkDoneProgress: (token, params, next) => {
                    this.status.onProgress(token, params);
                    const cancel = () =>
                        void client().sendNotification(WorkDoneProgressCancelNotification.type, { token });
                    if (!this.notifications.handle(token, params, cancel) || params.kind === 'end') {
                        next(token, params); // 'end' always: it releases the library's handler
                    }
                },
            },
        };
    }

    private fail(message: string, detail: string, interpreter: Interpreter): void {
        this.lastFailure = message;
        this.output.error(message);
        if (detail && detail !== message) {
            this.output.error(detail);
        }
        this.status.showMessage('$(error) selfdebug', message, true);
        void showStartFailure(message, interpreter.command);
    }

    dispose(): void {
        this.notifications.dispose();
        void this.stop();
    }
}

async function showStartFailure(message: string, interpreter: string): Promise<void> {
    const install = 'Install in terminal';
    const settings = 'Open settings';
    const choice = await vscode.window.showErrorMessage(message, install, settings);
    if (choice === install) {
        const terminal = vscode.window.createTerminal('selfdebug install');
        terminal.show();
        terminal.sendText(installCommand(interpreter), false); // the user presses Enter
    } else if (choice === settings) {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'selfdebug.interpreter');
    }
}
