/**
 * "Show last explanation": the last session report, with its transcript turn by turn, as a
 * read-only markdown document shown in VS Code's built-in markdown preview.
 */
import * as vscode from 'vscode';
import { renderReportMarkdown, type SessionReport } from './report';
import { readTranscript, type TranscriptEvent } from './transcript';

export const REPORT_SCHEME = 'selfdebug-report';
const REPORT_URI = vscode.Uri.from({ scheme: REPORT_SCHEME, path: '/last-explanation.md' });

export class ReportView implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private last: SessionReport | undefined;
    private transcript: TranscriptEvent[] | undefined;
    private loading: Promise<void> = Promise.resolve();
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    readonly onDidChange = this.changed.event;
    private readonly registration: vscode.Disposable;

    constructor() {
        this.registration = vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this);
    }

    get lastReport(): SessionReport | undefined {
        return this.last;
    }

    /** Keep the report; its transcript file is read in the background. */
    setReport(report: SessionReport): void {
        this.last = report;
        this.transcript = undefined;
        this.changed.fire(REPORT_URI);
        this.loading = readTranscript(report.transcriptPath).then((events) => {
            if (this.last === report) {
                this.transcript = events;
                this.changed.fire(REPORT_URI);
            }
        });
    }

    /** Whether `uri` (from `window/showDocument`) is the last report's markdown file. */
    isReportFile(uri: vscode.Uri): boolean {
        return !!this.last?.reportPath && uri.scheme === 'file' && uri.fsPath === this.last.reportPath;
    }

    provideTextDocumentContent(): string {
        return renderReportMarkdown(this.last, this.transcript);
    }

    /** Open the preview beside the editor without taking focus from it. */
    async show(): Promise<void> {
        await this.loading;
        try {
            await vscode.commands.executeCommand('markdown.showPreviewToSide', REPORT_URI);
        } catch {
            // The built-in markdown extension can be disabled: show the source instead.
            const document = await vscode.workspace.openTextDocument(REPORT_URI);
            await vscode.window.showTextDocument(document, {
                viewColumn: vscode.ViewColumn.Beside,
                preserveFocus: true,
                preview: true,
            });
        }
    }

    dispose(): void {
        this.registration.dispose();
        this.changed.dispose();
    }
}
