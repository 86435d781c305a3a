"""Framed messages through the transport (server/lsp/transport.py) as the server reads stdin: a
big body gives what `json` gives, also where orjson would refuse it; a broken one a parse
error, and the stream goes on."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

from selfdebug.server.lsp.transport import BIG_BODY_BYTES, read_messages, stdio_reader


class Received:
    def __init__(self) -> None:
        self.values: list[Any] = []
        self.errors: list[str] = []

    def receive(self, data: Any) -> None:
        self.values.append(data)

    def send_parse_error(self, message: str) -> None:
        self.errors.append(message)


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_all(data: bytes) -> Received:
    received = Received()

    async def read() -> None:
        await read_messages(stdio_reader(io.BufferedReader(io.BytesIO(data))), received)

    asyncio.run(read())
    return received


def test_big_bodies_decode_as_json_does() -> None:
    text = 'é\\t"😀\n' * (BIG_BODY_BYTES // 4)
    plain = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"text": text}}
    padding, huge = "a" * BIG_BODY_BYTES, 2**70
    # a lone surrogate and an integer past 64 bits: orjson refuses both
    lone = '{"jsonrpc": "2.0", "method": "x", "params": {"text": "\\ud800' + padding + '"'
    lone += f', "n": {huge}}}}}'

    broken = b'{"jsonrpc": "2.0", "params": "' + b"x" * BIG_BODY_BYTES
    small = {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}
    received = read_all(
        frame(json.dumps(plain).encode())
        + frame(lone.encode())
        + frame(broken)
        + frame(json.dumps(small).encode())
    )
    assert received.values == [plain, json.loads(lone), small]
    assert len(received.errors) == 1 and "not valid JSON" in received.errors[0]
