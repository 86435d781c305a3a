/**
 * The server's fix proposal (`selfdebug.proposeFix`'s answer) and the rules for reviewing it.
 *
 * Kept free of the `vscode` API so the rules are unit-tested: what the diff editor's title says,
 * that the edit really turns the original into the proposed text (the diff shows `proposed`, Accept
 * applies `edit`: they must agree), and when Accept is refused (the server's own rule: the
 * document's version is no longer the one the session started from).
 */

export interface LspTextEdit {
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
    newText: string;
}

export interface FixProposal {
    uri: string;
    version: number | null;
    qualname: string;
    evidence: string; // "passes 3/3 chosen, 7/7 wider"
    explanation: string;
    warnings: string[];
    edits: LspTextEdit[]; // the TextDocumentEdit's edits, for `uri` at `version`
    original: string; // the whole document as the session saw it
    proposed: string; // the whole document with the fix
    staleReason: string | null; // set by the server when the document already moved on
}

function isEdit(value: unknown): value is LspTextEdit {
    const edit = value as LspTextEdit;
    const position = (p: unknown) =>
        typeof p === 'object' && p !== null && Number.isInteger((p as { line: number }).line) && Number.isInteger((p as { character: number }).character);
    return typeof edit === 'object' && edit !== null && typeof edit.newText === 'string' && typeof edit.range === 'object' && edit.range !== null && position(edit.range.start) && position(edit.range.end);
}

/** The proposal in a `selfdebug.proposeFix` answer; undefined when there is none (no fix) or it is malformed. */
export function parseProposal(answer: unknown): FixProposal | undefined {
    const raw = (answer as { proposal?: unknown } | null | undefined)?.proposal;
    if (typeof raw !== 'object' || raw === null) {
        return undefined;
    }
    const p = raw as Record<string, unknown>;
    const changes = (p.edit as { documentChanges?: unknown } | undefined)?.documentChanges;
    if (!Array.isArray(changes) || changes.length !== 1) {
        return undefined;
    }
    const edits = (changes[0] as { edits?: unknown }).edits;
    if (!Array.isArray(edits) || !edits.every(isEdit) || typeof p.uri !== 'string' || typeof p.original !== 'string' || typeof p.proposed !== 'string') {
        return undefined;
    }
    const text = (key: string): string => (typeof p[key] === 'string' ? (p[key] as string) : '');
    return {
        uri: p.uri,
        version: typeof p.version === 'number' ? p.version : null,
        qualname: text('qualname'),
        evidence: text('evidence'),
        explanation: text('explanation'),
        warnings: Array.isArray(p.warnings) ? p.warnings.filter((w): w is string => typeof w === 'string') : [],
        edits,
        original: p.original,
        proposed: p.proposed,
        staleReason: typeof p.staleReason === 'string' ? p.staleReason : null,
    };
}

/** Offset of an LSP position (UTF-16 columns, as JavaScript strings count) in `text`. */
function offsetAt(text: string, position: { line: number; character: number }): number {
    let offset = 0;
    for (let line = 0; line < position.line; line++) {
        const next = text.indexOf('\n', offset);
        if (next < 0) {
            return text.length;
        }
        offset = next + 1;
    }
    return Math.min(offset + position.character, text.length);
}

/** `text` with non-overlapping LSP edits applied (last first, so earlier offsets hold). */
export function applyLspEdits(text: string, edits: readonly LspTextEdit[]): string {
    const spans = edits
        .map((edit) => ({ start: offsetAt(text, edit.range.start), end: offsetAt(text, edit.range.end), newText: edit.newText }))
        .sort((a, b) => b.start - a.start);
    let result = text;
    for (const span of spans) {
        result = result.slice(0, span.start) + span.newText + result.slice(span.end);
    }
    return result;
}

/** Whether Accept would apply exactly what the diff shows. */
export function editMatchesDiff(proposal: FixProposal): boolean {
    return applyLspEdits(proposal.original, proposal.edits) === proposal.proposed;
}

/** The diff editor's title: the function and the evidence. */
export function reviewTitle(proposal: FixProposal): string {
    return `Self-debug fix for \`${proposal.qualname}\`: ${proposal.evidence}`;
}

/**
 * Why Accept must be refused now, or undefined (the wording of the server's refusal). A proposal
 * without a version was made from the file on disk (the editor did not have it open, as for a
 * function found from a failing test): its text must still be the one the session read.
 */
export function staleReason(proposal: FixProposal, documentVersion: number | undefined, documentText?: string): string | undefined {
    if (proposal.staleReason) {
        return proposal.staleReason;
    }
    if (documentVersion === undefined) {
        return 'the document was closed';
    }
    if (proposal.version !== null && documentVersion !== proposal.version) {
        return `the document changed during the session (version ${proposal.version} -> ${documentVersion})`;
    }
    if (proposal.version === null && documentText !== undefined && documentText !== proposal.original) {
        return 'the file changed during the session';
    }
    return undefined;
}

export function refusalMessage(proposal: FixProposal, reason: string): string {
    return `selfdebug: fix for \`${proposal.qualname}\` not applied: ${reason}. Run it again.`;
}

/** The notification that offers Accept / Discard. */
export function offerMessage(proposal: FixProposal): string {
    const parts = [`selfdebug: fix for \`${proposal.qualname}\` ready to review: ${proposal.evidence}.`];
    for (const warning of proposal.warnings) {
        parts.push(`Warning: ${warning}.`);
    }
    if (proposal.staleReason) {
        parts.push(`The document changed during the session: Accept will be refused.`);
    }
    return parts.join(' ');
}
