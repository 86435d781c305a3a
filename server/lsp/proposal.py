"""The fix as a proposal to review: what `selfdebug.proposeFix` answers instead of applying it.

Why a second way to deliver a fix: `workspace/applyEdit` leaves the review to the editor, and
editors differ (VS Code shows an unticked refactor preview, Neovim applies at once). A proposal
hands the client everything it needs to show a diff and decide in one step: the very same
versioned edit `selfdebug.selfDebug` would send, the whole document before and after (for a diff
editor or `:diffthis`), the evidence ("passes 3/3 chosen, 7/7 wider") and the model's
explanation. The client applies the edit only when the user accepts, and refuses it when the
document's version moved on, exactly as the server does for `applyEdit`.

Answer schema (JSON), `proposal` is null when the session found no fix:

    {"uri", "version", "qualname", "evidence", "explanation", "warnings": [...],
     "edit": WorkspaceEdit, "original": "<whole document>", "proposed": "<whole document>",
     "functionLines": [start, end)  (0-based lines of the function in `original`),
     "staleReason": null | "why the edit would be refused now"}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import converters
from lsprotocol.types import WorkspaceEdit

from selfdebug.server.engine.types import DebugResult
from selfdebug.server.lsp.edits import FunctionSnapshot


def fix_evidence(result: DebugResult) -> str:
    """'passes 3/3 chosen, 7/7 wider': what the proposed function was checked against."""
    if result.chosen_after is None:
        return "no candidate"
    wider = f", {result.wider_after} wider" if result.wider_after else ""
    found = f"; found by {result.found_by}" if result.found_by else ""
    caveat = f"; {result.caveat}" if result.caveat else ""
    return f"passes {result.chosen_after} chosen{wider}{found}{caveat}"


def proposed_document(
    snapshot: FunctionSnapshot,
    new_function_text: str,
    others: Sequence[tuple[FunctionSnapshot, str]] = (),
    outside: Sequence[tuple[int, int, str]] = (),
) -> str:
    """The whole document as the session saw it, with the function replaced (and `others`,
    more functions of the same document with their new text: a fix of two functions; and
    `outside`, the fix's changes of other lines, edits.outside_spans)."""
    data = snapshot.source
    changes = [(c.start_byte, c.end_byte, text) for c, text in [(snapshot, new_function_text),
                                                                 *others]]  # fmt: skip
    changes += outside
    for start, end, text in sorted(changes, reverse=True):  # the last first: offsets hold
        data = data[:start] + text.encode("utf-8") + data[end:]
    return data.decode("utf-8")


@dataclass(frozen=True)
class FixProposal:
    uri: str
    version: int | None
    qualname: str
    evidence: str
    explanation: str
    edit: WorkspaceEdit
    original: str
    proposed: str
    function_lines: tuple[int, int]
    stale_reason: str | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "version": self.version,
            "qualname": self.qualname,
            "evidence": self.evidence,
            "explanation": self.explanation,
            "warnings": list(self.warnings),
            "edit": converters.get_converter().unstructure(self.edit),
            "original": self.original,
            "proposed": self.proposed,
            "functionLines": list(self.function_lines),
            "staleReason": self.stale_reason,
        }


def build_proposal(
    snapshot: FunctionSnapshot,
    result: DebugResult,
    *,
    edit: WorkspaceEdit,
    new_function_text: str,
    stale_reason: str | None,
    others: Sequence[tuple[FunctionSnapshot, str]] = (),
    outside: Sequence[tuple[int, int, str]] = (),
) -> FixProposal:
    lines = snapshot.function_text.rstrip(b"\n").count(b"\n") + 1  # the def to its last line
    return FixProposal(
        uri=snapshot.uri,
        version=snapshot.version,
        qualname=snapshot.qualname,
        evidence=fix_evidence(result),
        explanation=result.explanation.strip(),
        edit=edit,
        original=snapshot.source.decode("utf-8"),
        proposed=proposed_document(snapshot, new_function_text, others, outside),
        function_lines=(snapshot.start_line, snapshot.start_line + lines),
        stale_reason=stale_reason,
        warnings=list(result.warnings),
    )
