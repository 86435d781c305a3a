/**
 * The language client's lifecycle: choose the server (serverResolution.ts: `selfdebug.path`, the
 * interpreter's own selfdebug, or the extension's own environment, installed on the user's word by
 * serverInstall.ts), check it can run, start it over stdio, and restart it (serialized) on demand.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import * as vscode from 'vscode';
import {
    ExecuteCommandRequest,
    LanguageClient,
    type LanguageClientOptions,
    ResponseError,
    RevealOutputChannelOn,
    WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import { bundledTestInterpreter, configurationAnswer, resolveInterpreter } from './interpreter';
import { installCommand, type Preflight, preflight, preflightMessage, serverExecutable } from './launch';
import { ProgressNotifications } from './progressNotification';
import { parseSessionReport, SESSION_REPORT_METHOD } from './report';
import { findExecutable, installPlan, manualCommands, privateEnv, runInstall, sha256File } from './serverInstall';
import {
    type BundledWheel,
    bundledState,
    chooseServer,
    findBundledWheel,
    installDecision,
    otherVenvs,
    type ServerChoice,
} from './serverResolution';
import { folderFor, readLaunchSettings, readUserSettings, SECTION, type ServerSettings } from './settings';
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
const DONT_ASK_KEY = 'selfdebug.installServer.dontAsk';
export const INSTALL_COMMAND = 'selfdebug.installServer';

type Startable = Exclude<ServerChoice, { kind: 'unavailable' }>;
type Bundled = Extract<ServerChoice, { kind: 'bundled' }>;

/** Where the extension's own server lives: the bundled wheel, its environments, the user's choices. */
export interface ServerHome {
    bundledDir: string; // <extension>/bundled
    storageDir: string; // the extension's globalStorageUri
    state: vscode.Memento; // globalState: "Don't ask again"
}

export class ServerController implements vscode.Disposable {
    private client: LanguageClient | undefined;
    private starting: Promise<LanguageClient | undefined> = Promise.resolve(undefined);
    private lastFailure = 'the selfdebug server has not started yet';
    private readonly notifications = new ProgressNotifications();
    // The tests' interpreter when nothing names one (see `bundledTestInterpreter`).
    private testFallback = '';
    private offering = false; // the install notification is on screen (one at a time)

    constructor(
        private readonly output: vscode.LogOutputChannel,
        private readonly status: SessionStatusBar,
        private readonly reports: ReportView,
        private readonly review: FixReview,
        private readonly home: ServerHome,
    ) {}

    /**
     * Stop the running server (if any) and start a new one; calls never overlap. With `install`,
     * (re)install the extension's own server first (the user asked for it).
     */
    restart(reason: string, install = false): Promise<LanguageClient | undefined> {
        this.starting = this.starting
            .catch(() => undefined)
            .then(() => this.stop())
            .then(() => this.start(reason, install));
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

    private async start(reason: string, install: boolean): Promise<LanguageClient | undefined> {
        const interpreter = await resolveInterpreter();
        const cwd = folderFor()?.uri.fsPath;
        const wheel = await this.bundledWheel();
        const choice = chooseServer(readLaunchSettings(), interpreter, wheel, this.home.storageDir);
        if (choice.kind === 'unavailable') {
            this.fail(choice.reason, '', undefined);
            return undefined;
        }
        const described = `${choice.server.command} ${choice.server.args.join(' ')}`;
        this.output.info(`starting the server (${reason}): ${described} [${describeChoice(choice)}]`);
        this.status.showMessage('$(loading~spin) selfdebug: starting', `Starting ${described}`);
        if (install && choice.kind !== 'bundled') {
            void vscode.window.showWarningMessage(
                'selfdebug: the install step makes the extension\'s own server, but "selfdebug.path" or ' +
                    '"selfdebug.importStrategy" chooses another one.',
            );
        }

        let check = await preflight(choice.probe, cwd, choice.kind === 'bundled' ? privateEnv() : process.env);
        if (choice.kind === 'bundled') {
            const ready = await this.ensureBundled(choice, check, install);
            if (!ready) {
                return undefined;
            }
            check = ready;
        }
        if (!check.ok) {
            this.fail(preflightMessage(check, choice, wheel?.path), check.detail, choice);
            return undefined;
        }
        this.output.info(`selfdebug ${check.version} found (${described})`);
        this.testFallback =
            choice.kind === 'bundled' ? bundledTestInterpreter(choice.base.command, cwd) : '';
        if (this.testFallback) {
            this.output.info(`the tests run with ${this.testFallback} unless "selfdebug.pythonPath" names another`);
        }

        const executable = serverExecutable(choice, cwd);
        const options = this.clientOptions(() => client);
        const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, { run: executable, debug: executable }, options);
        client.onNotification(SESSION_REPORT_METHOD, (params: unknown) => this.reports.setReport(parseSessionReport(params)));
        try {
            await client.start();
        } catch (error) {
            await client.dispose().catch(() => undefined);
            this.fail(`selfdebug: the server failed to start: ${String(error)}`, String(error), choice);
            return undefined;
        }
        this.client = client;
        this.status.showMessage('$(debug-alt) selfdebug', `selfdebug ${check.version} (${described})`);
        return client;
    }

