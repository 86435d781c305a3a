"""A self-debug's total time budget (issue 53 item 8): a session, or the walk from a failing test
across its suspects, never runs past it and ends with what it has (the best partial fix, the
ranked suspects), stop reason `time_budget`; the CLI's `--time-budget`. Real pytest runs on small
real projects; a scripted model whose call stalls plays the slow part."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.requests import request_of
from helpers.sumproj import THREE, copy_project

from selfdebug.exit_codes import ExitCode
from selfdebug.server.backends.no_model import NoModelBackend
from selfdebug.server.backends.scripted import Play, ScriptedBackend
from selfdebug.server.engine import run_session
from selfdebug.server.engine.from_failure import FailureJob, WalkHooks, held, localize, repair
from selfdebug.server.engine.request import with_options
from selfdebug.server.engine.transcript import read_transcript
from selfdebug.server.runner import ProjectRunner, RunnerSettings

# A bug at two places, one of them no small edit: the search fixes the italic line (a partial
# fix, 2/3 chosen pass) and nothing finishes the underline one before the budget is spent.
CODES = """def codes(bold=None, italic=None, underline=None):
    bits = []
    if bold is not None:
        bits.append(1 if bold else 21)
    if italic is not None:
        bits.append(3 if bold else 23)
    if underline is not None:
        bits.append(24 if bold else 4)
    return bits
"""
CODES_TESTS = """from codes import codes


def test_bold():
    assert codes(bold=True) == [1]


def test_italic():
    assert codes(italic=True) == [3]
    assert codes(italic=False) == [23]


def test_underline():
    assert codes(underline=True) == [4]
    assert codes(underline=False) == [24]


def test_none():
    assert codes() == []
"""
CHOSEN = ["test_codes.py::test_bold", "test_codes.py::test_italic",
          "test_codes.py::test_underline"]  # fmt: skip


def _codes_project(root: Path) -> Path:
    root.mkdir()
    (root / "codes.py").write_text(CODES)
    (root / "test_codes.py").write_text(CODES_TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


def test_a_session_whose_budget_runs_out_after_a_partial_fix_returns_the_partial_fix(tmp_path):
    root = _codes_project(tmp_path / "codes")
    request = request_of(
        file=root / "codes.py", qualname="codes", project_root=root, tests=CHOSEN,
        wider_tests=["test_codes.py::test_none"], mode="search", generated_inputs=0,
    )  # fmt: skip
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        searched = run_session(request, NoModelBackend(), runner=runner)  # how long it takes here
        assert searched.found_by == "edit search (part of a fix)", searched.error
        # then `auto`, whose model call stalls: the budget runs out after the partial fix, before
        # its wider tests could run (they ran inside the search's own process)
        transcript = tmp_path / "t.jsonl"
        budget = 2 * searched.seconds + 5
        stalls = ScriptedBackend(["never answered"], plays={1: Play(stall_after=0)})
        started = time.monotonic()
        auto = with_options(request, mode="auto", model_edits_s=0, model_stall_s=600.0,
                                   time_budget_s=budget, transcript_path=transcript)  # fmt: skip
        result = run_session(auto, stalls, runner=runner)
        seconds = time.monotonic() - started
    assert result.stop_reason == "time_budget" and result.error == ""
    assert len(stalls.requests) == 1 and seconds < budget + 3
    assert result.fixed_file is not None and "3 if italic" in result.fixed_file
    assert result.chosen_after is not None and result.chosen_after.passed == 2
    assert result.found_by == "edit search (part of a fix)" and not result.success
    assert any("the time budget was spent before the wider tests ran" in w
               for w in result.warnings)  # fmt: skip
    assert result.caveat == "checked only by the 3 chosen tests"
    events = [e["event"] for e in read_transcript(transcript)]
    assert "budget" in events and events[-1] == "session_end"  # the transcript is whole


# Three functions the failing test runs, none of which a small edit fixes (the test wants a
# word the code never writes), and a test slow enough that a search takes many seconds.
SHOP = """def label(count):
    return f"{count} items"


