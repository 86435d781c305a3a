"""Remove every inserted probe, byte for byte, and map instrumented lines back to original ones.

Pure text work (no parser): inserted lines end with MARKER and name the helper module; in-line
wraps are fixed strings around the original text. See helper.py and probes.py for the shapes.
"""

from __future__ import annotations

import codecs
import re

from .helper import HELPER, HELPER_BYTES, MARKER

_REF = rb"(?:" + re.escape(HELPER_BYTES) + rb"|__import__\(\"" + re.escape(HELPER_BYTES) + rb"\"\))"
# ` H.ret(3, 12, None, "H")` after a bare `return`
_BARE_RETURN = re.compile(
    rb" " + _REF + rb"\.ret\(\d+, \d+, None, \"" + re.escape(HELPER_BYTES) + rb"\"\)"
)
# ` H.ret(3, 12, (` ... `), "H")` around a return value
_RETURN_OPEN = re.compile(rb" " + _REF + rb"\.ret\(\d+, \d+, \(")
_RETURN_CLOSE = b'), "' + HELPER_BYTES + b'")'
# `H.print_(7, 12, ` <- `print(` (a model-written print sent to the side channel)
_PRINT = re.compile(_REF + rb"\.print_([ \t]*)\(\d+, \d+, ")


def contains_probes(source: bytes | str) -> bool:
    """Whether `source` holds anything selfdebug inserted (cheap; used to vet model output)."""
    if isinstance(source, str):
        return HELPER in source
    return HELPER_BYTES in source


def _is_inserted(line: bytes) -> bool:
    return line.rstrip(b"\r\n").endswith(MARKER) and HELPER_BYTES in line


def strip(source: bytes) -> bytes:
    """`source` without any inserted probe: strip(instrument_function(s, ...)) == s."""
    first = source.find(HELPER_BYTES)
    if first < 0:
        return source
    # Only the stretch from the line before the first probe to the end of the last one changes.
    start = _line_start(source, _line_start(source, first) - 1)
    last = source.rfind(HELPER_BYTES)
    end = source.find(b"\n", last)
    end = len(source) if end < 0 else end + 1
    return source[:start] + _strip_region(source[start:end]) + source[end:]


def _line_start(text: bytes, offset: int) -> int:
    """Start of the line holding `offset` (a \\n always ends a line, whatever else does)."""
    return text.rfind(b"\n", 0, max(offset, 0)) + 1


def _strip_region(region: bytes) -> bytes:
    kept: list[bytes] = []
    for line in region.splitlines(keepends=True):
        if not _is_inserted(line):
            kept.append(line)
        elif not kept and line.startswith(codecs.BOM_UTF8):
            kept.append(codecs.BOM_UTF8)  # a line inserted first in a file keeps its BOM
        elif not line.endswith((b"\n", b"\r")) and kept:
            # inserted after a last line that had no newline: the newline was inserted too
            kept[-1] = kept[-1][:-2] if kept[-1].endswith(b"\r\n") else kept[-1][:-1]
    text = b"".join(kept)
    text = _BARE_RETURN.sub(b"", text)
    text = _unwrap_returns(text)
    return _PRINT.sub(rb"print\1(", text)


def _unwrap_returns(text: bytes) -> bytes:
    pieces: list[bytes] = []
    position = 0
    while True:
        opened = _RETURN_OPEN.search(text, position)
        if opened is None:
            break
        close = text.find(_RETURN_CLOSE, opened.end())
        if close < 0:  # damaged (e.g. edited by hand): leave the rest as it is
            break
        pieces += [text[position : opened.start()], text[opened.end() : close]]
        position = close + len(_RETURN_CLOSE)
    pieces.append(text[position:])
    return b"".join(pieces)


def line_map(instrumented: bytes) -> list[int]:
    """For each 1-based instrumented line (index line-1): the 1-based line of the original file.

    An inserted line maps to the original line that follows it (the statement it probes or, for
    the exception decorator, the `def`), or to the last original line at the end of the file.
    """
    mapping: list[int] = []
    original = 0
    waiting = 0  # inserted lines not yet given the next original line
    for line in instrumented.splitlines():
        if _is_inserted(line):
            waiting += 1
            continue
        original += 1
        mapping += [original] * (waiting + 1)
        waiting = 0
    mapping += [max(original, 1)] * waiting
    return mapping
