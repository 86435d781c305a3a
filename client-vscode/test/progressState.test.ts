import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IDLE_TEXT, PhaseTracker } from '../src/progressState';

describe('PhaseTracker (status bar text from $/progress)', () => {
    test('follows begin, report and end of one session', () => {
        const tracker = new PhaseTracker();
        assert.equal(tracker.current().text, IDLE_TEXT);
        let view = tracker.update('t1', { kind: 'begin', title: 'Self-debug f', message: 'running 3 tests', percentage: 0 });
        assert.equal(view.text, '$(sync~spin) selfdebug: running 3 tests 0%');
        assert.equal(view.busy, true);
        view = tracker.update('t1', { kind: 'report', message: 'asking the model', percentage: 42.4 });
        assert.equal(view.text, '$(sync~spin) selfdebug: asking the model 42%');
        assert.equal(view.tooltip, 'Self-debug f: asking the model');
        view = tracker.update('t1', { kind: 'report', percentage: 50 });
        assert.equal(view.text, '$(sync~spin) selfdebug: asking the model 50%', 'the message is kept');
        view = tracker.update('t1', { kind: 'end', message: 'fixed at turn 2' });
        assert.equal(view.text, IDLE_TEXT);
        assert.equal(view.busy, false);
        assert.match(view.tooltip, /fixed at turn 2/);
    });

    test('the title stands in when there is no message; no percentage shows none', () => {
        const tracker = new PhaseTracker();
        assert.equal(tracker.update(1, { kind: 'begin', title: 'Running tests' }).text, '$(sync~spin) selfdebug: Running tests');
    });

    test('shows the newest of concurrent sessions and falls back to the older one', () => {
        const tracker = new PhaseTracker();
        tracker.update('a', { kind: 'begin', title: 'A', message: 'phase a' });
        assert.match(tracker.update('b', { kind: 'begin', title: 'B', message: 'phase b' }).text, /phase b/);
        assert.match(tracker.update('a', { kind: 'report', message: 'phase a2' }).text, /phase b/);
        assert.match(tracker.update('b', { kind: 'end' }).text, /phase a2/);
        assert.equal(tracker.update('a', { kind: 'end' }).text, IDLE_TEXT);
    });

    test('ignores reports and ends for tokens it never saw begin', () => {
        const tracker = new PhaseTracker();
        assert.equal(tracker.update('x', { kind: 'report', message: 'm' }).text, IDLE_TEXT);
        assert.equal(tracker.update('x', { kind: 'end' }).tooltip, 'selfdebug');
    });
});
