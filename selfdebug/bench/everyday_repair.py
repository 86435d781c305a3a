"""One everyday case (everyday_cases.py) run as a user runs it: from its failing test's id.

The case's project is copied to a temporary folder and run with the interpreter `selfdebug fix`
chooses there (the projects need only pytest and have no virtualenv of their own: selfdebug's
own, with only its plugins loaded). The session is given only the failing test, as "Self-debug
this failure" and `selfdebug fix --test NODEID` are: the project's functions are ranked for its
failure and the top suspects repaired in order (`fix_from_failure`: the engine's one walk,
from_failure.py). The proposed files are then written into a fresh copy with the hidden check
beside the visible tests, and scored:
- correct: every visible test and the hidden check pass;
- plausible: every visible test passes, the hidden check fails (its first failing test is kept);
- wrong: a visible test fails (or the tests cannot run).
In the report's terms the project's own tests are the judge tests (`hidden_passed/total`, as
the judge files of a real case) and the hidden check decides the verdict, as the strict judge's
comparison with the reference does for the other sets: correct + plausible = fixed (hidden).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from selfdebug.bench.everyday_cases import EverydayCase, copy_project
from selfdebug.bench.repair_report import ProblemOutcome

if TYPE_CHECKING:
    from selfdebug.server.backends.base import Backend
    from selfdebug.server.backends.settings import BackendSettings as _BackendSettings
    from selfdebug.server.cancel import CancelToken
    from selfdebug.server.engine.from_failure import FailureWalk
    from selfdebug.server.engine.types import DebugRequest, DebugResult
    from selfdebug.server.runner import ProjectRunner, RunnerSettings


def fix_from_failure(
    root: Path,
    tests: list[str],
    runner: ProjectRunner,
    backend: Backend,
    cancel: CancelToken,
    *,
    settings: RunnerSettings,
    budget_s: float | None,
    request_fields: Mapping[str, Any],
) -> tuple[FailureWalk, float]:
    """The walk `selfdebug fix --test NODEID` runs (engine/from_failure.py), and the seconds
    its ranking took: localize the failure, repair the top suspects under one budget, refuse a
    fix that breaks its function's own tests."""
    from selfdebug.server.engine import run_session
    from selfdebug.server.engine.from_failure import FailureJob, WalkHooks, held, localize, repair

    session = {"cwd": root, "runner_settings": settings, **request_fields}
    job = FailureJob(root, tuple(tests), session, budget_s=budget_s)
    started = time.monotonic()
    walk = localize(job, held(runner), cancel)
    localize_seconds = round(time.monotonic() - started, 3)
    if not walk.found.error and walk.found.suspects:

        def run(_suspect: Any, request: DebugRequest) -> DebugResult:
            return run_session(request, backend, runner=runner, cancel=cancel)

        repair(walk, WalkHooks(run), held(runner))
    return walk, localize_seconds


def runner_settings(test_timeout_s: float) -> RunnerSettings:
    """No interpreter named: the one `selfdebug fix` picks in the case's folder (project.py's
    resolve_interpreter), as a user would meet it. Naming this interpreter made it a configured
    one, whose runs load every pytest plugin installed beside selfdebug (a second a run on 2
    cores), which a small project's own environment does not have."""
    from selfdebug.server.runner import RunnerSettings

    return RunnerSettings(test_timeout_s=test_timeout_s)


class RunConfig(Protocol):
    """What a run needs of the bench's configuration (bench/repair.py's RepairConfig), without
    importing the module that imports this one."""

    max_turns: int
    samples: int
    test_timeout_s: float
    session_timeout_s: float | None
    backend: _BackendSettings | None


