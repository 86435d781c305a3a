"""A failed model call ends its turn, not the session (issue 24), with the real runner and a
scripted model whose calls fail the way real ones do: `auto` goes on to its next mode, a single
mode to its next turn; the result, the transcript, the benchmark's outcome and the CLI's exit code
say which calls failed and why. Cancel, the time budget and a backend that
cannot be reached still end the session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.requests import request_of
from helpers.sumproj import GOOD, copy_project, make_request

from selfdebug.bench.repair_report import ProblemOutcome, mode_stats
from selfdebug.server.backends.base import (
    BackendBadResponse,
    BackendStalled,
    BackendStartFailed,
    BackendTimeout,
    BackendUnreachable,
)
from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugRequest, run_session
from selfdebug.server.engine.model_calls.failed_calls import DEADLINE_SETTING, STALL_SETTING
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.lsp import report
from selfdebug.server.runner import ProjectRunner, RunnerSettings

WRONG = "Bug: none\n```python\ndef sum_to(n):\n    return 0\n```\n"
FIX = f"Bug: the range stops one number early.\n```python\n{GOOD}```\n"
TIMEOUT = BackendTimeout("the local model call did not finish within its 120 s deadline")
STALL = BackendStalled("no progress for 40 s (12 tokens)")

# `clamp_count` with `<` for `<=` on line 7: the edit search fixes it without a model.
CLAMP = (
    "import math\n\n\ndef clamp_count(values, limit):\n    kept = 0\n    for x in values:\n"
    "        if x < limit:\n            kept += 1\n        else:\n            break\n"
    "    return kept\n"
)
CLAMP_TESTS = (
    "from clamp import clamp_count\n\n\ndef test_at_limit():\n"
    "    assert clamp_count([1, 3], 3) == 2\n\n\ndef test_only_limit():\n"
    "    assert clamp_count([4], 4) == 1\n\n\ndef test_below():\n"
    "    assert clamp_count([1, 2], 5) == 2\n"
)
# A missing statement: no small edit puts `kept += 1` back, the model must.
MISSING = CLAMP.replace("x < limit", "x <= limit").replace("kept += 1", "pass")
CLAMP_FIX = (
    "Bug: nothing is counted.\n```python\n"
    + CLAMP.split("\n\n\n", 1)[1].replace("x < limit", "x <= limit")
    + "```\n"
)


def clamp_request(tmp_path: Path, source: str, **changes) -> DebugRequest:
    root = tmp_path / "clampproj"
    root.mkdir()
    (root / "clamp.py").write_text(source)
    (root / "test_clamp.py").write_text(CLAMP_TESTS)
    values = dict(
        file=root / "clamp.py",
        qualname="clamp_count",
        project_root=root,
        tests=["test_clamp.py::test_at_limit", "test_clamp.py::test_only_limit"],
        mode="auto",
        max_turns=3,
        model_edits_s=0,  # the whole-function turns (local edits: tests/test_model_edits.py)
    )
    values.update(changes)
    return request_of(**values)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "failed")


@pytest.fixture(scope="module")
def runner(project):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def events(transcript: Path, kind: str) -> list[dict]:
    return [e for e in read_transcript(transcript) if e["event"] == kind]


def test_a_timed_out_first_call_in_auto_ends_its_turn_not_the_session(tmp_path):
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend([CLAMP_FIX], errors={1: TIMEOUT})  # no small edit fixes MISSING
    request = clamp_request(
        tmp_path, MISSING, wider_tests=["test_clamp.py::test_below"], transcript_path=transcript
    )
    result = run_session(request, backend)
    assert result.success and result.stop_reason == "passed" and result.found_by == ""
    assert result.model_calls == 1 and len(backend.requests) == 2
    (failed,) = result.failed_calls
    assert failed.turn == 1 and failed.kind == "deadline" and failed.step == "fix_ut"
    assert failed.describe().startswith("turn 1: the model call was stopped after ")
    assert DEADLINE_SETTING in failed.describe()  # it names the setting that changes it
    assert "1 failed call" in result.summary()
    assert events(transcript, "session_end")[0]["failed_calls"] == [failed.describe()]


def test_auto_gives_its_mode_another_turn_after_a_failed_call(tmp_path):
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedBackend([CLAMP_FIX], errors={1: STALL})
    result = run_session(clamp_request(tmp_path, MISSING, transcript_path=transcript), backend)
    assert result.success and result.fixed_at_turn == 2 and result.found_by == ""
    assert result.mode == "ut"  # no answer said nothing of the mode: the same one again
    assert [c.kind for c in result.failed_calls] == ["stalled"]
    assert STALL_SETTING in result.failed_calls[0].describe()
    kinds = [e["event"] for e in read_transcript(transcript)]
    assert kinds.index("search") < kinds.index("model_call_failed") < kinds.index("model_call")
    assert result.model_calls == 1


def test_a_single_mode_goes_on_to_its_next_turn(project, runner):
    backend = ScriptedBackend([WRONG, FIX], errors={1: BackendBadResponse("HTTP 500: boom")})
    result = run_session(make_request(project, mode="ut", max_turns=3), backend, runner=runner)
    assert result.success and result.fixed_at_turn == 2 and result.mode == "ut"
    (failed,) = result.failed_calls
    assert failed.kind == "failed" and "HTTP 500: boom" in failed.describe()


def test_every_call_failing_ends_by_the_usual_stop_rules_not_an_error(project, runner):
    backend = ScriptedBackend([WRONG], errors={1: TIMEOUT, 2: TIMEOUT, 3: TIMEOUT})
    result = run_session(make_request(project, mode="ut", max_turns=5), backend, runner=runner)
    assert result.stop_reason == "no_improvement" and result.error == ""
    assert [c.turn for c in result.failed_calls] == [1, 2, 3]
    assert result.fixed_function is None


@pytest.mark.parametrize(
    "error",
    [
        BackendUnreachable("cannot reach the endpoint"),
        BackendStartFailed("the local model process died (signal 4, SIGILL) during a model call"),
    ],
)
def test_a_backend_that_cannot_start_still_ends_the_session(project, runner, error):
    backend = ScriptedBackend([FIX], errors={1: error})
    result = run_session(make_request(project, mode="ut", max_turns=3), backend, runner=runner)
    assert result.stop_reason == "error" and str(error) in result.error
    assert len(backend.requests) == 1 and result.failed_calls == []


def test_the_benchmark_and_the_editor_report_failed_calls_not_an_error(project, runner):
    backend = ScriptedBackend([WRONG, FIX], errors={1: STALL})
    result = run_session(make_request(project, mode="ut", max_turns=3), backend, runner=runner)
    outcome = ProblemOutcome(mode="ut", id="sum_to", source="test")
    outcome.record_session(result)
    assert outcome.stop_reason == "passed" and outcome.error == ""
    assert outcome.failed_calls == [result.failed_calls[0].describe()]
    again = ProblemOutcome.from_json(json.loads(json.dumps(outcome.to_json())))
    assert again.failed_calls == outcome.failed_calls
    stats = mode_stats("ut", [again])
    assert stats.failed_calls == 1 and stats.problems_with_failed_calls == 1
    editor = report.from_result("file:///calc.py", "sum_to", result)  # the editor's report
    assert editor.to_json()["failedCalls"] == outcome.failed_calls
    assert f"**Failed call:** {outcome.failed_calls[0]}" in report.render_markdown(editor)


def fix_cli(project: Path, tmp_path: Path, script: dict) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    env = {**os.environ, "SELFDEBUG_SCRIPTED_REPLIES": str(path)}
    args = ["fix", "calc.py::sum_to", "--test", "check_calc.py::test_sum_to_three"]
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args, "--mode", "ut", "--max-turns", "2"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_the_cli_exit_code_tells_a_failed_session_from_no_candidate(project, tmp_path):
    timeout = ["BackendTimeout", "did not finish within its 120 s deadline"]
    failed = fix_cli(
        project, tmp_path, {"replies": [WRONG], "errors": {"1": timeout, "2": timeout}}
    )
    assert failed.returncode == 3, failed.stdout + failed.stderr
    assert "Failed call: turn 1: the model call was stopped after" in failed.stdout
    assert DEADLINE_SETTING in failed.stdout
    assert "the session failed" in failed.stderr and "Traceback" not in failed.stderr

    wrong = fix_cli(project, tmp_path, {"replies": [WRONG], "errors": {"1": timeout}})
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr  # the model answered, wrongly
    assert "No candidate passes the chosen tests" in wrong.stdout
    assert "Failed call: turn 1" in wrong.stdout
