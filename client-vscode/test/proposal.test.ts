import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyLspEdits, editMatchesDiff, offerMessage, parseProposal, refusalMessage, reviewTitle, staleReason } from '../src/proposal';

const ORIGINAL = 'def mean(xs):\n    """Mean."""\n    return sum(xs) / (len(xs) + 1)\n\n\ndef other():\n    pass\n';
const PROPOSED = ORIGINAL.replace('(len(xs) + 1)', 'len(xs)');
const EDIT = {
    range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } },
    newText: '    return sum(xs) / len(xs)\n',
    annotationId: 'selfdebug.fix',
};

/** A `selfdebug.proposeFix` answer as the server sends it (schema: server/lsp/proposal.py). */
function answer(overrides: Record<string, unknown> = {}): unknown {
    return {
        success: true,
        summary: 'passes 3/3 chosen, 7/7 wider (before: 0/3 chosen); stop: passed',
        proposal: {
            uri: 'file:///p/stats.py',
            version: 4,
            qualname: 'mean',
            evidence: 'passes 3/3 chosen, 7/7 wider',
            explanation: 'Off by one.',
            warnings: [],
            edit: {
                documentChanges: [{ textDocument: { uri: 'file:///p/stats.py', version: 4 }, edits: [EDIT] }],
                changeAnnotations: { 'selfdebug.fix': { label: 'Self-debug fix', needsConfirmation: true } },
            },
            original: ORIGINAL,
            proposed: PROPOSED,
            functionLines: [0, 3],
            staleReason: null,
            ...overrides,
        },
    };
}

describe('fix proposal (selfdebug.proposeFix)', () => {
    test('parses the answer; the diff title names the function and the evidence', () => {
        const proposal = parseProposal(answer());
        assert.ok(proposal);
        assert.equal(proposal.version, 4);
        assert.equal(proposal.edits.length, 1);
        assert.equal(reviewTitle(proposal), 'Self-debug fix for `mean`: passes 3/3 chosen, 7/7 wider');
        assert.equal(offerMessage(proposal), 'selfdebug: fix for `mean` ready to review: passes 3/3 chosen, 7/7 wider.');
    });

    test('no proposal, or a malformed one, is not offered', () => {
        assert.equal(parseProposal({ proposal: null, success: false }), undefined);
        assert.equal(parseProposal(undefined), undefined);
        assert.equal(parseProposal(answer({ edit: { documentChanges: [] } })), undefined);
        assert.equal(parseProposal(answer({ original: 3 })), undefined);
        const badEdit = { documentChanges: [{ edits: [{ range: { start: { line: 'x' } }, newText: '' }] }] };
        assert.equal(parseProposal(answer({ edit: badEdit })), undefined);
    });

    test('the edit must give exactly the proposed text (what the diff shows is what Accept applies)', () => {
        assert.equal(applyLspEdits(ORIGINAL, [EDIT]), PROPOSED);
        assert.ok(editMatchesDiff(parseProposal(answer())!));
        assert.ok(!editMatchesDiff(parseProposal(answer({ proposed: PROPOSED.replace('other', 'x') }))!));
        // several edits apply from the last to the first; UTF-16 columns as JavaScript counts them
        const text = 'a = "é😀"\nb = 1\n';
        const edits = [
            { range: { start: { line: 1, character: 4 }, end: { line: 1, character: 5 } }, newText: '2' },
            { range: { start: { line: 0, character: 6 }, end: { line: 0, character: 8 } }, newText: 'x' },
        ];
        assert.equal(applyLspEdits(text, edits), 'a = "éx"\nb = 2\n');
    });

    test('Accept is refused when the document moved on, with the server\'s wording', () => {
        const proposal = parseProposal(answer())!;
        assert.equal(staleReason(proposal, 4), undefined);
        const reason = staleReason(proposal, 6);
        assert.equal(reason, 'the document changed during the session (version 4 -> 6)');
        assert.equal(
            refusalMessage(proposal, reason!),
            'selfdebug: fix for `mean` not applied: the document changed during the session (version 4 -> 6). Run it again.',
        );
        assert.equal(staleReason(proposal, undefined), 'the document was closed');
        const known = parseProposal(answer({ staleReason: '`mean` was edited during the session' }))!;
        assert.equal(staleReason(known, 4), '`mean` was edited during the session');
        assert.match(offerMessage(known), /Accept will be refused/);
    });

    test('a proposal made from the file on disk is refused once the file changed', () => {
        const fromDisk = parseProposal(answer({ version: null }))!;
        assert.equal(staleReason(fromDisk, 1, fromDisk.original), undefined);
        assert.equal(staleReason(fromDisk, 1, `${fromDisk.original}# edited\n`), 'the file changed during the session');
    });

    test('warnings are part of the offer', () => {
        const proposal = parseProposal(answer({ warnings: ['the candidate newly uses subprocess'] }))!;
        assert.match(offerMessage(proposal), /Warning: the candidate newly uses subprocess\./);
    });
});
