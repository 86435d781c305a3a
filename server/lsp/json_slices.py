"""JSON decoding of a huge LSP message in slices, so that the thread doing it gives up the GIL.

Why: a full-text `didChange` of a 10 MB document is one 11 MB JSON body. `json.loads` holds the
GIL for the whole of it (40-100 ms on 2 cores), and a thread of ours doing that stalls the event
loop just as much as the loop doing it itself: every other request (a small file's code action)
waits. Almost all of such a body is one string, the document's text. Here the message's
structure is read by the standard library's own pure-Python scanner (`json.scanner`), whose
strings are ours: a string that ends within a short window is read at once by the C `scanstring`;
a longer one is decoded slice by slice, each slice cut right after a `\\n` escape (a cut that
splits neither an escape nor a surrogate pair). Between two slices (and between the pieces of
the body's UTF-8 decoding) `pause` is called: the transport's waits for the event loop to take a
turn, so that the loop gets the GIL at least once a slice (a thread merely giving it up at the
interpreter's switch interval made every request of the loop wait 5 ms at each of its system
calls: measured slower than decoding on the loop).

The result is what `json.loads` gives for the same bytes; a body that is not valid JSON raises a
ValueError (or UnicodeDecodeError) as it does.
"""

from __future__ import annotations

import codecs
import json
import json.decoder
import json.scanner
from collections.abc import Callable
from typing import Any

SLICE_CHARS = 64 * 1024  # one `scanstring` call or decoding step: a fraction of a millisecond
PROBE_CHARS = 4096  # a string that ends within this many characters is read at once
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # not in typeshed


def _no_pause() -> None:
    pass


def loads(
    body: bytes, slice_chars: int = SLICE_CHARS, pause: Callable[[], None] = _no_pause
) -> Any:
    """`json.loads(body)`, reading long strings in slices of about `slice_chars` characters and
    calling `pause` between two slices."""
    if len(body) <= slice_chars:
        return json.loads(body)
    text = _text(body, slice_chars, pause)
    return _SlicingDecoder(slice_chars, pause).decode(text)


def _text(body: bytes, slice_bytes: int, pause: Callable[[], None]) -> str:
    """The body as text, decoded as `json.loads` decodes bytes, a slice at a time."""
    decoder = codecs.getincrementaldecoder(json.detect_encoding(body))("surrogatepass")
    parts = []
    for start in range(0, len(body), slice_bytes):
        parts.append(decoder.decode(body[start : start + slice_bytes]))
        pause()
    parts.append(decoder.decode(b"", final=True))
    return "".join(parts)


class _SlicingDecoder(json.JSONDecoder):
    def __init__(self, slice_chars: int, pause: Callable[[], None]) -> None:
        super().__init__()
        self._slice_chars = slice_chars
        self._pause = pause
        self.parse_string = self._string  # read by the pure-Python scanner only
        self.scan_once = json.scanner.py_make_scanner(self)  # type: ignore[attr-defined]

    def _string(self, text: str, start: int, strict: bool = True) -> tuple[str, int]:
        """The string whose content starts at `start`, and the index after its closing quote."""
        try:
            value, end = _scanstring(text[start : start + PROBE_CHARS], 0, strict)
            return value, start + end
        except ValueError:
            pass  # longer than the probe, or an error the slices will report
        parts: list[str] = []
        position = start
        while True:
            cut = _cut(text, position, position + self._slice_chars)
            if cut is None:  # no place to cut: the rest in one piece
                value, end = _scanstring(text, position, strict)
                parts.append(value)
                return "".join(parts), end
            piece = text[position:cut] + '"'
            value, end = _scanstring(piece, 0, strict)
            parts.append(value)
            if end < len(piece):  # the string ended inside the slice
                return "".join(parts), position + end
            position = cut
            self._pause()


def _cut(text: str, low: int, wanted: int) -> int | None:
    """The last position in (low, wanted] right after a real `\\n` escape, if any."""
    if wanted >= len(text):
        return None
    found = text.rfind("\\n", low, wanted)
    while found != -1:
        run_start = found
        while run_start > low and text[run_start - 1] == "\\":
            run_start -= 1
        if (found - run_start) % 2 == 0:  # an odd run of backslashes: this one escapes `n`
            return found + 2
        found = text.rfind("\\n", low, run_start)
    return None
