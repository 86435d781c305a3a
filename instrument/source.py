"""Parsed source: tree-sitter tree over bytes, with the encoding and column conversions.

tree-sitter reads UTF-8; files in other PEP 263 encodings are transcoded for parsing and every
byte offset is mapped back, so callers always work in the file's own bytes. Editor columns (LSP
code units: UTF-16 by default, UTF-8 or UTF-32 when negotiated) are counted here and nowhere else:
`code_units` and `char_index`, which the language server's positions module uses too.
"""

from __future__ import annotations

import codecs
import io
import threading
import time
import tokenize
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import tree_sitter
import tree_sitter_python

from .errors import SourceSyntaxError

if TYPE_CHECKING:
    from .definitions import Definition


@lru_cache(maxsize=1)
def language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_python.language())


def parser() -> tree_sitter.Parser:
    """This thread's Python parser: the one factory (instrumenter, discovery, engine lookups).
    A tree-sitter parser is reusable but must not parse in two threads at once."""
    found: tree_sitter.Parser | None = getattr(_parsers, "parser", None)
    if found is None:
        found = _parsers.parser = tree_sitter.Parser(language())
    return found


_parsers = threading.local()


def code_units(text: str, encoding: str = "utf-16") -> int:
    """How many code units of the editor's position encoding `text` spans (an LSP column)."""
    if text.isascii() or encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def char_index(line: str, units: int, encoding: str = "utf-16") -> int:
    """The index in `line` of the character at editor column `units`: clamped to the line, and a
    column inside one character's code units moves past that character."""
    if line.isascii() or encoding == "utf-32":
        return min(max(units, 0), len(line))
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += code_units(char, encoding)
    return len(line)


def detect_encoding(source: bytes) -> str:
    """The PEP 263 encoding of `source` (utf-8 when none is declared)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError as error:
        raise SourceSyntaxError(str(error), getattr(error, "lineno", None) or 1) from None
    return codecs.lookup(encoding).name


@dataclass
class ParsedSource:
    """A source file's bytes with its syntax tree (`tree` is over `utf8`, not `data`)."""

    data: bytes
    encoding: str
    utf8: bytes
    tree: tree_sitter.Tree
    # Sparse offset map for transcoded files: utf8 offsets where a character starts, and the
    # matching offsets in `data`. Empty when `utf8 is data`.
    _u8_points: list[int] = field(default_factory=list, repr=False)
    _data_points: list[int] = field(default_factory=list, repr=False)
    _row_starts: list[int] | None = field(default=None, repr=False)
    _functions: list[Definition] | None = field(default=None, repr=False)  # instrument/locate.py
    _by_qualname: dict[str, Definition] | None = field(default=None, repr=False)

    @property
    def root(self) -> tree_sitter.Node:
        return self.tree.root_node

    def to_data(self, utf8_offset: int) -> int:
        """A byte offset in the parsed UTF-8 text -> the same place in the file's bytes."""
        if not self._u8_points:
            return utf8_offset
        i = bisect_right(self._u8_points, utf8_offset) - 1
        return self._data_points[i] + (utf8_offset - self._u8_points[i])

    def node_text(self, node: tree_sitter.Node) -> bytes:
        return self.utf8[node.start_byte : node.end_byte]

    def row_start(self, row: int) -> int:
        """Offset in the parsed text where 0-based `row` starts (rows end at \\n)."""
        if self._row_starts is None:
            starts = [0]
            find = self.utf8.find
            position = find(b"\n")
            while position >= 0:
                starts.append(position + 1)
                position = find(b"\n", position + 1)
            self._row_starts = starts
        return self._row_starts[min(row, len(self._row_starts) - 1)]

    def utf16_column(self, row: int, byte_column: int) -> int:
        """0-based row + byte column in the parsed text -> LSP UTF-16 column."""
        start = self.row_start(row)
        return code_units(self.utf8[start : start + byte_column].decode("utf-8", "replace"))

    def line(self, row: int) -> str:
        """The text of 0-based `row`, without its line end."""
        start = self.row_start(row)
        end = self.utf8.find(b"\n", start)
        text = self.utf8[start : len(self.utf8) if end < 0 else end].decode("utf-8", "replace")
        return text.rstrip("\r")

    def byte_column(self, row: int, utf16_column: int) -> int:
        """0-based row + LSP UTF-16 column -> byte column in the parsed text."""
        line = self.line(row)
        return len(line[: char_index(line, utf16_column)].encode("utf-8"))

    def first_error(self, node: tree_sitter.Node | None = None) -> tree_sitter.Node | None:
        """The innermost ERROR or MISSING node on the first path to an error under `node`.

        tree-sitter often wraps a long stretch in one ERROR node; the innermost one names the
        line a reader should look at.
        """
        node = node or self.root
        if not node.has_error:
            return None
        found = node if node.is_error or node.is_missing else None
        while True:
            child = next((c for c in node.children if c.has_error), None)
            if child is None:
                return found or node
            if child.is_error or child.is_missing:
                found = child
            node = child

    def raise_if_error(self, node: tree_sitter.Node | None = None) -> None:
        bad = self.first_error(node)
        if bad is None:
            return
        what = f"missing {bad.type!r}" if bad.is_missing else "cannot parse here"
        text = self.node_text(bad)[:40].decode("utf-8", "replace").split("\n")[0]
        if text and not bad.is_missing:
            what += f": {text!r}"
        raise SourceSyntaxError(what, bad.start_point.row + 1, bad.start_point.column)


