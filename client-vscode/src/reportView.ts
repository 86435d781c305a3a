/**
 * "Show last explanation": the last session report as a read-only markdown document, shown in
 * VS Code's built-in markdown preview.
 */
import * as vscode from 'vscode';
import { renderReportMarkdown, type SessionReport } from './report';

export const REPORT_SCHEME = 'selfdebug-report';
const REPORT_URI = vscode.Uri.from({ scheme: REPORT_SCHEME, path: '/last-explanation.md' });

export class ReportView implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private last: SessionReport | undefined;
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    readonly onDidChange = this.changed.event;
    private readonly registration: vscode.Disposable;

    constructor() {
        this.registration = vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this);
    }

    get lastReport(): SessionReport | undefined {
        return this.last;
    }

    setReport(report: SessionReport): void {
        this.last = report;
        this.changed.fire(REPORT_URI);
    }

    provideTextDocumentContent(): string {
        return renderReportMarkdown(this.last);
    }

    /** Open the preview beside the editor without taking focus from it. */
    async show(): Promise<void> {
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
