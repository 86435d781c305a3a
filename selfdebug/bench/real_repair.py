"""One real-bug case through the engine, as a user would meet it, then scored by its judge.

Why a module of its own: a real case is not a one-file problem. It runs in a fresh clone of the
repository with the bug patch applied, with the project's own environment (`project_env.py`),
and NO tests named: the tests come from the same discovery the CLI uses (`build_request`), so
discovery is part of what is measured. The proposed file is then written into a second fresh
clone and judged by the project's own test files for that module (`judge`), which the case
folder names and the session never chooses. The outcome says how many tests discovery found,
whether one of them failed on the bug (without that the model has nothing to go on), and the
usual fixed / plausible but wrong / not fixed, and the strict verdict (judge.py): correct,
plausible or wrong, the candidate compared with the upstream fix over the project's whole suite.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.bench.judge import WRONG, judge_real, reference_clone
from selfdebug.bench.real_cases import CaseError, RealCase, clone_case
from selfdebug.bench.repair_report import ProblemOutcome

if TYPE_CHECKING:
    from selfdebug.server.backends.base import Backend
    from selfdebug.server.cancel import CancelToken


@dataclass(frozen=True)
class RealRunOptions:
    """What a real case's session needs besides the engine's settings."""

    repos: Path | None  # the folder holding the git checkouts
    env_cache: Path  # where the projects' environments are kept
    mode: str
    max_turns: int
    samples: int
    test_timeout_s: float
    session_timeout_s: float | None
    model_stall_s: float  # DebugRequest.model_stall_s
    model_call_deadline_s: float  # DebugRequest.model_call_deadline_s (0: none)
    transcript: Path | None
    python: Path | None = None  # use this interpreter as it is instead of project environments

    def session_fields(self) -> dict[str, Any]:
        """The DebugRequest fields every session of a case gets."""
        return {
            "mode": self.mode,
            "max_turns": self.max_turns,
            "samples": self.samples,
            "test_timeout_s": self.test_timeout_s,
            "model_stall_s": self.model_stall_s,
            "model_call_deadline_s": self.model_call_deadline_s,
            "transcript_path": self.transcript,
            "record_candidates": True,  # the funnel (funnel.py) reads them
        }


class _Environment:
    """The python a case runs with, and how a new clone is installed into it."""

    def __init__(self, case: RealCase, options: RealRunOptions, env: Path | None) -> None:
        self.case, self.env = case, env
        self.python = options.python

    def prepare(self, clone: Path, cache: Path) -> Path:
        from selfdebug.bench.project_env import ensure_environment

        if self.python is None:
            self.python = ensure_environment(self.case, clone, cache)
        return self.python

    def install(self, clone: Path) -> None:
        from selfdebug.bench.project_env import install_clone

        if self.env is not None:
            install_clone(self.case, self.env, clone)


@contextmanager
def environment(case: RealCase, clone: Path, options: RealRunOptions) -> Iterator[_Environment]:
    from selfdebug.bench.project_env import hold

    if options.python is not None:
        yield _Environment(case, options, None)
        return
    with hold(case, clone, options.env_cache) as env:
        yield _Environment(case, options, env)


def runner_settings(python: Path, test_timeout_s: float) -> Any:
    from selfdebug.server.runner import RunnerSettings

    return RunnerSettings(interpreter=str(python), test_timeout_s=test_timeout_s)


def solve_real_case(
    case: RealCase, options: RealRunOptions, backend: Backend, cancel: CancelToken
) -> ProblemOutcome:
    """Clone, install, discover, debug, score. A case that cannot be set up (clone, patch,
    install) raises CaseError: a harness error, retried on resume, never a result. (Given only
    a failing test, a case is solved by real_from_failure.py instead.)"""
    from selfdebug.server.engine import run_session
    from selfdebug.server.engine.request import RequestError, build_request
    from selfdebug.server.runner import ProjectRunner

    outcome = ProblemOutcome(mode=options.mode, id=case.id, source=case.source, real=True)
    with tempfile.TemporaryDirectory(prefix="selfdebug-real-") as tmp:
        work = clone_case(case, options.repos, Path(tmp) / "work" / case.checkout, buggy=True)
        with environment(case, work, options) as env:
            python = env.prepare(work, options.env_cache)
            settings = runner_settings(python, options.test_timeout_s)
            started = time.monotonic()
            try:
                request = build_request(
                    work / case.path,
                    case.qualname,
                    project_root=work,
                    cwd=work,
                    runner_settings=settings,
                    time_budget_s=options.session_timeout_s,
                    **options.session_fields(),
                )
            except RequestError as error:
                outcome.discovery_seconds = round(time.monotonic() - started, 3)
                outcome.wall_seconds = outcome.discovery_seconds
                outcome.stop_reason = "no_tests"
                outcome.discovery_note = str(error)[:2000]
                return outcome
            outcome.discovery_seconds = round(time.monotonic() - started, 3)
            outcome.tests_found = len(request.target.tests)
            outcome.discovery_note = request.target.tests_found_by  # how discovery chose them
            outcome.found_tests = request.target.tests[:50]
            runner = ProjectRunner(work, settings)
            try:
                result = run_session(request, backend, runner=runner, cancel=cancel)
            finally:
                runner.close()
            outcome.wall_seconds = round(time.monotonic() - started, 3)
            copy_result(outcome, result)
            outcome.visible_total = len(request.target.tests)
            score_result(outcome, result, case.path, request.target.tests, Path(tmp), env, settings,
                         options)  # fmt: skip
    return outcome


def score_result(
    outcome: ProblemOutcome,
    result: Any,
    path: str,
    tests: list[str],
    tmp: Path,
    env: _Environment,
    settings: Any,
    options: RealRunOptions,
    also: Mapping[str, str] | None = None,
) -> None:
    """A session's proposed file (`path`, relative) written into a fresh clone of `env`'s case
    with the bug, installed, and scored into `outcome` (score_real): nothing when there is
    none, or the session was cancelled. `also`: more files the fix writes (relative path ->
    text: a fix of two functions in two files)."""
    from selfdebug.server.runner.source_files import rewrite_source

    if result.fixed_file is None or result.stop_reason == "cancelled":
        return
    case = env.case
    score = clone_case(case, options.repos, tmp / "score" / case.checkout, buggy=True)
    for relative, text in {**(also or {}), path: result.fixed_file}.items():
        rewrite_source(score / relative, text)  # as the project's file is encoded
    env.install(score)
    scores = score_real(case, score, tests, settings, repos=options.repos)
    for key, value in scores.items():
        setattr(outcome, key, value)


def copy_result(outcome: ProblemOutcome, result: Any) -> None:
    outcome.record_session(result)
    before = result.chosen_before
    outcome.failing_found = before.total > 0 and before.passed < before.total


def score_real(
    case: RealCase,
    clone: Path,
    visible: list[str],
    settings: Any,
    *,
    repos: Path | None = None,
    judge: bool = True,
) -> dict[str, Any]:
    """The tests discovery chose (visible) and the judge files, run on the candidate in `clone`;
    with `judge`, then the strict verdict (judge.py): the candidate against the upstream fix (a
    fresh clone from `repos`) on every call of the project's whole suite."""
    from selfdebug.server.runner import ProjectRunner

    runner = ProjectRunner(clone, settings)
    started = time.monotonic()
    try:
        result = runner.run(list(dict.fromkeys([*visible, *case.judge])), timeout_s=1800.0)
    finally:
        runner.close()
    judged = [t for t in result.tests if _in_judge(t.nodeid, case)]
    passed = {t.nodeid for t in result.tests if t.ok}
    if not judged and not result.error:
        raise CaseError(f"{case.id}: the judge files collected no test")
    scores: dict[str, Any] = {
        "visible_passed": sum(i in passed for i in visible),
        "hidden_passed": sum(t.ok for t in judged),
        "hidden_total": len(judged),
        "scoring_error": result.error,
    }
    if judge:
        all_pass = all(i in passed for i in visible) and all(t.ok for t in judged)
        if all_pass and not result.error:
            with reference_clone(case, repos) as reference:
                python = settings.interpreter
                scores.update(judge_real(case, clone, reference, python).fields())
        else:
            scores.update(WRONG.fields())
    scores["scoring_seconds"] = round(time.monotonic() - started, 3)
    return scores


def _in_judge(nodeid: str, case: RealCase) -> bool:
    return any(nodeid == j or nodeid.startswith(j + "::") for j in case.judge)
