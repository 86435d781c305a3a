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
- only the top-level object is turned into a message (`protocol.receive`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import os
import re
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, Protocol

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024 * 1024  # larger bodies are read and dropped, with a -32700
_CONTENT_LENGTH = re.compile(rb"content-length:", re.IGNORECASE)


class Receiver(Protocol):
    def receive(self, body: bytes) -> None: ...

    def send_parse_error(self, message: str) -> None: ...


def stdio_reader(stream: BinaryIO) -> asyncio.StreamReader:
    """An asyncio reader of the client's input, filled by a daemon thread that reads its file
    descriptor. Call it inside the event loop.

    Why not pygls' reader (`stream.readline` in a thread pool): that pool's thread, blocked on a
    client that keeps its end open, is joined on the way out, so a server stopped by SIGTERM
    hung until the editor closed its end. A daemon thread on the raw descriptor holds no lock
    the interpreter's exit waits for."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_BODY_BYTES, loop=loop)
    try:
        fd = stream.fileno()
        read: Callable[[int], bytes] = functools.partial(os.read, fd)
    except (AttributeError, OSError, io.UnsupportedOperation):  # an in-memory stream
        read = stream.read1  # type: ignore[attr-defined]

    def pump() -> None:
        try:
            while chunk := read(1 << 16):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except OSError as error:
            logger.warning("reading the client's input failed: %s", error)
        except RuntimeError:
            return  # the event loop is closed: nobody reads any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="selfdebug-stdin", daemon=True).start()
    return reader


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
            receiver.receive(body)
        except Exception:  # one bad message never stops the loop
            logger.exception("handling a message failed")


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
        want = min(remaining, 1 << 20)
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
    return b"".join(kept)