def solve_everyday(
    case: EverydayCase,
    mode: str,
    config: RunConfig,
    backend: Backend,
    cancel: CancelToken,
    transcript_dir: Path | None = None,
) -> ProblemOutcome:
    """Copy, walk from the failing test, score. A case that cannot be set up raises (a harness
    error, retried on resume, never a result)."""
    from selfdebug.server.backends.settings import BackendSettings
    from selfdebug.server.engine.suspects.rank import rank_of
    from selfdebug.server.runner import ProjectRunner

    outcome = ProblemOutcome(mode=mode, id=case.id, source=case.source, real=True)
    outcome.from_failure_test = case.failing_test
    backend_settings = config.backend or BackendSettings()
    transcript = None
    if transcript_dir is not None:
        transcript = transcript_dir / mode / f"{case.id}.jsonl"
        transcript.parent.mkdir(parents=True, exist_ok=True)
    fields = {
        "mode": mode,
        "max_turns": config.max_turns,
        "samples": config.samples,
        "test_timeout_s": config.test_timeout_s,
        "model_stall_s": backend_settings.stall_s,
        "model_call_deadline_s": backend_settings.timeout_s,
        "transcript_path": transcript,
    }
    settings = runner_settings(config.test_timeout_s)
    with tempfile.TemporaryDirectory(prefix="selfdebug-everyday-") as tmp:
        work = copy_project(case, Path(tmp) / "work" / case.id)
        runner = ProjectRunner(work, settings)
        started = time.monotonic()
        try:
            walk, localize_seconds = fix_from_failure(
                work, [case.failing_test], runner, backend, cancel, settings=settings,
                budget_s=config.session_timeout_s, request_fields=fields,
            )  # fmt: skip
        finally:
            runner.close()
        outcome.wall_seconds = round(time.monotonic() - started, 3)
        outcome.discovery_seconds = localize_seconds
        found = walk.found
        outcome.suspect_rank = rank_of(case.function, found.suspects)
        outcome.evidence_rank = rank_of(case.function, walk.ranked_after())
        outcome.discovery_note = found.error or "\n".join(found.table(5))
        outcome.suspects_tried = sum(a.result is not None for a in walk.attempts)
        shown = walk.shown
        if shown is None or shown.result is None or shown.request is None:
            outcome.stop_reason = "no_tests" if found.error else "no_suspect"
            return outcome
        result, request = shown.result, shown.request
        outcome.record_session(result)
        before = result.chosen_before
        outcome.failing_found = before.total > 0 and before.passed < before.total
        outcome.tests_found = len(request.target.tests)
        outcome.found_tests = request.target.tests[:50]
        outcome.repaired = shown.suspect.target
        if shown.refused:  # the walk refused its fix (own_tests_refusal): none offered
            outcome.has_candidate, outcome.found_by = False, ""
            outcome.discovery_note += f"\nrefused: {shown.refused}"
            return outcome
        if result.fixed_file is None or result.stop_reason == "cancelled":
            return outcome
        files = {path.resolve().relative_to(work.resolve()).as_posix(): text
                 for path, text in shown.fix_files().items()}  # fmt: skip
        scores = score_fix(case, files, Path(tmp) / "score", config.test_timeout_s)
        for key, value in scores.items():
            setattr(outcome, key, value)
    return outcome


def score_fix(
    case: EverydayCase, files: Mapping[str, str], dest: Path, test_timeout_s: float
) -> dict[str, Any]:
    """`files` (relative path -> text) written into a fresh copy of the buggy project with the
    hidden check beside its tests, every test run once: the outcome's scoring fields."""
    from selfdebug.server.runner import ProjectRunner
    from selfdebug.server.runner.source_files import rewrite_source

    root = copy_project(case, dest, hidden=True)
    for relative, text in files.items():
        rewrite_source(root / relative, text)
    hidden = [f"tests/{file.name}" for file in case.hidden_files()]
    runner = ProjectRunner(root, runner_settings(test_timeout_s))
    started = time.monotonic()
    try:
        result = runner.run([*case.visible_test_files(), *hidden], timeout_s=600.0)
    finally:
        runner.close()
    visible = [t for t in result.tests if not _in(t.nodeid, hidden)]
    checks = [t for t in result.tests if _in(t.nodeid, hidden)]
    passed = sum(t.ok for t in visible)
    scores: dict[str, Any] = {
        "visible_total": len(visible),
        "visible_passed": passed,
        # the project's own tests are the judge tests; the hidden check gives the verdict
        "hidden_total": len(visible),
        "hidden_passed": passed,
        "scoring_error": result.error,
        "scoring_seconds": round(time.monotonic() - started, 3),
    }
    failed = [t for t in checks if not t.ok]
    tally = f"hidden check {len(checks) - len(failed)}/{len(checks)}"
    if result.error or not visible or not all(t.ok for t in visible):
        scores.update(verdict="wrong", verdict_how=f"a visible test fails; {tally}")
    elif checks and not failed:
        scores.update(verdict="correct", verdict_how=f"passes the {tally}")
    else:
        scores.update(
            verdict="plausible",
            verdict_how=f"passes the visible tests, fails the {tally}",
            differs_on=_first_failure(failed),
        )
    return scores


def _first_failure(failed: list[Any]) -> str:
    """The first failing hidden test and its message's first line."""
    if not failed:
        return "no hidden check ran"
    lines = (failed[0].message or "").strip().splitlines()
    return f"{failed[0].nodeid}: {lines[0] if lines else 'fails'}"


def _in(nodeid: str, files: list[str]) -> bool:
    return any(nodeid == f or nodeid.startswith(f + "::") for f in files)
