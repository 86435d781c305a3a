"""The client's input read by a thread of ours, which hands the event loop whole lines and bodies.

Why a thread: pygls' reader (`stream.readline` in a thread pool) is joined on the way out, so a
server stopped by SIGTERM hung until the editor closed its end; a daemon thread holds no lock the
interpreter's exit waits for. Why whole bodies: fed to an `asyncio.StreamReader` in 64 KiB
pieces, a 10 MB `didChange` cost the event loop ~70 ms of buffer growth, copies and joins
(measured under cProfile while a small file's code actions waited); here the thread reads a body
straight into one buffer of its size (`os.readv`, the GIL released while it waits), and the loop
only gets the finished buffer.

`readline` and `readexactly` behave as `asyncio.StreamReader`'s do for `transport.read_messages`:
b"" at the end of the input, `IncompleteReadError` for a body cut short.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

logger = logging.getLogger(__name__)

CHUNK = 1 << 16


class ThreadReader:
    def __init__(self, stream: BinaryIO, max_line: int) -> None:
        """Call inside the event loop: answers are delivered to it."""
        self._loop = asyncio.get_running_loop()
        self._read_into = _read_into(stream)
        self._max_line = max_line
        self._pending = bytearray()
        self._requests: queue.SimpleQueue[tuple[Callable[[], Any], asyncio.Future[Any]]]
        self._requests = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="selfdebug-stdin", daemon=True).start()

    async def readline(self) -> bytes:
        """A line with its b"\\n" (or what is left at the end of the input; b"" after it)."""
        return bytes(await self._ask(self._line))

    async def readexactly(self, size: int) -> bytes:
        data = await self._ask(lambda: self._exactly(size))
        if len(data) < size:
            raise asyncio.IncompleteReadError(bytes(data), size)
        return data  # a bytearray: json.loads reads it without another copy

    async def _ask(self, work: Callable[[], Any]) -> Any:
        future = self._loop.create_future()
        self._requests.put((work, future))
        return await future

    def _serve(self) -> None:
        while True:
            work, future = self._requests.get()
            try:
                result = work()
            except OSError as error:
                logger.warning("reading the client's input failed: %s", error)
                result = b""
            try:
                self._loop.call_soon_threadsafe(_settle, future, result)
            except RuntimeError:
                return  # the event loop is closed: nobody reads any more

    def _line(self) -> bytearray:
        searched = 0
        while True:
            end = self._pending.find(b"\n", searched)
            if end != -1:
                return self._take(end + 1)
            if len(self._pending) >= self._max_line or not self._fill():
                return self._take(len(self._pending))  # junk for the framing to report
            searched = max(0, len(self._pending) - CHUNK)

    def _exactly(self, size: int) -> bytearray:
        buffer = bytearray(size)
        view = memoryview(buffer)
        kept = min(size, len(self._pending))
        view[:kept] = self._pending[:kept]
        del self._pending[:kept]
        position = kept
        while position < size:
            got = self._read_into(view[position:])
            if not got:
                return buffer[:position]
            position += got
        return buffer

    def _take(self, size: int) -> bytearray:
        taken = self._pending[:size]
        del self._pending[:size]
        return taken

    def _fill(self) -> bool:
        chunk = bytearray(CHUNK)
        got = self._read_into(memoryview(chunk))
        self._pending += chunk[:got]
        return got > 0


def _settle(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():
        future.set_result(result)


def _read_into(stream: BinaryIO) -> Callable[[memoryview], int]:
    """Read what is there (at least a byte, 0 at the end) into a buffer, the GIL released."""
    with contextlib.suppress(AttributeError, OSError, io.UnsupportedOperation):
        fd = stream.fileno()
        return lambda view: os.readv(fd, [view])

    def read_into(view: memoryview) -> int:  # an in-memory stream
        data = stream.read1(len(view))  # type: ignore[attr-defined]
        view[: len(data)] = data
        return len(data)

    return read_into
