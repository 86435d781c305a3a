"""The fix as a `workspace/applyEdit` payload, and the check that it still fits the document.

Why so careful: the edit replaces code the user may have touched while the model worked. It is a
versioned TextDocumentEdit limited to the function's range (and, for a fix of a constant the
function reads, an attribute of its class: `outside_spans`, those lines), annotated
`needsConfirmation` so the editor asks first, and it is refused (0 bytes changed) when the
document version or the function's text no longer match what the session started from (for a
fix outside the function, the whole document).
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lsprotocol.types import (
    AnnotatedTextEdit,
    ChangeAnnotation,
    OptionalVersionedTextDocumentIdentifier,
    TextDocumentEdit,
    TextEdit,
    WorkspaceEdit,
)
from pygls.workspace.position_codec import PositionCodec

from selfdebug.instrument.source import ParsedSource
from selfdebug.server.lsp.positions import UTF16, lsp_range

ANNOTATION_ID = "selfdebug.fix"


def text_hash(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


@dataclass(frozen=True)
class FunctionSnapshot:
    """The function as the session saw it when it started."""

    uri: str
    path: Path
    version: int | None
    qualname: str
    source: bytes  # the whole document
    start_byte: int
    end_byte: int
    start_line: int  # 0-based
    end_line: int  # 0-based, exclusive

    @property
    def function_text(self) -> bytes:
        return self.source[self.start_byte : self.end_byte]

    @property
    def function_hash(self) -> str:
        return text_hash(self.function_text)


def take_snapshot(
    uri: str, path: Path, version: int | None, source: str, qualname: str
) -> FunctionSnapshot:
    """Raises the instrument's FunctionNotFound / SourceSyntaxError when it cannot be found."""
    from selfdebug.instrument import locate_function

    data = source.encode("utf-8")
    location = locate_function(source, qualname)  # the text: offsets in `data`
    start_line = data.count(b"\n", 0, location.start_byte)
    end_line = data.count(b"\n", 0, location.end_byte) + 1
    return FunctionSnapshot(
        uri=uri,
        path=path,
        version=version,
        qualname=location.qualname,
        source=data,
        start_byte=location.start_byte,
        end_byte=location.end_byte,
        start_line=start_line,
        end_line=end_line,
    )


def function_hash_in(source: str | ParsedSource, qualname: str) -> str | None:
    """Hash of the function's current text (in the document's text, or its kept tree), None
    when it is gone or cannot be found."""
    from selfdebug.instrument import locate_function

    try:
        data = source.data if isinstance(source, ParsedSource) else source.encode("utf-8")
        location = locate_function(source, qualname)
    except Exception:
        return None
    return text_hash(location.text(data))


def moved_since_request(version: int | None, snapshot: FunctionSnapshot) -> str | None:
    """Why a session asked for at document `version` (the caller's, optional) must not start:
    the document moved on before it started, so the caller meant other text than the session
    would debug, and its fix would be refused anyway. None when it may start."""
    if version is None or snapshot.version is None or version == snapshot.version:
        return None
    return f"the document changed since the request (version {version} -> {snapshot.version})"


def stale_reason(snapshot: FunctionSnapshot, version: int | None, source: str) -> str | None:
    """Why the fix may no longer be applied, or None when the document is as the session saw it."""
    if snapshot.version is not None and version != snapshot.version:
        return f"the document changed during the session (version {snapshot.version} -> {version})"
    if function_hash_in(source, snapshot.qualname) != snapshot.function_hash:
        return f"`{snapshot.qualname}` was edited during the session"
    return None


def fixed_function_text(
    snapshot: FunctionSnapshot, fixed_file: str | None, fixed_function: str | None
) -> str:
    """The replacement text for exactly the snapshot's byte range."""
    from selfdebug.instrument import locate_function

    if fixed_file is not None:
        data = fixed_file.encode("utf-8")
        location = locate_function(fixed_file, snapshot.qualname)
        return location.text(data).decode("utf-8")
    if fixed_function is None:
        raise ValueError("the session produced no candidate")
    if snapshot.function_text.endswith(b"\n"):
        return fixed_function
    return fixed_function.rstrip("\n")


def outside_spans(
    snapshots: Sequence[FunctionSnapshot], fixed_file: str | None
) -> list[tuple[int, int, str]]:
    """The fix's changes of the document outside its functions (`snapshots`, all of one
    document: a constant they read, an attribute of their class, engine/search/places.py) as
    `changed_line_spans` of the document; [] when it changes nothing else. Found by putting the
    functions' own text back into the fixed file: what still differs lies outside them."""
    from selfdebug.instrument import locate_function

    if fixed_file is None or not snapshots:
        return []
    restored = fixed_file.encode("utf-8")
    for snapshot in snapshots:
        location = locate_function(restored.decode("utf-8"), snapshot.qualname)
        restored = (
            restored[: location.start_byte] + snapshot.function_text + restored[location.end_byte :]
        )
    if restored == snapshots[0].source:
        return []
    return changed_line_spans(snapshots[0].source, restored.decode("utf-8"))


def outside_stale_reason(snapshot: FunctionSnapshot, source: str) -> str | None:
    """Why a fix that also changes lines outside the function may not be applied: the
    document is no longer the one the session saw (its lines may have moved)."""
    if source.encode("utf-8") == snapshot.source:
        return None
    return (
        "the document changed during the session (the fix also changes lines outside the function)"
    )


def changed_line_spans(old: bytes, new: str) -> list[tuple[int, int, str]]:
    """The fix as the smallest line-level replacements: (start byte, end byte, new text), with
    byte offsets into `old`. Why: the editor's preview then shows what changed, not the whole
    function struck out and rewritten."""
    old_lines = old.decode("utf-8").splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line.encode("utf-8")))
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    return [
        (offsets[i1], offsets[i2], "".join(new_lines[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def fix_edit(
    snapshot: FunctionSnapshot,
    new_text: str,
    *,
    label: str,
    description: str,
    codec: PositionCodec = UTF16,
    outside: Sequence[tuple[int, int, str]] = (),
) -> WorkspaceEdit:
    """Versioned, confirmable edits, every one inside the function's range, and `outside`'s
    (`outside_spans`: byte spans of the whole document)."""
    base = snapshot.start_byte
    spans = [
        (base + start, base + end, text)
        for start, end, text in changed_line_spans(snapshot.function_text, new_text)
    ]
    spans += outside
    edits: list[AnnotatedTextEdit | TextEdit] = [
        AnnotatedTextEdit(
            range=lsp_range(snapshot.source, start, end, codec),
            new_text=text,
            annotation_id=ANNOTATION_ID,
        )
        for start, end, text in sorted(spans)
    ]
    return WorkspaceEdit(
        document_changes=[
            TextDocumentEdit(
                text_document=OptionalVersionedTextDocumentIdentifier(
                    uri=snapshot.uri, version=snapshot.version
                ),
                edits=edits,
            )
        ],
        change_annotations={
            ANNOTATION_ID: ChangeAnnotation(
                label=label, needs_confirmation=True, description=description
            )
        },
    )
