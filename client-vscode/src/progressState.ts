/**
 * What the status bar says, computed from the `$/progress` messages the client sees.
 *
 * Kept free of the `vscode` API so it can be unit-tested: the status bar item only renders
 * `PhaseTracker.current()`. Several sessions may run at once; the newest active one is shown.
 */
import type {
    ProgressToken,
    WorkDoneProgressBegin,
    WorkDoneProgressEnd,
    WorkDoneProgressReport,
} from 'vscode-languageclient';

export type WorkDoneProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export interface StatusView {
    text: string; // status bar text, with a codicon
    tooltip: string;
    busy: boolean;
}

interface ActiveProgress {
    title: string;
    message: string;
    percentage?: number;
}

export const IDLE_TEXT = '$(debug-alt) selfdebug';

export class PhaseTracker {
    private readonly active = new Map<ProgressToken, ActiveProgress>();
    private lastEnded: string | undefined;

    /** Feed one progress value; returns the view to show now. */
    update(token: ProgressToken, value: WorkDoneProgressValue): StatusView {
        switch (value.kind) {
            case 'begin':
                this.active.delete(token); // re-insert: the newest session is shown
                this.active.set(token, {
                    title: value.title,
                    message: value.message ?? '',
                    percentage: value.percentage,
                });
                break;
            case 'report': {
                const entry = this.active.get(token);
                if (entry) {
                    entry.message = value.message ?? entry.message;
                    entry.percentage = value.percentage ?? entry.percentage;
                }
                break;
            }
            case 'end': {
                const entry = this.active.get(token);
                this.active.delete(token);
                if (entry) {
                    this.lastEnded = value.message || `${entry.title}: done`;
                }
                break;
            }
        }
        return this.current();
    }

    current(): StatusView {
        const newest = [...this.active.values()].pop();
        if (newest) {
            const percent = newest.percentage === undefined ? '' : ` ${Math.round(newest.percentage)}%`;
            const phase = newest.message || newest.title;
            return {
                text: `$(sync~spin) selfdebug: ${phase}${percent}`,
                tooltip: newest.message ? `${newest.title}: ${newest.message}` : newest.title,
                busy: true,
            };
        }
        return {
            text: IDLE_TEXT,
            tooltip: this.lastEnded ? `Last: ${this.lastEnded}. Click to show the last explanation.` : 'selfdebug',
            busy: false,
        };
    }
}
