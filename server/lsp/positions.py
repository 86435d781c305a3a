"""Bridge between tree-sitter's byte offsets and LSP positions (UTF-16 columns by default).

Why here: tree-sitter counts bytes, the editor counts code units of the negotiated encoding;
converting at this one boundary keeps every other LSP module in a single unit. The counting
itself is `instrument/source.py`'s (`code_units`, `char_index`), which the instrumenter's own
LSP ranges use too: one rule for what a column is.
"""

from __future__ import annotations

from lsprotocol.types import Position, PositionEncodingKind, Range
from pygls.workspace.position_codec import PositionCodec
from pygls.workspace.text_document import TextDocument

from selfdebug.instrument.source import char_index, code_units

UTF16 = PositionCodec(PositionEncodingKind.Utf16)


def _encoding(codec: PositionCodec) -> str:
    """The negotiated encoding's name ("utf-8", "utf-16", "utf-32")."""
    kind = codec.encoding or PositionEncodingKind.Utf16
    return str(getattr(kind, "value", kind))


def lsp_position(source: bytes, byte_offset: int, codec: PositionCodec = UTF16) -> Position:
    """The editor position of a byte offset in `source` (UTF-8)."""
    line = source.count(b"\n", 0, byte_offset)
    line_start = source.rfind(b"\n", 0, byte_offset) + 1
    prefix = source[line_start:byte_offset].decode("utf-8", errors="replace")
    return Position(line=line, character=code_units(prefix, _encoding(codec)))


def lsp_range(source: bytes, start_byte: int, end_byte: int, codec: PositionCodec = UTF16) -> Range:
    return Range(
        start=lsp_position(source, start_byte, codec), end=lsp_position(source, end_byte, codec)
    )


def line_range(line0: int) -> Range:
    """A whole-line range (the column does not matter to clients: they clamp)."""
    return Range(start=Position(line=line0, character=0), end=Position(line=line0, character=999))


def byte_column(line_text: str, character: int, codec: PositionCodec = UTF16) -> int:
    """Editor column (client units) on `line_text` -> byte column, for tree-sitter."""
    index = char_index(line_text.rstrip("\r\n"), character, _encoding(codec))
    return len(line_text[:index].encode("utf-8"))


def utf16_position(document: TextDocument, position: Position) -> tuple[int, int]:
    """(line, UTF-16 column) of a client position, whatever encoding the client negotiated."""
    lines = document.lines
    if position.line >= len(lines):
        return position.line, 0
    column = utf16_column(lines[position.line], position.character, document.position_codec)
    return position.line, column


def utf16_column(line_text: str, character: int, codec: PositionCodec = UTF16) -> int:
    """The UTF-16 column on `line_text` of a client column (in the negotiated encoding)."""
    line = line_text.rstrip("\r\n")
    return code_units(line[: char_index(line, character, _encoding(codec))])
