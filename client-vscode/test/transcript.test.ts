import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseSessionReport, renderReportMarkdown } from '../src/report';
import { parseTranscript, readTranscript, renderTranscript } from '../src/transcript';

// Shaped like server/engine/transcript.py output (one JSON object per line).
const LINES = [
    { event: 'session_start', t: 0, qualname: 'mean', backend: 'scripted', max_turns: 3, tests: ['tests/test_stats.py::test_mean_of_two'] },
    { event: 'mode', t: 0.1, requested: 'auto', mode: 'ut', why: 'tests fail' },
    {
        event: 'tests',
        t: 0.5,
        turn: 0,
        label: 'baseline',
        result: { passed: 0, total: 1, error: '', tests: [{ nodeid: 'tests/test_stats.py::test_mean_of_two', outcome: 'failed', message: 'assert 1.33 == 2\nmore' }] },
    },
    { event: 'progress', turn: 1, phase: 'asking the model', percentage: 10 },
    { event: 'model_call', turn: 1, step: 'repair', completions: ['```python\ndef mean(xs):\n    return sum(xs) / len(xs)\n```'], prompt_tokens: 120, completion_tokens: 30 },
    { event: 'candidate', turn: 1, index: 0, ok: true, problem: '', explanation: 'It divided by len + 1.' },
    { event: 'tests', turn: 1, label: 'candidate', result: { passed: 1, total: 1, error: '', tests: [] } },
    { event: 'something_new', turn: 1 },
    { event: 'session_end', turn: 1, stop_reason: 'passed', summary: 'passes 1/1 chosen (before: 0/1 chosen); stop: passed' },
];
const JSONL = `${LINES.map((l) => JSON.stringify(l)).join('\n')}\n{"event": "cut sho`;

describe('transcript', () => {
    test('parses JSON lines and skips a line cut short', () => {
        const events = parseTranscript(JSONL);
        assert.equal(events.length, LINES.length);
        assert.equal(events[0].event, 'session_start');
    });

    test('renders turn by turn: tests, model answers, candidates, the end', () => {
        const markdown = renderTranscript(parseTranscript(JSONL));
        assert.match(markdown, /Session on `mean` \(scripted, up to 3 turns\); tests: `tests\/test_stats.py::test_mean_of_two`/);
        assert.match(markdown, /Mode \*\*ut\*\* — tests fail/);
        assert.match(markdown, /Tests \(baseline\): 0\/1 passed\n {4}- `tests\/test_stats.py::test_mean_of_two` failed: assert 1.33 == 2\n/);
        assert.match(markdown, /### Turn 1/);
        assert.match(markdown, /Model asked \(repair, 120 prompt \+ 30 completion tokens\); it answered:\n {2}\n {2}````\n {2}```python/);
        assert.match(markdown, /Candidate 1: usable\n {2}\n {2}> It divided by len \+ 1\./);
        assert.match(markdown, /Tests \(candidate\): 1\/1 passed/);
        assert.match(markdown, /`something_new`/);
        assert.match(markdown, /\*\*End:\*\* passes 1\/1 chosen/);
        assert.doesNotMatch(markdown, /asking the model/, 'progress events are left out');
        assert.equal(markdown.indexOf('### Turn 1'), markdown.lastIndexOf('### Turn 1'), 'one heading per turn');
        assert.ok(markdown.indexOf('Tests (baseline)') < markdown.indexOf('### Turn 1'));
    });

    test('is read from the path in the report and appended to it', async () => {
        const path = join(mkdtempSync(join(tmpdir(), 'selfdebug-transcript-')), 'transcript.jsonl');
        writeFileSync(path, JSONL);
        const events = await readTranscript(path);
        const report = parseSessionReport({ qualname: 'mean', markdown: '# Self-debug `mean`\n\nExplained.', transcriptPath: path });
        const markdown = renderReportMarkdown(report, events);
        assert.match(markdown, /^# Self-debug `mean`\n\nExplained\.\n\n## Transcript, turn by turn\n\n- Session on `mean`/);
    });

    test('a missing file or no path gives no transcript', async () => {
        assert.equal(await readTranscript(''), undefined);
        assert.equal(await readTranscript('/nonexistent/transcript.jsonl'), undefined);
        const report = parseSessionReport({ qualname: 'f', markdown: '# R' });
        assert.equal(renderReportMarkdown(report, undefined), '# R\n');
    });
});
