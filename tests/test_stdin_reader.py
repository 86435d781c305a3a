"""The thread that reads the client's input hands over whole lines and bodies, however the
bytes arrive (server/lsp/stdin_reader.py), through a real pipe."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

from selfdebug.server.lsp.stdin_reader import CHUNK, ThreadReader


def write_slowly(fd: int, data: bytes, piece: int) -> None:
    def run() -> None:
        try:
            for start in range(0, len(data), piece):
                os.write(fd, data[start : start + piece])
                time.sleep(0.001)
        except BrokenPipeError:
            pass  # the reader had what it wanted and closed its end
        finally:
            os.close(fd)

    threading.Thread(target=run, daemon=True).start()


@pytest.mark.parametrize(("piece", "size"), [(1, 700), (1000, 4 * CHUNK), (3 * CHUNK, 4 * CHUNK)])
def test_lines_and_bodies_whatever_the_pieces(piece: int, size: int) -> None:
    body = (bytes(range(256)) * (size // 256 + 1))[:size]  # newlines inside
    data = b"Content-Length: %d\r\n\r\n" % len(body) + body + b"tail\n" + b"no newline"

    async def read() -> list[bytes]:
        read_end, write_end = os.pipe()
        with os.fdopen(read_end, "rb", buffering=0) as stream:
            reader = ThreadReader(stream, max_line=1 << 20)  # type: ignore[arg-type]
            write_slowly(write_end, data, piece)
            got = [await reader.readline(), await reader.readline()]
            got.append(bytes(await reader.readexactly(len(body))))
            return [*got, await reader.readline(), await reader.readline(), await reader.readline()]

    got = asyncio.run(read())
    assert got == [b"Content-Length: %d\r\n" % len(body), b"\r\n", body, b"tail\n",
                   b"no newline", b""]  # fmt: skip


def test_a_body_cut_short_is_an_incomplete_read() -> None:
    async def read() -> None:
        read_end, write_end = os.pipe()
        with os.fdopen(read_end, "rb", buffering=0) as stream:
            reader = ThreadReader(stream, max_line=1 << 20)  # type: ignore[arg-type]
            write_slowly(write_end, b"x" * 100, 30)
            with pytest.raises(asyncio.IncompleteReadError) as cut:
                await reader.readexactly(1000)
            assert cut.value.partial == b"x" * 100
            assert await reader.readline() == b""

    asyncio.run(read())


def test_a_line_without_end_is_cut_at_the_limit() -> None:
    async def read() -> bytes:
        read_end, write_end = os.pipe()
        with os.fdopen(read_end, "rb", buffering=0) as stream:
            reader = ThreadReader(stream, max_line=CHUNK)  # type: ignore[arg-type]
            write_slowly(write_end, b"y" * (5 * CHUNK), CHUNK)
            return await reader.readline()

    line = asyncio.run(read())
    assert CHUNK <= len(line) < 5 * CHUNK and set(line) == {ord("y")}
