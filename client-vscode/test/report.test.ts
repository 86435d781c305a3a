import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSessionReport, renderReportMarkdown } from '../src/report';

describe('session report', () => {
    test("the server's markdown is shown as is", () => {
        const report = parseSessionReport({ uri: 'file:///a.py', qualname: 'f', markdown: '# Report\n\nturn 1 ...' });
        assert.equal(renderReportMarkdown(report), '# Report\n\nturn 1 ...\n');
    });

    test('without markdown the fields are rendered, with a fence the diff cannot close', () => {
        const report = parseSessionReport({
            uri: 'file:///p/a.py',
            qualname: 'Stack.pop',
            summary: 'passes 3/3 chosen',
            explanation: 'Off by one.',
            diff: '-    return x[len(x)]\n+    return x[len(x) - 1]\n+    s = "```"\n',
            transcriptPath: '/tmp/t.jsonl',
            markdown: '',
        });
        const markdown = renderReportMarkdown(report);
        assert.match(markdown, /^# Self-debug `Stack\.pop`/);
        assert.match(markdown, /\*\*Result:\*\* passes 3\/3 chosen/);
        assert.match(markdown, /## Explanation\n\nOff by one\./);
        assert.match(markdown, /````diff\n-    return x\[len\(x\)\]\n[\s\S]*\n````/);
        assert.match(markdown, /`\/tmp\/t\.jsonl`/);
    });

    test('missing or mistyped fields become empty strings', () => {
        const report = parseSessionReport({ qualname: 7, summary: null });
        assert.deepEqual(report, {
            uri: '',
            qualname: '',
            summary: '',
            explanation: '',
            diff: '',
            transcriptPath: '',
            markdown: '',
            reportPath: '',
            stopReason: '',
        });
        assert.match(renderReportMarkdown(report), /_The model gave no explanation\._/);
        assert.deepEqual(parseSessionReport(undefined).markdown, '');
    });

    test('before any session the view says so', () => {
        assert.match(renderReportMarkdown(undefined), /No self-debugging session has finished yet/);
    });
});
