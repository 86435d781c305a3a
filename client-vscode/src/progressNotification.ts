/**
 * Cancellable server progress as a notification with a Cancel button.
 *
 * vscode-languageclient shows every server-initiated work-done progress as window (status bar)
 * progress, which has no Cancel button. A self-debugging session can run for minutes, so the
 * progress the server marks `cancellable` is shown here as a notification instead, and Cancel sends
 * `window/workDoneProgress/cancel` for its token (the server then stops the session).
 */
import * as vscode from 'vscode';
import type { ProgressToken } from 'vscode-languageclient';
import type { WorkDoneProgressValue } from './progressState';

interface Shown {
    progress?: vscode.Progress<{ message?: string; increment?: number }>;
    reported: number;
    finish: () => void;
}

export class ProgressNotifications implements vscode.Disposable {
    private readonly shown = new Map<ProgressToken, Shown>();

    /**
     * Show or update the notification for `token`; returns whether this class handles the token
     * (then the library's own window progress is not started for it).
     */
    handle(token: ProgressToken, value: WorkDoneProgressValue, cancel: () => void): boolean {
        if (value.kind === 'begin') {
            if (!value.cancellable) {
                return false;
            }
            this.begin(token, value.title, cancel);
        }
        const entry = this.shown.get(token);
        if (!entry) {
            return false;
        }
        if (value.kind === 'end') {
            this.shown.delete(token);
            entry.finish();
        } else {
            const increment = value.percentage === undefined ? undefined : Math.max(0, Math.min(100, value.percentage) - entry.reported);
            entry.reported += increment ?? 0;
            entry.progress?.report({ message: value.message, increment });
        }
        return true;
    }

    private begin(token: ProgressToken, title: string, cancel: () => void): void {
        let finish = () => {};
        const done = new Promise<void>((resolve) => (finish = resolve));
        const entry: Shown = { reported: 0, finish: () => finish() };
        this.shown.set(token, entry);
        void vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title, cancellable: true },
            (progress, cancellation) => {
                entry.progress = progress;
                cancellation.onCancellationRequested(cancel);
                return done;
            },
        );
    }

    dispose(): void {
        for (const entry of this.shown.values()) {
            entry.finish();
        }
        this.shown.clear();
    }
}
