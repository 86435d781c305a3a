/**
 * The session transcript (JSON lines written by server/engine/transcript.py) rendered turn by turn
 * as markdown, for "Show last explanation". The report the server sends only names the file; the
 * turns are what lets a user judge how the fix was reached.
 *
 * Tolerant on purpose: unknown events are listed by name, missing fields are skipped, long texts
 * are cut, so a newer server never breaks the view.
 */
import { readFile } from 'node:fs/promises';

export type TranscriptEvent = Record<string, unknown> & { event: string };

const MAX_TEXT = 4000;

export function parseTranscript(text: string): TranscriptEvent[] {
    const events: TranscriptEvent[] = [];
    for (const line of text.split(/\r?\n/)) {
        if (!line.trim()) {
            continue;
        }
        try {
            const value = JSON.parse(line) as unknown;
            if (value && typeof value === 'object' && typeof (value as { event?: unknown }).event === 'string') {
                events.push(value as TranscriptEvent);
            }
        } catch {
            // a line cut short by a crash: keep what came before
        }
    }
    return events;
}

export async function readTranscript(path: string): Promise<TranscriptEvent[] | undefined> {
    if (!path) {
        return undefined;
    }
    try {
        return parseTranscript(await readFile(path, 'utf8'));
    } catch {
        return undefined;
    }
}

function cut(text: string): string {
    return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}\n… (${text.length - MAX_TEXT} more characters)` : text;
}

function fenced(text: string, language = ''): string {
    const body = cut(text).replace(/\n$/, '');
    const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
    const ticks = '`'.repeat(longest + 1);
    return `${ticks}${language}\n${body}\n${ticks}`;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

interface RunSummary {
    passed?: number;
    total?: number;
    error?: string;
    tests?: { nodeid?: string; outcome?: string; message?: string }[];
}

function describeRun(run: RunSummary | undefined): string {
    if (!run) {
        return '';
    }
    const lines = [`${run.passed ?? '?'}/${run.total ?? '?'} passed${run.error ? ` — ${run.error}` : ''}`];
    for (const test of run.tests ?? []) {
        if (test.outcome && test.outcome !== 'passed') {
            const message = test.message ? `: ${test.message.split('\n')[0]}` : '';
            lines.push(`  - \`${test.nodeid ?? '?'}\` ${test.outcome}${message}`);
        }
    }
    return lines.join('\n');
}

function describe(event: TranscriptEvent): string | undefined {
    switch (event.event) {
        case 'session_start':
            return `Session on \`${str(event.qualname)}\` (${str(event.backend)}, up to ${num(event.max_turns) ?? '?'} turns); tests: ${
                Array.isArray(event.tests) ? event.tests.map((t) => `\`${String(t)}\``).join(', ') || 'none' : 'none'
            }`;
        case 'mode':
            return `Mode **${str(event.mode)}**${str(event.why) ? ` — ${str(event.why)}` : ''}`;
        case 'tests':
            return `Tests (${str(event.label) || 'run'}): ${describeRun(event.result as RunSummary)}`;
        case 'model_call': {
            const completions = Array.isArray(event.completions) ? event.completions.map(String) : [];
            const tokens = `${num(event.prompt_tokens) ?? '?'} prompt + ${num(event.completion_tokens) ?? '?'} completion tokens`;
            const answers = completions.map((text, i) =>
                completions.length > 1 ? `Answer ${i + 1}:\n\n${fenced(text)}` : fenced(text),
            );
            return [`Model asked (${str(event.step) || 'step'}, ${tokens}); it answered:`, ...answers].join('\n\n');
        }
        case 'candidate': {
            const verdict = event.ok ? 'usable' : `rejected: ${str(event.problem)}`;
            const explanation = str(event.explanation) ? `\n\n> ${str(event.explanation).split('\n').join('\n> ')}` : '';
            return `Candidate ${(num(event.index) ?? 0) + 1}: ${verdict}${explanation}`;
        }
        case 'log':
            return `Log of \`${str(event.test)}\` (${str(event.kind)}):\n\n${fenced(str(event.log))}`;
        case 'prints_check':
            return `Model's prints ${event.ok ? 'accepted' : `rejected: ${str(event.reason)}`}`;
        case 'vote':
            return `Vote: candidate ${(num(event.picked) ?? 0) + 1} picked (passed: ${JSON.stringify(event.passed ?? [])})`;
        case 'guard':
            return `Regression guard: ${describeRun(event.result as RunSummary)}`;
        case 'budget':
            return `Budget reached: ${str(event.message) || str(event.reason)}`;
        case 'exception':
            return `Error:\n\n${fenced(str(event.traceback))}`;
        case 'session_end':
            return `**End:** ${str(event.summary) || str(event.stop_reason)}${str(event.error) ? ` — ${str(event.error)}` : ''}`;
        case 'progress':
            return undefined; // already seen live in the status bar
        default:
            return `\`${event.event}\``;
    }
}

/** Markdown sections: events before the first turn, then "### Turn N" per turn. */
export function renderTranscript(events: TranscriptEvent[]): string {
    const parts: string[] = [];
    let turn: number | undefined;
    for (const event of events) {
        const text = describe(event);
        if (text === undefined) {
            continue;
        }
        const eventTurn = num(event.turn);
        if (eventTurn !== undefined && eventTurn > 0 && eventTurn !== turn && event.event !== 'session_end') {
            turn = eventTurn;
            parts.push(`### Turn ${turn}`);
        }
        parts.push(text.startsWith('###') ? text : `- ${text.replace(/\n/g, '\n  ')}`);
    }
    return parts.join('\n\n');
}
