"""A session's fix, to the editor: applied as a confirmable `workspace/applyEdit`
(`selfdebug.selfDebug`), or proposed unapplied with both texts (`selfdebug.proposeFix`).

Why one module for both: a reviewed proposal must apply exactly what applyEdit would, so both
build the same versioned, hash-checked edit (`fix_workspace_edit`) and refuse it the same way when
the document moved on since the session started (`edits.stale_reason`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol.types import ApplyWorkspaceEditParams, TextDocumentEdit, WorkspaceEdit
from pygls.workspace.position_codec import PositionCodec

from selfdebug.server.lsp import proposal
from selfdebug.server.lsp.edits import (
    FunctionSnapshot,
    fix_edit,
    fixed_function_text,
    outside_spans,
    outside_stale_reason,
    stale_reason,
)
from selfdebug.server.lsp.targets import current_text

if TYPE_CHECKING:
    from selfdebug.server.engine.types import DebugResult
    from selfdebug.server.lsp.server import SelfDebugServer


def fix_workspace_edit(
    snapshot: FunctionSnapshot,
    result: DebugResult,
    codec: PositionCodec,
    others: Sequence[FunctionSnapshot] = (),
) -> tuple[WorkspaceEdit, str]:
    """The confirmable, versioned edit of the fix and the function's new text (one edit for
    both ways of delivering it, so a reviewed proposal applies exactly what applyEdit would).
    `others`: the functions of the same document that a fix of two functions also changes
    (suspects/repair.py); their new text is in the result's file, and their edits join the
    same document edit, as do the fix's changes outside the functions (a constant they read:
    `outside_spans`)."""
    new_text = fixed_function_text(snapshot, result.fixed_file, result.fixed_function)
    label, description = confirmation_text(snapshot.qualname, result)
    outside = outside_spans([snapshot, *others], result.fixed_file)
    edit = fix_edit(
        snapshot, new_text, label=label, description=description, codec=codec, outside=outside
    )
    for other in others:
        other_text = fixed_function_text(other, result.fixed_file, None)
        more = fix_edit(other, other_text, label=label, description=description, codec=codec)
        mine = document_edit(edit)
        mine.edits = [*mine.edits, *document_edit(more).edits]
    return edit, new_text


def document_edit(edit: WorkspaceEdit) -> TextDocumentEdit:
    """The one document edit of a fix's WorkspaceEdit (`edits.fix_edit` makes exactly one)."""
    (change,) = edit.document_changes or []
    assert isinstance(change, TextDocumentEdit)
    return change


def propose_fix(
    ls: SelfDebugServer,
    snapshot: FunctionSnapshot,
    result: DebugResult,
    others: Sequence[FunctionSnapshot] = (),
) -> proposal.FixProposal:
    """The fix without applying it, with why it would be refused now (if the document moved)."""
    document = ls.workspace.get_text_document(snapshot.uri)
    edit, new_text = fix_workspace_edit(snapshot, result, document.position_codec, others)
    changed = [(o, fixed_function_text(o, result.fixed_file, None)) for o in others]
    outside = outside_spans([snapshot, *others], result.fixed_file)
    return proposal.build_proposal(
        snapshot,
        result,
        edit=edit,
        new_function_text=new_text,
        stale_reason=first_stale_reason(
            [snapshot, *others], document.version, document.source, bool(outside)
        ),
        others=changed,
        outside=outside,
    )


def first_stale_reason(
    snapshots: Sequence[FunctionSnapshot], version: int | None, source: str, outside: bool = False
) -> str | None:
    """Why the fix may no longer be applied (any of its functions; with `outside`, a fix that
    also changes lines outside them, the document), or None."""
    found = next(
        (why for s in snapshots if (why := stale_reason(s, version, source)) is not None), None
    )
    return found or (outside_stale_reason(snapshots[0], source) if outside else None)


async def deliver_fix(
    ls: SelfDebugServer,
    snapshot: FunctionSnapshot,
    result: DebugResult,
    others: Sequence[FunctionSnapshot] = (),
) -> tuple[bool, str]:
    """Send the fix as a confirmable edit, unless the document moved on. Returns (applied, why)."""
    workspace_caps = ls.client_capabilities.workspace
    if workspace_caps is None or not workspace_caps.apply_edit:
        return False, "the editor cannot apply edits; see the diff in the report"
    version, text = await current_text(ls, snapshot.uri, snapshot.path)
    outside = bool(outside_spans([snapshot, *others], result.fixed_file))
    reason = first_stale_reason([snapshot, *others], version, text, outside)
    if reason:
        ls.show(f"fix for `{snapshot.qualname}` not applied: {reason}. Run it again.")
        return False, f"not applied: {reason}"
    edit, _ = fix_workspace_edit(snapshot, result, ls.workspace.position_codec, others)
    label, _ = confirmation_text(snapshot.qualname, result)
    answer = await ls.workspace_apply_edit_async(ApplyWorkspaceEditParams(edit=edit, label=label))
    if not answer.applied:
        why = answer.failure_reason or "declined"
        ls.show(f"fix for `{snapshot.qualname}` not applied: {why}")
        return False, f"not applied: {why}"
    return True, ""


def confirmation_text(qualname: str, result: DebugResult) -> tuple[str, str]:
    """(label, description) of the edit the user confirms: our words only, never the model's
    text (its explanation is in the report), and every safety warning about the candidate."""
    warnings = "".join(f"WARNING: {w}. " for w in result.warnings)
    return f"Self-debug fix for `{qualname}`", f"{warnings}{result.summary()}"
