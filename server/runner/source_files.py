"""A user's Python file read and written as Python reads it: every reader and writer of one.

Why: Python decodes a source file by its UTF-8 byte-order mark or its PEP 263 declaration
(`# -*- coding: latin-1 -*-`), not as plain UTF-8; read as UTF-8, a BOM file's text starts with
U+FEFF, which `ast.parse` refuses ("invalid non-printable character U+FEFF"), and a Latin-1
file does not decode at all. A fix written back must keep what the file was: its encoding, its
BOM and its line endings, so the bytes outside the fix's lines stay as they were.

`read_source` gives the text (BOM left out, line endings as in the file) and the codec that
decoded it ("utf-8-sig" for a BOM: encoding with it writes the BOM back); `encode_like` turns
an edited text back into the file's bytes, `encode_over` does so for the bytes it replaces,
and `rewrite_source` writes it over the file.
`encode_declared` is for a text whose file is not at hand (an override written into the shadow
copy): its own declaration decides.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from pathlib import Path

from selfdebug.server.runner.safe_read import DEFAULT_CAP_BYTES, read_regular

UTF8 = "utf-8"


def source_encoding(data: bytes) -> str:
    """The codec Python decodes `data` with: "utf-8-sig" after a BOM, the declared one, else
    "utf-8". Raises SyntaxError for a bad or unknown declaration, as Python does."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return codecs.lookup(encoding).name  # "latin-1" -> "iso8859-1"; "utf-8-sig" stays


def decode_source(data: bytes, errors: str = "strict") -> tuple[str, str]:
    """(the text, its codec) of a Python file's bytes. The line endings are kept. With
    `errors="replace"` (a reader that only scans names) nothing raises: a bad declaration
    reads as UTF-8."""
    try:
        encoding = source_encoding(data)
    except SyntaxError:
        if errors == "strict":
            raise
        encoding = UTF8
    return data.decode(encoding, errors), encoding


def read_source(path: Path | str, cap_bytes: int = DEFAULT_CAP_BYTES) -> tuple[str, str]:
    """(the text, its codec) of the Python file at `path` (a regular file; safe_read.py).
    Raises OSError, SyntaxError (a bad declaration) or UnicodeDecodeError."""
    return decode_source(read_regular(path, cap_bytes))


def read_source_text(path: Path | str, *, keep_line_endings: bool = False) -> str:
    """The text of a Python file for a reader that only looks: decoded as Python does, never
    raising for its bytes (OSError only); its line endings read as "\\n" (as `open` reads
    text) unless `keep_line_endings` (an editor's document of the file)."""
    text = decode_source(read_regular(path), errors="replace")[0]
    return text if keep_line_endings else text.replace("\r\n", "\n").replace("\r", "\n")


def encode_like(text: str, encoding: str) -> bytes:
    """`text` as the file it was read from holds it (`encoding` from `read_source`: the BOM
    too). Raises UnicodeEncodeError when the text holds a character the encoding has not."""
    return text.encode(encoding)


def encode_declared(text: str) -> bytes:
    """A text's bytes by its own declaration (UTF-8 when it declares none): what Python will
    read back as the same text. A character the declared encoding has not (a candidate's) is
    written as "?": no file in that encoding can hold it, so its tests run without it."""
    utf8 = text.encode(UTF8, "surrogatepass")
    try:
        encoding = source_encoding(utf8)
    except SyntaxError:
        return utf8
    if encoding in (UTF8, "utf-8-sig"):
        return utf8
    return text.encode(encoding, "replace")


def encode_over(data: bytes, text: str) -> bytes:
    """`text` as the bytes that replace a Python file's `data`: encoded as that file is (its
    declared encoding, its BOM; UTF-8 under a bad declaration), the text's own line endings as
    they are. What `rewrite_source` writes, and what a saved fix (`fix --save-patch`) holds.
    Raises UnicodeEncodeError when the text holds a character the encoding has not."""
    try:
        encoding = source_encoding(data)
    except SyntaxError:
        encoding = UTF8
    return encode_like(text, encoding)


def rewrite_source(path: Path | str, text: str) -> None:
    """Write `text` over the Python file at `path` encoded as that file is now (`encode_over`),
    in place as an editor saves (a link stays a link). Raises OSError or UnicodeEncodeError
    (nothing written)."""
    Path(path).write_bytes(encode_over(read_regular(path), text))
