/**
 * The `selfdebug/sessionReport` notification the server sends when a session ends, and its
 * markdown rendering: the server's own markdown when it sends one (else built from the fields),
 * followed by the turn-by-turn transcript when its file can be read.
 */
import { renderTranscript, type TranscriptEvent } from './transcript';

export const SESSION_REPORT_METHOD = 'selfdebug/sessionReport';

export interface SessionReport {
    uri: string;
    qualname: string;
    summary: string;
    explanation: string;
    diff: string;
    transcriptPath: string;
    markdown: string;
    reportPath: string; // the same markdown on disk; the server may ask to show it (showReport)
    stopReason: string;
}

/** Accept what the server sent, filling missing fields with "" (a report is never dropped). */
export function parseSessionReport(params: unknown): SessionReport {
    const raw = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    const text = (key: string): string => (typeof raw[key] === 'string' ? (raw[key] as string) : '');
    return {
        uri: text('uri'),
        qualname: text('qualname'),
        summary: text('summary'),
        explanation: text('explanation'),
        diff: text('diff'),
        transcriptPath: text('transcriptPath'),
        markdown: text('markdown'),
        reportPath: text('reportPath'),
        stopReason: text('stopReason'),
    };
}

/** A fence longer than any backtick run in `body`, so a diff cannot close it early. */
function fence(body: string, language: string): string {
    const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
    const ticks = '`'.repeat(longest + 1);
    return `${ticks}${language}\n${body.replace(/\n$/, '')}\n${ticks}`;
}

export function renderReportMarkdown(report: SessionReport | undefined, transcript?: TranscriptEvent[]): string {
    if (!report) {
        return '# selfdebug\n\nNo self-debugging session has finished yet in this window.\n';
    }
    const head = report.markdown.trim() ? report.markdown.replace(/\s*$/, '\n') : renderFields(report);
    if (!transcript?.length) {
        return head;
    }
    return `${head}\n## Transcript, turn by turn\n\n${renderTranscript(transcript)}\n`;
}

function renderFields(report: SessionReport): string {
    const parts = [`# Self-debug \`${report.qualname || 'function'}\``];
    if (report.uri) {
        parts.push(`File: \`${report.uri}\``);
    }
    if (report.summary) {
        parts.push(`**Result:** ${report.summary}`);
    }
    parts.push('## Explanation', report.explanation.trim() || '_The model gave no explanation._');
    if (report.diff.trim()) {
        parts.push('## Proposed change', fence(report.diff, 'diff'));
    }
    if (report.transcriptPath) {
        parts.push(`Transcript file (JSON lines): \`${report.transcriptPath}\``);
    }
    return `${parts.join('\n\n')}\n`;
}