    /** The wheel in the extension's bundled/ folder, if this build carries one. */
    private async bundledWheel(): Promise<BundledWheel | undefined> {
        const names = await readdir(this.home.bundledDir).catch(() => [] as string[]);
        return findBundledWheel(this.home.bundledDir, names);
    }

    /**
     * The extension's own environment, ready to run: its probe when it holds the bundled wheel, else
     * (on the user's word) made again; undefined when it is not (the reason is shown).
     */
    private async ensureBundled(choice: Bundled, check: Preflight, requested: boolean): Promise<Preflight | undefined> {
        const storage = await readdir(this.home.storageDir).catch(() => [] as string[]);
        const state = bundledState(
            check.ok ? { ok: true, version: check.version, sha256: check.sha256 } : { ok: false },
            existsSync(choice.venv),
            choice.wheel,
            sha256File(choice.wheel.path),
        );
        const decision = installDecision(state, {
            requested,
            dontAsk: this.home.state.get<boolean>(DONT_ASK_KEY, false),
            installedBefore: otherVenvs(this.home.storageDir, storage, choice.venv).length > 0,
        });
        this.output.info(`the extension's server environment ${choice.venv}: ${state}; ${decision}`);
        switch (decision) {
            case 'start':
                return check;
            case 'ask':
                this.waitForInstall(`selfdebug: its server is not installed yet: choose Install in the notification, or run "selfdebug: Install server".`);
                void this.offerInstall(choice);
                return undefined;
            case 'refuse':
                this.waitForInstall(
                    `selfdebug: its server is not installed ("Don't ask again" was chosen): run "selfdebug: Install server", ` +
                        'or set "selfdebug.importStrategy" to "fromEnvironment" or "selfdebug.path".',
                );
                return undefined;
            case 'install':
                return (await this.install(choice)) ? preflight(choice.probe, undefined, privateEnv()) : undefined;
        }
    }

    private waitForInstall(message: string): void {
        this.lastFailure = message;
        this.output.warn(message);
        this.status.showMessage('$(cloud-download) selfdebug: not installed', message, true);
    }

    /** Install / Show command / Don't ask again: a notification, not a modal dialog. */
    private async offerInstall(choice: Bundled): Promise<void> {
        if (this.offering) {
            return;
        }
        const install = 'Install';
        const show = 'Show command';
        const never = "Don't ask again";
        this.offering = true;
        const answer = await vscode.window
            .showInformationMessage(
                `selfdebug needs its server: install selfdebug ${choice.wheel.version} into an environment of its own, ` +
                    `made with ${choice.base.command}? Its dependencies come from your package index (about a minute).`,
                install,
                show,
                never,
            )
            .then(
                (picked) => picked,
                () => undefined,
            );
        this.offering = false;
        if (answer === install) {
            await this.restart('install', true);
        } else if (answer === show) {
            this.showInstallCommands(choice);
        } else if (answer === never) {
            await this.home.state.update(DONT_ASK_KEY, true);
        }
    }

    /** The exact commands of the install step, in the Output, to run by hand. */
    private showInstallCommands(choice: Bundled): void {
        const plan = installPlan(choice.base.command, choice.wheel, choice.venv, findExecutable('uv'));
        this.output.info('to install the server by hand, run these commands, then "selfdebug: Restart server":');
        for (const line of manualCommands(plan)) {
            this.output.info(`    ${line}`);
        }
        this.output.show(true);
    }

