"""Deadlines by progress, not a fixed total (issue 24), in whole sessions with the real runner and
a scripted model that streams its answer a word at a time under the real CallGuard: a stall is
stopped at the stall limit and the session goes on, a slow steady stream is not stopped, cancel
mid-stream returns within a second, the session's time budget still cuts a call, and the progress
shows how far the model has come ("model: 12 tokens, 6 tok/s")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers.sumproj import GOOD, THREE, copy_project, make_request

from selfdebug.server.backends.scripted import Play, ScriptedBackend
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine import run_session
from selfdebug.server.engine.model_calls.failed_calls import STALL_SETTING
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.engine.types import Progress
from selfdebug.server.lsp.progress import progress_message
from selfdebug.server.runner import ProjectRunner, RunnerSettings

WRONG = "Bug: none\n```python\ndef sum_to(n):\n    return 0\n```\n"
FIX = f"Bug: the range stops one number early.\n```python\n{GOOD}```\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "stall")


@pytest.fixture(scope="module")
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def test_a_stalled_call_is_stopped_at_the_stall_limit_and_the_next_turn_runs(
    project, runner, tmp_path
):
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend([WRONG, FIX], plays={1: Play(token_s=0.05, stall_after=3)})
    request = make_request(project, max_turns=3, model_stall_s=1.0, transcript_path=transcript)
    result = run_session(request, backend, runner=runner)
    assert result.success and result.fixed_at_turn == 2
    (failed,) = result.failed_calls
    assert failed.kind == "stalled" and failed.turn == 1
    assert 1.0 <= failed.seconds <= 1.0 + 0.15 + 0.6  # 3 words, then the 1 s limit
    assert "made no progress for 1 s (after 3 tokens)" in failed.describe()
    assert STALL_SETTING in failed.describe()
    assert backend.requests[0].stall_s == 1.0 and backend.requests[0].deadline_s is None
    (recorded,) = [e for e in read_transcript(transcript) if e["event"] == "model_call_failed"]
    assert recorded["kind"] == "stalled" and recorded["error_type"] == "BackendStalled"


def test_a_slow_steady_stream_is_not_stopped_and_shows_its_progress(project, runner):
    seen: list[Progress] = []
    backend = ScriptedBackend([FIX], plays={1: Play(token_s=0.12)})  # ~30 words: ~3.6 s
    request = make_request(project, max_turns=1, model_stall_s=0.6)
    result = run_session(request, backend, runner=runner, progress=seen.append)
    assert result.success and result.failed_calls == []
    assert result.model_seconds > 3 * 0.6  # longer than the stall limit, several times over
    models = [p.model for p in seen if p.model]
    assert len(models) >= 2 and models[-1].startswith("model: ") and "tok/s" in models[-1]
    ticks = [p for p in seen if p.model]
    assert all(p.phase == "asking the model" for p in ticks)  # on the phase that asked
    assert ticks[0].message == f"turn 1/1: asking the model ({ticks[0].model})"
    editor = progress_message(ticks[-1])
    assert editor.startswith("turn 1/1, ut mode: asking the model for a fix from the test")
    assert editor.endswith(f"; {ticks[-1].model}")


def test_cancel_mid_stream_returns_within_a_second(project, runner):
    cancel = CancelToken()
    streaming = threading.Event()
    backend = ScriptedBackend([FIX], plays={1: Play(token_s=0.3)})

    def on_progress(event: Progress) -> None:
        if event.model.startswith("model: ") and "tokens" in event.model:
            streaming.set()

    outcome = {}

    def work() -> None:
        request = make_request(project, max_turns=3)
        outcome["result"] = run_session(
            request, backend, runner=runner, progress=on_progress, cancel=cancel
        )

    thread = threading.Thread(target=work)
    thread.start()
    assert streaming.wait(60)
    cancelled_at = time.monotonic()
    cancel.cancel("the user pressed stop")
    thread.join(10)
    latency = time.monotonic() - cancelled_at
    assert latency < 1.0, latency
    assert outcome["result"].stop_reason == "cancelled"


def test_the_session_budget_still_cuts_a_call_that_stalls_less_than_its_limit(project, runner):
    backend = ScriptedBackend([FIX], plays={1: Play(stall_after=0)})
    started = time.monotonic()
    result = run_session(
        make_request(project, max_turns=3, model_stall_s=600.0, time_budget_s=8.0),
        backend,
        runner=runner,
    )
    assert result.stop_reason == "time_budget" and len(backend.requests) == 1
    assert time.monotonic() - started < 8.0 + 3.0
    assert backend.requests[0].deadline_s is not None and backend.requests[0].deadline_s <= 8.0


def test_the_cli_names_the_stall_setting_and_exits_3_when_no_call_answered(project, tmp_path):
    script = tmp_path / "script.json"
    plays = {"1": {"stall_after": 2}, "2": {"stall_after": 2}}
    script.write_text(json.dumps({"replies": [WRONG], "plays": plays}))
    args = ["fix", "calc.py::sum_to", "--test", THREE, "--mode", "ut", "--max-turns", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", *args, "--stall-limit", "0.5"],
        cwd=project,
        env={**os.environ, "SELFDEBUG_SCRIPTED_REPLIES": str(script)},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Failed call: turn 1: the model call stalled after" in done.stdout
    assert "Failed call: turn 2: the model call stalled after" in done.stdout
    assert STALL_SETTING in done.stdout and "Traceback" not in done.stderr
