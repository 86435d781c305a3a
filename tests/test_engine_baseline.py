"""The engine reports its baseline run (the chosen tests on the unmodified text) through its
progress events, once, before the model is asked: what the LSP server publishes as diagnostics
instead of running the tests a second time. Scripted model, REAL runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.project_env import make_venv
from helpers.requests import request_of
from helpers.sumproj import ONE, THREE, ZERO, copy_project

from selfdebug.server.backends.scripted import ScriptedBackend
from selfdebug.server.engine import DebugResult, Progress, run_session
from selfdebug.server.runner import ProjectRunner, RunnerSettings

GOOD = "def sum_to(n):\n    return sum(range(1, n + 1))\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory, "baseline")


@pytest.fixture(scope="module")
def runner(project: Path):
    with ProjectRunner(project, RunnerSettings(test_timeout_s=10)) as shared:
        yield shared


def session(
    project: Path, runner: ProjectRunner, tests: list[str], **changes: object
) -> tuple[DebugResult, list[tuple[Progress, int]]]:
    """Run a session; returns (its result, [(progress event, model calls made before it)])."""
    backend = ScriptedBackend([f"Bug: off by one.\n```python\n{GOOD}```\n"] * 3)
    seen: list[tuple[Progress, int]] = []
    request = request_of(
        file=project / "calc.py",
        qualname="sum_to",
        project_root=project,
        tests=tests,
        mode="ut",
        **changes,
    )
    result = run_session(
        request,
        backend,
        runner=runner,
        progress=lambda event: seen.append((event, len(backend.requests))),
    )
    return result, seen


def test_the_baseline_run_comes_once_with_the_progress_before_the_model(project, runner) -> None:
    result, seen = session(project, runner, [THREE, ONE], wider_tests=[ZERO])
    assert result.stop_reason == "passed"  # candidates and the wider guard ran too
    carrying = [(event, calls) for event, calls in seen if event.baseline is not None]
    assert len(carrying) == 1
    event, calls = carrying[0]
    assert calls == 0 and event.turn == 0  # before anything was asked of the model
    assert event.phase == "0/2 tests pass before any change"
    baseline = event.baseline
    assert baseline is not None
    assert [(t.nodeid, t.outcome) for t in baseline.tests] == [(THREE, "failed"), (ONE, "failed")]
    assert not any(t.probes for t in baseline.tests)
    assert str(result.chosen_before) == "0/2"


def test_a_passing_baseline_is_reported_too(project, runner) -> None:
    # the server clears stale diagnostics with it
    result, seen = session(project, runner, [ZERO])
    assert result.stop_reason == "already_passing"
    (baseline,) = [event.baseline for event, _ in seen if event.baseline is not None]
    assert baseline.all_passed and [t.nodeid for t in baseline.tests] == [ZERO]


def test_without_tests_there_is_no_baseline(project, runner) -> None:
    _, seen = session(project, runner, [], max_turns=1)
    assert seen and all(event.baseline is None for event, _ in seen)


def test_what_the_runner_notes_about_the_environment_reaches_the_result(
    project: Path, tmp_path: Path
) -> None:
    """A project interpreter with pytest but not pytest-timeout: the runner's note says hung
    tests are hard-killed instead, and the session's result carries it (the CLI and the editor
    show the warnings), once."""
    python = make_venv(tmp_path / "venv")
    settings = RunnerSettings(interpreter=str(python), test_timeout_s=10)
    with ProjectRunner(project, settings) as bare:
        result, _ = session(project, bare, [THREE, ONE])
    assert result.stop_reason == "passed"
    noted = [w for w in result.warnings if "pytest-timeout is not installed" in w]
    assert len(noted) == 1, result.warnings