def describe(items):
    return label(len(items))


def summary(items):
    return "Cart: " + describe(items)
"""
SHOP_TESTS = """import time

from pkg.shop import summary


def test_summary():
    time.sleep(0.4)
    assert summary(["a", "b"]) == "Cart: two items"
"""
FAILING = "tests/test_shop.py::test_summary"


def _shop_project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shop.py").write_text(SHOP)
    (root / "tests").mkdir()
    (root / "tests" / "test_shop.py").write_text(SHOP_TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    return root


def test_the_walk_over_several_suspects_stops_at_its_budget_with_the_ranking(tmp_path):
    root = _shop_project(tmp_path / "shop")
    budget = 8.0
    job = FailureJob(root, (FAILING,), {"mode": "search", "generated_inputs": 0},
                     budget_s=budget)  # fmt: skip
    with ProjectRunner(root, RunnerSettings(test_timeout_s=10)) as runner:
        walk = localize(job, held(runner))
        ranked = [s.target for s in walk.found.suspects]
        assert walk.stop == "" and len(ranked) == 3
        backend = NoModelBackend()
        hooks = WalkHooks(lambda _suspect, request: run_session(request, backend, runner=runner))
        repair(walk, hooks, held(runner))
    assert walk.budget_spent and walk.repair_s < budget + 4
    ran = [a for a in walk.attempts if a.result is not None]
    assert ran and ran[-1].result is not None and ran[-1].result.stop_reason == "time_budget"
    assert sum(a.request.budget.time_budget_s for a in ran if a.request) <= budget + 1  # one budget
    assert walk.untried and len(ran) + len(walk.untried) == 3  # the rest, best first
    assert [s.target for s in walk.untried] == [t for t in ranked if t in
                                                {s.target for s in walk.untried}]  # fmt: skip
    assert [s.target for s in walk.ranked_after()] == ranked  # no edit made a test pass


def _selfdebug(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=240,
    )  # fmt: skip


def test_the_cli_walk_prints_the_ranking_and_says_the_budget_was_spent(tmp_path):
    root = _shop_project(tmp_path / "shop")
    done = _selfdebug(["fix", "--test", FAILING, "--mode", "search", "--time-budget", "6"], root)
    assert done.returncode == ExitCode.NO_FIX, done.stdout + done.stderr
    assert "1. pkg/shop.py::" in done.stdout  # the ranking, printed first
    assert "stop: time_budget" in done.stdout
    assert "Time budget spent: the 6 s ran out before a fix was found" in done.stdout
    assert "suspects not tried: pkg/shop.py::" in done.stdout
    assert "Give it more with --time-budget S." in done.stdout


@pytest.fixture(scope="module")
def sumproj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "budget")


@pytest.mark.parametrize("form", [["calc.py::sum_to", "--test", THREE], ["--test", THREE]])
@pytest.mark.parametrize("value", ["0", "-5"])
def test_a_time_budget_of_zero_or_less_is_a_usage_error(sumproj, form, value):
    done = _selfdebug(["fix", *form, "--mode", "search", "--time-budget", value], sumproj)
    assert done.returncode == ExitCode.USAGE, done.stdout + done.stderr
    assert "selfdebug fix: --time-budget must be more than 0 seconds" in done.stderr


def test_the_cli_passes_its_time_budget_to_the_session(sumproj, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": ["never"], "plays": {"1": {"stall_after": 0}}}))
    args = ["fix", "calc.py::sum_to", "--test", THREE, "--mode", "ut", "--stall-limit", "600",
            "--time-budget", "5"]  # fmt: skip
    started = time.monotonic()
    done = _selfdebug(args, sumproj, SELFDEBUG_SCRIPTED_REPLIES=str(script))
    assert done.returncode == ExitCode.NO_FIX, done.stdout + done.stderr
    assert time.monotonic() - started < 5 + 20  # the interpreter's start, discovery, the runs
    assert "stop: time_budget" in done.stdout and "Failed call" not in done.stdout
    assert "Time budget spent: the 5 s ran out before a fix was found" in done.stdout
