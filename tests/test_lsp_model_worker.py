"""The language server with a real local model in its worker process (no script): a native crash
of the model process is a typed error in the session's report, the server keeps answering, and the
next session gets a fresh worker; and the default model (Qwen2.5-Coder-1.5B-Instruct) runs a
session end to end through the editor protocol."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from pathlib import Path

import pytest
from test_lsp_e2e import start  # noqa: F401  (the fixture: a real `selfdebug serve` + client)

pytestmark = pytest.mark.model
pytest.importorskip("llama_cpp")

STOP_RULES = {"passed", "max_turns", "no_improvement"}


def model_workers_of_server(marker: str) -> list[int]:
    """Model worker pids whose parent is a `selfdebug serve` started with `marker` in its env."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            if b"model-worker" not in words:
                continue
            parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            parent_env = Path(f"/proc/{parent}/environ").read_bytes()
        except (OSError, IndexError):
            continue
        if marker.encode() in parent_env:
            found.append(int(entry.name))
    return found


async def wait_for_worker(marker: str, timeout: float = 120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = model_workers_of_server(marker)
        if pids:
            return pids[0]
        await asyncio.sleep(0.1)
    raise TimeoutError("no model worker appeared")


async def test_a_crashed_model_process_is_reported_and_replaced(start, tmp_path):  # noqa: F811
    settings = {"backend": "llama", "modelPath": "gemma-3-270m", "maxTurns": 1, "mode": "ut"}
    ws = await start(settings=settings)
    client = ws.client
    uri = ws.open("calc.py")
    session = asyncio.ensure_future(
        ws.command("selfdebug.selfDebug", {"uri": uri, "qualname": "mean"})
    )
    crashed = await wait_for_worker(str(tmp_path))
    os.kill(crashed, signal.SIGSEGV)  # what an AMX kernel bug does inside llama.cpp
    result = await asyncio.wait_for(session, 300)

    (report,) = client.reports
    assert report["stopReason"] == "error", report
    assert "the local model process died (signal 11, SIGSEGV)" in report["note"]
    assert "--force-reinstall" in report["note"]  # it says what to do
    assert result["stopReason"] == "error"
    assert await ws.actions(uri, 3, 6)  # the server itself is alive and answering

    again = await asyncio.wait_for(
        ws.command("selfdebug.selfDebug", {"uri": uri, "qualname": "mean"}), 300
    )
    assert again["stopReason"] == client.reports[-1]["stopReason"]
    second = client.reports[-1]
    assert "died" not in (second["note"] or ""), second  # the fresh worker answered
    fresh = model_workers_of_server(str(tmp_path))
    assert fresh and crashed not in fresh  # a new worker answered


async def test_the_default_model_runs_a_session_through_the_server(start, tmp_path):  # noqa: F811
    """No modelPath: the default Qwen2.5-Coder-1.5B-Instruct (chat prompts) in the worker."""
    ws = await start(settings={"backend": "llama", "maxTurns": 1, "mode": "ut"})
    client = ws.client
    uri = ws.open("calc.py")
    result = await asyncio.wait_for(
        ws.command("selfdebug.selfDebug", {"uri": uri, "qualname": "mean"}), 900
    )
    (report,) = client.reports
    assert report["stopReason"] in STOP_RULES, report
    assert result["stopReason"] == report["stopReason"]
    assert re.search(r"; [1-9]\d* model calls?$", report["summary"]), report["summary"]
    assert report["transcriptPath"]
    transcript = Path(report["transcriptPath"]).read_text(encoding="utf-8")
    assert '"form": "chat"' in transcript  # the instruct model got chat messages
    assert "qwen2.5-coder-1.5b" in transcript
    if report["success"]:  # then the fix must have been delivered as an edit
        assert len(client.edits) == 1
    assert model_workers_of_server(str(tmp_path))
