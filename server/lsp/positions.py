"""Bridge between tree-sitter's byte offsets and LSP positions (UTF-16 columns by default).

Why here, once: tree-sitter counts bytes, the editor counts code units of the negotiated
encoding; converting at this one boundary keeps every other module in a single unit.
"""

from __future__ import annotations

from lsprotocol.types import Position, PositionEncodingKind, Range
from pygls.workspace.position_codec import PositionCodec
from pygls.workspace.text_document import TextDocument

UTF16 = PositionCodec(PositionEncodingKind.Utf16)


def lsp_position(source: bytes, byte_offset: int, codec: PositionCodec = UTF16) -> Position:
    """The editor position of a byte offset in `source` (UTF-8)."""
    line = source.count(b"\n", 0, byte_offset)
    line_start = source.rfind(b"\n", 0, byte_offset) + 1
    prefix = source[line_start:byte_offset].decode("utf-8", errors="replace")
    line_end = source.find(b"\n", byte_offset)
    text = source[line_start : None if line_end < 0 else line_end].decode("utf-8", "replace")
    lines = [""] * line + [text]
    return codec.position_to_client_units(lines, Position(line=line, character=len(prefix)))


def lsp_range(source: bytes, start_byte: int, end_byte: int, codec: PositionCodec = UTF16) -> Range:
    return Range(
        start=lsp_position(source, start_byte, codec), end=lsp_position(source, end_byte, codec)
    )


def line_range(line0: int) -> Range:
    """A whole-line range (the column does not matter to clients: they clamp)."""
    return Range(start=Position(line=line0, character=0), end=Position(line=line0, character=999))


def byte_column(line_text: str, character: int, codec: PositionCodec = UTF16) -> int:
    """Editor column (client units) on `line_text` -> byte column, for tree-sitter."""
    position = codec.position_from_client_units([line_text], Position(line=0, character=character))
    return len(line_text[: position.character].encode("utf-8"))


def utf16_position(document: TextDocument, position: Position) -> tuple[int, int]:
    """(line, UTF-16 column) of a client position, whatever encoding the client negotiated."""
    lines = document.lines
    server_position = document.position_codec.position_from_client_units(lines, position)
    return position.line, UTF16.position_to_client_units(lines, server_position).character