def parse(source: bytes) -> ParsedSource:
    """Parse `source` (bytes in the file's own encoding). Never raises for syntax errors."""
    if not isinstance(source, bytes):
        raise TypeError("source must be bytes (the file's own encoding)")
    with _lock:  # the cache is shared: the language server calls from threads
        cached = _cache.get(source)
        if cached is not None:
            return cached
        encoding = detect_encoding(source) if _maybe_declares_encoding(source) else "utf-8"
        if encoding in ("utf-8", "utf-8-sig") or source.isascii():
            parsed = ParsedSource(source, encoding, source, parse_tree(source))
        else:
            parsed = _parse_transcoded(source, encoding)
        if len(_cache) >= 8:
            _cache.pop(next(iter(_cache)))
        _cache[source] = parsed
        return parsed


def parse_text(text: str) -> ParsedSource:
    """Parse already decoded text: no encoding declaration applies to it any more (offsets are
    in its UTF-8 bytes)."""
    with _lock:
        cached = _text_cache.get(text)
        if cached is not None:
            return cached
        utf8 = text.encode("utf-8", "surrogatepass")
        parsed = ParsedSource(utf8, "utf-8", utf8, parse_tree(utf8))
        if len(_text_cache) >= 8:
            _text_cache.pop(next(iter(_text_cache)))
        _text_cache[text] = parsed
        return parsed


READ_CHUNK = 1 << 14


def parse_tree(utf8: bytes) -> tree_sitter.Tree:
    """tree-sitter's tree of UTF-8 text. A big text is handed to the parser in chunks: tree-sitter
    holds the GIL while it parses, and each chunk read lets a waiting thread (the language
    server's event loop, issue 51) take it: a parse in a worker thread then no longer stalls the
    others for its whole length."""
    if len(utf8) <= READ_CHUNK:
        return parser().parse(utf8)

    def read(offset: int, _: object) -> bytes:
        time.sleep(0)  # gives up the GIL to a thread that waits for it, at once
        return utf8[offset : offset + READ_CHUNK]

    return parser().parse(read)


# The last few sources parsed: the server asks about the same buffer several times in a row.
_cache: dict[bytes, ParsedSource] = {}
_text_cache: dict[str, ParsedSource] = {}
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget parsed sources (benchmarks use it to time parsing too)."""
    with _lock:
        _cache.clear()
        _text_cache.clear()


def _maybe_declares_encoding(source: bytes) -> bool:
    head = source[:400]
    return b"coding" in head


def _parse_transcoded(source: bytes, encoding: str) -> ParsedSource:
    try:
        text = source.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise SourceSyntaxError(f"cannot decode as {encoding}: {error}", 1) from None
    u8_points, data_points = [0], [0]
    u8 = data = 0
    for char in text:
        u8 += len(char.encode("utf-8"))
        data += len(char.encode(encoding))
        if u8 - u8_points[-1] != data - data_points[-1]:  # the offsets drift apart here
            u8_points.append(u8)
            data_points.append(data)
    if data != len(source):  # a stateful encoding: per-character sizes do not add up
        raise SourceSyntaxError(f"unsupported encoding {encoding}", 1)
    utf8 = text.encode("utf-8")
    return ParsedSource(source, encoding, utf8, parse_tree(utf8), u8_points, data_points)
