"""Reading LSP messages from a byte stream: `Content-Length` framing that survives bad input.

Why our own loop instead of pygls' `run_async`: there, a header it does not recognise or a
missing `Content-Length` is skipped silently, so the next message's body is read as headers and
its header line is swallowed with it; the stream can stay deaf from then on. Malformed JSON got no
answer at all, and every nested object that looked like a JSON-RPC message was turned into one
(a reply for an id the client never sent). Here:

- headers are matched case-insensitively; a line that is not a header is reported with a -32700
  Parse error (id null) and reading resynchronises at the next `Content-Length:`, even one in the
  middle of a line (the tail of a body read as a header);
- a body that is not JSON gets -32700; one that is JSON but not an object gets -32600;
- a body is read by a thread of ours (stdin_reader.py) and a big one decoded by orjson, in
  half the time `json` takes: the messages behind a 10 MB `didChange` wait for it;
- only the top-level object is turned into a message (`protocol.receive`).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, BinaryIO, Protocol

import orjson

from selfdebug.server.lsp.stdin_reader import ThreadReader

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024 * 1024  # larger bodies are read and dropped, with a -32700
BIG_BODY_BYTES = 64 * 1024  # decoded by orjson
_CONTENT_LENGTH = re.compile(rb"content-length:", re.IGNORECASE)


class Receiver(Protocol):
    def receive(self, data: Any) -> None: ...

    def send_parse_error(self, message: str) -> None: ...


def stdio_reader(stream: BinaryIO) -> ThreadReader:
    """A reader of the client's input for `read_messages`, served by a daemon thread of ours
    (stdin_reader.py: why). Call it inside the event loop."""
    return ThreadReader(stream, max_line=MAX_BODY_BYTES)


async def read_messages(reader: Any, receiver: Receiver, stopped: Any = None) -> None:
    """Feed every framed body to `receiver.receive` until end of stream (or `stopped` is set)."""
    headers: dict[str, str] = {}
    garbage = 0
    while stopped is None or not stopped.is_set():
        line = await reader.readline()
        if not line:
            return
        if line.strip():
            name, value, junk = _header(line)
            garbage += junk
            if name is None:
                headers = {}  # a header block broken by junk: start afresh
            else:
                headers[name] = value
            continue
        if garbage:
            receiver.send_parse_error(f"ignored {garbage} bytes that are not LSP headers")
            garbage = 0
        if not headers:
            continue  # a stray blank line
        length_text = headers.get("content-length", "")
        headers = {}
        if not length_text.isdigit():
            receiver.send_parse_error(f"bad or missing Content-Length header ({length_text!r})")
            continue
        length = int(length_text)
        body = await _read_body(reader, length)
        if body is None:
            return  # end of stream inside a body
        if length > MAX_BODY_BYTES:
            receiver.send_parse_error(f"message of {length} bytes is over the size limit")
            continue
        try:
            data = _decoded(body)
        except (ValueError, UnicodeDecodeError) as error:
            receiver.send_parse_error(f"the message is not valid JSON ({error})")
            continue
        try:
            receiver.receive(data)
        except Exception:  # one bad message never stops the loop
            logger.exception("handling a message failed")


def _decoded(body: bytes) -> Any:
    """The body's JSON value: `json`'s, found faster for a big body.

    Why orjson, and on the loop: messages are handled in order, so a request behind a 10 MB
    `didChange` waits for its decoding wherever it happens; only its length counts. A
    decoding in a thread, in slices that let the loop run, measured slower end to end. orjson
    refuses what `json` accepts (lone surrogates, integers past 64 bits): then `json` decides."""
    if len(body) <= BIG_BODY_BYTES:
        return json.loads(body)
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return json.loads(body)


def _header(line: bytes) -> tuple[str | None, str, int]:
    """(lower-case name, value, junk bytes before it); name None when the line holds none."""
    match = _CONTENT_LENGTH.search(line)
    if match and match.start() > 0:  # the tail of a body or junk, then a real header
        junk = match.start()
        line = line[junk:]
    else:
        junk = 0
    name, sep, value = line.decode("ascii", "replace").partition(":")
    name = name.strip().lower()
    if not sep or not name or " " in name:
        return None, "", junk + len(line)
    return name, value.strip(), junk


async def _read_body(reader: Any, length: int) -> bytes | None:
    """`length` bytes (at most MAX_BODY_BYTES kept); None at end of stream."""
    kept: list[bytes] = []
    remaining = length
    while remaining:
        want = remaining if length <= MAX_BODY_BYTES else min(remaining, 1 << 20)
        try:
            chunk = await reader.readexactly(want)
        except Exception as error:  # asyncio.IncompleteReadError at end of stream
            if type(error).__name__ == "IncompleteReadError":
                return None
            raise
        if not chunk:
            return None
        if length <= MAX_BODY_BYTES:
            kept.append(chunk)
        remaining -= len(chunk)
    return kept[0] if len(kept) == 1 else b"".join(kept)
