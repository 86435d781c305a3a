"""Code-action latency on a small file while a huge document (10 MB by default) is open and
edited: every edit is a full-text `didChange` followed by a code action on the huge document (an
editor asks again after each change), while code actions on the small file are timed.
Goal: the small file's p95 < 50 ms.

Why: a request is answered on the server's one event loop, so any analysis of the huge document
done there (parsing it, splitting its lines) delays every other request, the small file's too.
The client is pygls's own, talking to a real `selfdebug serve` over stdio; the huge edits are
written pre-encoded, so that the client's own JSON encoding of 10 MB does not count as server
latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from selfdebug.bench.stats import latency_ms

GOAL_P95_MS = 50.0

SMALL = '''\
"""A small module, as most are."""


def mean(values):
    total = 0
    for value in values:
        total += value
    return total / len(values)


def clamp(value, low, high):
    return max(low, min(value, high))
'''


SMALL_DEF = (3, 6)  # on `def mean`'s name: where the actions are offered


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--big-mb", type=float, default=10.0, help="size of the huge file (MB)")
    parser.add_argument("--samples", type=int, default=200, help="code actions on the small file")
    parser.add_argument(
        "--edit-interval", type=float, default=0.2, help="seconds between edits of the huge file"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def main(args: argparse.Namespace) -> int:
    result = measure(
        big_bytes=int(args.big_mb * 1_000_000),
        samples=args.samples,
        edit_interval_s=args.edit_interval,
    )
    if args.json:
        print(json.dumps(result))
    else:
        print(_readable(result))
    return 0 if result["ok"] else 1


def _readable(result: dict[str, Any]) -> str:
    mb = result["big_bytes"] / 1e6
    rows = [f"code-action latency while a {mb:.1f} MB file is edited (goal: small p95 < 50 ms)"]
    for name in ("small", "big"):
        s = result[name]
        rows.append(
            f"  {name:6} n={s['n']:4}  p50 {s['p50_ms']:8.2f} ms  p95 {s['p95_ms']:8.2f} ms"
            f"  max {s['max_ms']:8.2f} ms"
        )
    rows.append(
        f"  {result['edits']} full-text edits of the huge file; it was offered"
        f" {result['big_actions']} actions; messages about it: {result['big_messages']}"
    )
    rows.append(f"  goal met: {'yes' if result['ok'] else 'NO'}")
    return "\n".join(rows)


def big_module(size: int) -> str:
    """Many small functions, about `size` bytes."""
    chunks = ['"""Generated for the latency benchmark."""\n']
    total, index = len(chunks[0]), 0
    while total < size:
        chunk = (
            f"\n\ndef helper_{index}(a, b):\n"
            f'    """Helper number {index}."""\n'
            f"    if a > b:\n        return a - b + {index}\n"
            f"    for i in range(b):\n        a += i\n    return a\n"
        )
        chunks.append(chunk)
        total += len(chunk)
        index += 1
    return "".join(chunks)


def _stats(samples: list[float]) -> dict[str, Any]:
    if not samples:
        return {"n": 0, "p50_ms": 0.0, "p95_ms": 0.0, "max_ms": 0.0}
    p50, p95, most = latency_ms(samples)
    return {"n": len(samples), "p50_ms": p50, "p95_ms": p95, "max_ms": most}


def measure(
    big_bytes: int = 10_000_000, samples: int = 200, edit_interval_s: float = 0.2
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="selfdebug-bench-lsp-latency-") as tmp:
        return asyncio.run(_measure(Path(tmp), big_bytes, samples, edit_interval_s))


class _EditWriter:
    """Full-text `didChange` messages of the huge file, framed from its text JSON-encoded once."""

    def __init__(self, uri: str, text: str) -> None:
        self._head = b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": '
        self._uri = json.dumps(uri).encode()
        self._text = json.dumps(text).encode()[:-1]  # without its closing quote

    def message(self, version: int) -> bytes:
        tail = json.dumps(f"# edit {version}\n").encode()[1:]  # appended to the text
        body = b"".join(
            [
                self._head,
                b'{"textDocument": {"uri": ',
                self._uri,
                f', "version": {version}}}, "contentChanges": [{{"text": '.encode(),
                self._text,
                tail,
                b"}]}}",
            ]
        )
        return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def _measure(tmp: Path, big_bytes: int, samples: int, edit_interval_s: float) -> dict:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient
    from pygls.uris import from_fs_path

    project = tmp / "project"
    project.mkdir()
    (project / "small.py").write_text(SMALL, encoding="utf-8")
    big_text = big_module(big_bytes)
    (project / "big.py").write_text(big_text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_")}
    env |= {"XDG_STATE_HOME": str(tmp / "state"), "SELFDEBUG_CACHE_DIR": str(tmp / "cache")}

    logging.getLogger("pygls").setLevel(logging.ERROR)  # unhandled notifications are expected
    client = LanguageClient("selfdebug-bench", "1")
    messages: list[str] = []

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def configuration(params: types.ConfigurationParams) -> list[Any]:
        return [{} for _ in params.items]

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def show_message(params: types.ShowMessageParams) -> None:
        messages.append(params.message)

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log_message(params: types.LogMessageParams) -> None:
        messages.append(params.message)

    await client.start_io(sys.executable, "-m", "selfdebug", "serve", env=env)
    drain = asyncio.create_task(_drain(client))
    small_uri = from_fs_path(str(project / "small.py")) or ""
    big_uri = from_fs_path(str(project / "big.py")) or ""
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    workspace=types.WorkspaceClientCapabilities(configuration=True)
                ),
                workspace_folders=[
                    types.WorkspaceFolder(uri=from_fs_path(str(project)) or "", name="project")
                ],
            )
        )
        client.initialized(types.InitializedParams())
        for uri, text in ((small_uri, SMALL), (big_uri, big_text)):
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
            )

        async def action(uri: str, line: int, character: int) -> tuple[float, Any]:
            position = types.Position(line=line, character=character)
            started = time.perf_counter()
            answer = await client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(start=position, end=position),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            )
            return time.perf_counter() - started, answer

        for _ in range(20):  # warm up (imports, the small file's first parse)
            await action(small_uri, *SMALL_DEF)

        big_lines = [i for i, line in enumerate(big_text.splitlines()) if line.startswith("    ")]
        rng = random.Random(0)
        writer = _EditWriter(big_uri, big_text)
        big: list[float] = []
        offered = 0
        edits = 0
        stop = asyncio.Event()

        async def edit_the_big_file() -> None:
            nonlocal edits, offered
            version = 1
            while not stop.is_set():
                version += 1
                client.protocol.writer.write(writer.message(version))  # type: ignore[union-attr]
                edits += 1
                elapsed, answer = await asyncio.wait_for(
                    action(big_uri, rng.choice(big_lines), 6), 120
                )
                big.append(elapsed)
                offered += len(answer or [])
                try:
                    await asyncio.wait_for(stop.wait(), edit_interval_s)
                except asyncio.TimeoutError:
                    pass

        editing = asyncio.create_task(edit_the_big_file())
        small: list[float] = []
        for _ in range(samples):
            elapsed, answer = await action(small_uri, *SMALL_DEF)
            assert answer, "the small file must keep its actions"
            small.append(elapsed)
            await asyncio.sleep(0.01)  # a cursor moving, not a flood
        stop.set()
        await asyncio.wait_for(editing, 180)
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
        drain.cancel()
    small_stats, big_stats = _stats(small), _stats(big)
    return {
        "big_bytes": len(big_text.encode("utf-8")),
        "small": small_stats,
        "big": big_stats,
        "edits": edits,
        "big_actions": offered,
        "big_messages": [m for m in messages if "big.py" in m],
        "goal_p95_ms": GOAL_P95_MS,
        "ok": small_stats["p95_ms"] < GOAL_P95_MS,
    }


async def _drain(client: Any) -> None:
    """Read the server's stderr so that a chatty server never blocks on a full pipe."""
    server = getattr(client, "_server", None)
    if server is None or server.stderr is None:
        return
    while await server.stderr.readline():
        pass