    /**
     * The install step, with a cancellable progress notification; on failure the half-made
     * environment is gone (runInstall) and the Output shows what failed and the exact commands.
     */
    private async install(choice: Bundled): Promise<boolean> {
        const plan = installPlan(choice.base.command, choice.wheel, choice.venv, findExecutable('uv'));
        const labels = ['making its environment', `installing selfdebug ${choice.wheel.version} and its dependencies`, 'checking it'];
        this.status.showMessage('$(loading~spin) selfdebug: installing', `Installing selfdebug into ${choice.venv}`);
        const outcome = await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: 'selfdebug: installing the server', cancellable: true },
            async (progress, token) => {
                const abort = new AbortController();
                const listener = token.onCancellationRequested(() => abort.abort());
                try {
                    return await runInstall(plan, {
                        signal: abort.signal,
                        log: (line) => this.output.info(line),
                        onStep: (index) => progress.report({ message: labels[index] }),
                    });
                } finally {
                    listener.dispose();
                }
            },
        );
        if (outcome.ok) {
            this.output.info(`installed selfdebug ${outcome.version} in ${choice.venv}`);
            const storage = await readdir(this.home.storageDir).catch(() => [] as string[]);
            for (const old of otherVenvs(this.home.storageDir, storage, choice.venv)) {
                await rm(old, { recursive: true, force: true }).catch(() => undefined); // an earlier version's
            }
            return true;
        }
        const commands = manualCommands(plan);
        const what = outcome.cancelled ? 'was cancelled' : `failed: ${outcome.detail}`;
        const message = `selfdebug: installing the server ${what}. The half-made environment was removed. To install by hand: ${commands.join(' && ')}`;
        this.lastFailure = message;
        this.output.error(message);
        this.status.showMessage('$(error) selfdebug', message, true);
        if (!outcome.cancelled) {
            this.output.show(true);
            this.showInstallCommands(choice);
        }
        const retry = 'Retry';
        void vscode.window.showErrorMessage(message, retry).then((answer) => {
            if (answer === retry) {
                void this.restart('install again', true);
            }
        });
        return false;
    }

    /** The settings sent at start; the tests' interpreter falls back as in the answers below. */
    private initialSettings(): Partial<ServerSettings> {
        const settings = readUserSettings();
        return settings.pythonPath || !this.testFallback ? settings : { ...settings, pythonPath: this.testFallback };
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
                selfdebug: { ...this.initialSettings(), trustedWorkspace: vscode.workspace.isTrusted },
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
                                const answer = await configurationAnswer(item.section, scope, undefined, this.testFallback);
                                return answer ?? defaults[index];
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

    private fail(message: string, detail: string, choice: Startable | undefined): void {
        this.lastFailure = message;
        this.output.error(message);
        if (detail && detail !== message) {
            this.output.error(detail);
        }
        this.status.showMessage('$(error) selfdebug', message, true);
        void this.showStartFailure(message, choice);
    }

    private async showStartFailure(message: string, choice: Startable | undefined): Promise<void> {
        const wheel = choice?.kind === 'environment' ? (await this.bundledWheel())?.path : undefined;
        const command = choice?.kind === 'environment' ? installCommand(choice.interpreter.command, wheel) : undefined;
        const installInTerminal = 'Install in terminal';
        const reinstall = 'Install server';
        const settings = 'Open settings';
        const buttons = [command ? installInTerminal : choice?.kind === 'bundled' ? reinstall : undefined, settings];
        const answer = await vscode.window.showErrorMessage(message, ...buttons.filter((b): b is string => !!b));
        if (answer === installInTerminal && command) {
            const terminal = vscode.window.createTerminal('selfdebug install');
            terminal.show();
            terminal.sendText(command, false); // the user presses Enter
        } else if (answer === reinstall) {
            await this.restart('install command', true);
        } else if (answer === settings) {
            await vscode.commands.executeCommand('workbench.action.openSettings', '@ext:selfdebug.selfdebug');
        }
    }

    dispose(): void {
        this.notifications.dispose();
        void this.stop();
    }
}

function describeChoice(choice: Startable): string {
    switch (choice.kind) {
        case 'path':
            return 'selfdebug.path';
        case 'environment':
            return `fromEnvironment: ${choice.interpreter.source}`;
        case 'bundled':
            return `useBundled: ${choice.venv}, made with ${choice.base.command} (${choice.base.source})`;
    }
}
