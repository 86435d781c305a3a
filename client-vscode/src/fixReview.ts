/**
 * Reviewing a fix in one step: a diff editor (the file as the session saw it | the proposed file),
 * titled with the function and the evidence, with Accept and Discard as editor-title buttons,
 * keyboard shortcuts and a notification; the model's explanation opens beside it (ReportView).
 *
 * Why the client does this rather than `workspace/applyEdit`: VS Code shows an edit that needs
 * confirmation in the Refactor Preview with its box unticked (two extra steps). The extension asks
 * the server for a proposal instead (`selfdebug.proposeFix`: the same versioned edit, not applied)
 * and applies that edit itself on Accept, refused when the document's version moved on.
 */
import * as vscode from 'vscode';
import {
    editMatchesDiff,
    type FixProposal,
    offerMessage,
    parseProposal,
    refusalMessage,
    reviewTitle,
    staleReason,
} from './proposal';
import type { ReportView } from './reportView';

export const FIX_SCHEME = 'selfdebug-fix';
export const REVIEW_CONTEXT = 'selfdebug.fixUnderReview';
export const ACCEPT_COMMAND = 'selfdebug.acceptFix';
export const DISCARD_COMMAND = 'selfdebug.discardFix';

interface Review {
    proposal: FixProposal;
    document: vscode.Uri; // the user's file
    original: vscode.Uri; // virtual: the text the session started from
    proposed: vscode.Uri; // virtual: the text with the fix
}

export class FixReview implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private pending: Review | undefined;
    private readonly texts = new Map<string, string>();
    private count = 0;
    private readonly registration: vscode.Disposable;

    constructor(private readonly reports: ReportView) {
        this.registration = vscode.workspace.registerTextDocumentContentProvider(FIX_SCHEME, this);
    }

    provideTextDocumentContent(uri: vscode.Uri): string {
        return this.texts.get(uri.toString()) ?? '';
    }

    /** Open the review of a `selfdebug.proposeFix` answer (nothing happens without a proposal). */
    async open(answer: unknown): Promise<void> {
        const proposal = parseProposal(answer);
        if (!proposal) {
            return; // no fix: the session report and the server's messages say why
        }
        if (!editMatchesDiff(proposal)) {
            void vscode.window.showErrorMessage(`selfdebug: the fix for \`${proposal.qualname}\` is inconsistent (its edit does not give the proposed text); not offered.`);
            return;
        }
        await this.close();
        const document = vscode.Uri.parse(proposal.uri);
        const name = document.path.split('/').pop() ?? 'file.py';
        const id = ++this.count;
        const original = vscode.Uri.from({ scheme: FIX_SCHEME, path: `/${id}/original/${name}` });
        const proposed = vscode.Uri.from({ scheme: FIX_SCHEME, path: `/${id}/proposed/${name}` });
        this.texts.set(original.toString(), proposal.original);
        this.texts.set(proposed.toString(), proposal.proposed);
        const review: Review = { proposal, document, original, proposed };
        this.pending = review;
        await vscode.commands.executeCommand('setContext', REVIEW_CONTEXT, true);

        // The explanation opens beside the file's editor, then the diff takes the file's column
        // (and the focus, so that the shortcuts work at once).
        const column = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === document.toString())?.viewColumn;
        await this.reports.show();
        await vscode.commands.executeCommand('vscode.diff', original, proposed, reviewTitle(proposal), {
            viewColumn: column ?? vscode.ViewColumn.One,
            preview: false,
        });
        void vscode.window.showInformationMessage(offerMessage(proposal), 'Accept', 'Discard').then((choice) => {
            if (this.pending !== review) {
                return; // decided already (title button, shortcut) or replaced
            }
            if (choice === 'Accept') {
                void this.accept();
            } else if (choice === 'Discard') {
                void this.discard();
            }
        });
    }

    /** Apply the fix under review, or refuse it with the reason. Returns whether it was applied. */
    async accept(): Promise<boolean> {
        const review = this.pending;
        if (!review) {
            void vscode.window.showWarningMessage('selfdebug: no fix to accept.');
            return false;
        }
        const { proposal } = review;
        let document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === review.document.toString());
        if (!document && proposal.version === null) {
            // made from the file on disk (a function found from a failing test): open it now
            document = await vscode.workspace.openTextDocument(review.document).then(
                (opened) => opened,
                () => undefined,
            );
        }
        const reason = staleReason(proposal, document?.version, document?.getText());
        if (reason || !document) {
            await this.close();
            void vscode.window.showErrorMessage(refusalMessage(proposal, reason ?? 'the document is not open'));
            return false;
        }
        const wasDirty = document.isDirty;
        const edit = new vscode.WorkspaceEdit();
        for (const change of proposal.edits) {
            const { start, end } = change.range;
            edit.replace(document.uri, new vscode.Range(start.line, start.character, end.line, end.character), change.newText);
        }
        const applied = await vscode.workspace.applyEdit(edit); // no needsConfirmation: no refactor preview
        await this.close();
        if (!applied) {
            void vscode.window.showErrorMessage(refusalMessage(proposal, 'VS Code declined the edit'));
            return false;
        }
        if (!wasDirty) {
            await document.save(); // the fix on disk; unsaved changes of the user's stay unsaved
        }
        vscode.window.setStatusBarMessage(`$(check) selfdebug: fix for ${proposal.qualname} applied`, 5000);
        return true;
    }

    /** Drop the fix under review; the document stays as it is. */
    async discard(): Promise<void> {
        const review = this.pending;
        if (!review) {
            return;
        }
        await this.close();
        vscode.window.setStatusBarMessage(`selfdebug: fix for ${review.proposal.qualname} discarded`, 5000);
    }

    private async close(): Promise<void> {
        const review = this.pending;
        this.pending = undefined;
        await vscode.commands.executeCommand('setContext', REVIEW_CONTEXT, false);
        if (!review) {
            return;
        }
        const tabs = vscode.window.tabGroups.all
            .flatMap((group) => group.tabs)
            .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === review.proposed.toString());
        if (tabs.length) {
            await vscode.window.tabGroups.close(tabs);
        }
        this.texts.delete(review.original.toString());
        this.texts.delete(review.proposed.toString());
    }

    dispose(): void {
        this.registration.dispose();
    }
}
