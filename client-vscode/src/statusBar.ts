/** The status-bar item that shows the running session's phase (see progressState.ts). */
import * as vscode from 'vscode';
import type { ProgressToken } from 'vscode-languageclient';
import { PhaseTracker, type StatusView, type WorkDoneProgressValue } from './progressState';

export class SessionStatusBar implements vscode.Disposable {
    private readonly item = vscode.window.createStatusBarItem('selfdebug.status', vscode.StatusBarAlignment.Left, 10);
    private readonly tracker = new PhaseTracker();

    constructor(clickCommand: string) {
        this.item.name = 'selfdebug';
        this.item.command = clickCommand;
        this.render(this.tracker.current());
        this.item.show();
    }

    onProgress(token: ProgressToken, value: WorkDoneProgressValue): void {
        this.render(this.tracker.update(token, value));
    }

    /** A fixed message (server starting, failed to start) until the next progress. */
    showMessage(text: string, tooltip: string, error = false): void {
        this.item.text = text;
        this.item.tooltip = tooltip;
        this.item.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    }

    private render(view: StatusView): void {
        this.showMessage(view.text, view.tooltip);
    }

    dispose(): void {
        this.item.dispose();
    }
}
