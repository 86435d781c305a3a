"""One real-bug case in "from the failure" form (issue 35 item 5): given only a failing test,
as a user who runs `selfdebug fix --test NODEID` is.

In a fresh clone with the bug and the project's own environment: the judge files run once to
find the case's failing tests, and the first is all the session is told. The project's functions
are ranked for its failure, the top suspects repaired in order under one time budget (the
walk: engine/from_failure.py), and the fix scored like a function-given one (the judge files,
then the strict verdict against the upstream fix). The outcome also says where the
case's function ranked and which function the fix changed.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from selfdebug.bench.real_cases import RealCase, clone_case
from selfdebug.bench.real_repair import (
    RealRunOptions,
    copy_result,
    environment,
    runner_settings,
    score_result,
)
from selfdebug.bench.repair_report import ProblemOutcome

if TYPE_CHECKING:
    from selfdebug.server.backends.base import Backend
    from selfdebug.server.cancel import CancelToken
    from selfdebug.server.engine.suspects.rank import Suspect
    from selfdebug.server.engine.types import DebugRequest, DebugResult


def solve_from_failure(
    case: RealCase, options: RealRunOptions, backend: Backend, cancel: CancelToken
) -> ProblemOutcome:
    """Clone, install, find the failing test, localize, repair the suspects, score."""
    from selfdebug.bench.real_check import run_judge
    from selfdebug.server.engine import run_session
    from selfdebug.server.engine.from_failure import FailureJob, WalkHooks, held, localize, repair
    from selfdebug.server.engine.suspects.rank import rank_of
    from selfdebug.server.runner import ProjectRunner

    outcome = ProblemOutcome(mode=options.mode, id=case.id, source=case.source, real=True)
    with tempfile.TemporaryDirectory(prefix="selfdebug-real-") as tmp:
        work = clone_case(case, options.repos, Path(tmp) / "work" / case.checkout, buggy=True)
        with environment(case, work, options) as env:
            python = env.prepare(work, options.env_cache)
            settings = runner_settings(python, options.test_timeout_s)
            judged = run_judge(case, work, python, options.test_timeout_s)
            failing = [t.nodeid for t in judged.tests if not t.ok]
            if not failing:
                outcome.stop_reason = "no_tests"
                outcome.discovery_note = "no judge test fails with the bug"
                return outcome
            outcome.from_failure_test = failing[0]
            session = {"cwd": work, "runner_settings": settings, **options.session_fields()}
            # the bench's session timeout, when given, is the walk's one budget
            job = FailureJob(
                work, (failing[0],), session, budget_s=options.session_timeout_s or None
            )
            started = time.monotonic()
            runner = ProjectRunner(work, settings)
            try:
                walk = localize(job, held(runner), cancel)
                found = walk.found
                outcome.discovery_seconds = round(time.monotonic() - started, 3)
                wanted = f"{case.path}::{case.qualname}"
                outcome.suspect_rank = rank_of(wanted, found.suspects)
                outcome.discovery_note = found.error or "\n".join(found.table(5))

                sessions = 0

                def run(_suspect: Suspect, request: DebugRequest) -> DebugResult:
                    nonlocal sessions
                    sessions += 1  # each its own transcript: bench/funnel.py reads them all
                    path = session_transcript(options.transcript, sessions)
                    reporting = dataclasses.replace(request.reporting, transcript_path=path)
                    request = dataclasses.replace(request, reporting=reporting)
                    return run_session(request, backend, runner=runner, cancel=cancel)

                attempts = repair(walk, WalkHooks(run), held(runner))
                outcome.evidence_rank = rank_of(wanted, walk.ranked_after())
            finally:
                runner.close()
            outcome.wall_seconds = round(time.monotonic() - started, 3)
            outcome.suspects_tried = sum(a.result is not None for a in attempts)
            shown = walk.shown
            if shown is None or shown.result is None or shown.request is None:
                outcome.stop_reason = "no_tests" if found.error else "no_suspect"
                return outcome
            result, request = shown.result, shown.request
            copy_result(outcome, result)
            outcome.tests_found = outcome.visible_total = len(request.target.tests)
            outcome.found_tests = request.target.tests[:50]
            outcome.repaired = shown.suspect.target
            also = {
                path.resolve().relative_to(work.resolve()).as_posix(): text
                for path, text in shown.fix_files().items()
                if path != request.target.file
            }
            if shown.refused:  # the walk refused its fix (own_tests_refusal): none offered
                outcome.has_candidate, outcome.found_by = False, ""
                outcome.discovery_note += f"\nrefused: {shown.refused}"
                return outcome
            score_result(outcome, result, shown.suspect.file, request.target.tests, Path(tmp), env,
                         settings, options, also)  # fmt: skip
            if shown.base is not None and outcome.verdict == "correct":
                # the reference fix changes the case's one function; this one changes two
                outcome.verdict = "plausible"
                outcome.verdict_how = f"changes {shown.functions()}; {outcome.verdict_how}"
    return outcome


def session_transcript(transcript: Path | None, number: int) -> Path | None:
    """The walk's `number`th session's transcript: `CASE/session-N.jsonl` beside the case's
    `CASE.jsonl` (one file for every session would keep only the last one's)."""
    if transcript is None:
        return None
    return transcript.with_suffix("") / f"session-{number}.jsonl"
