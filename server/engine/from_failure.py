"""From a failing test to a fix, wherever the bug is (issue 35): the one walk behind `selfdebug
fix --test NODEID`, the editor's "self-debug this failure" and the benchmark's from-the-failure
cases.

Why a module of its own: the three front ends did the same steps, each in its own copy (rank
the project's functions, then repair the suspects in order, each fix checked with its
function's own tests). Here they are once; a front end says how a suspect's session runs (its
progress, backend, runner, cancel) and words what happened. Two phases, because the editor
shows the ranking and loads its model between them: `localize` (the ranking,
suspects/localize.py) and `repair` (the suspects' sessions under one budget, suspects/repair.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from selfdebug.server.engine.suspects.localize import FailureLocalization, localize_failure
from selfdebug.server.engine.suspects.rank import Suspect
from selfdebug.server.engine.suspects.repair import (
    MODEL_SUSPECTS,
    SUSPECTS_TRIED,
    Pairs,
    SuspectAttempt,
    evidence_table,
    failing_tests_for,
    own_tests_refusal,
    ranked_by_evidence,
    repair_suspects,
    reported,
)
from selfdebug.server.engine.types import DEFAULT_TIME_BUDGET_S

if TYPE_CHECKING:
    from selfdebug.server.cancel import CancelToken
    from selfdebug.server.engine.types import DebugRequest, DebugResult
    from selfdebug.server.runner import ProjectRunner

# A runner for one step of the walk: the editor lends a warm one from its pool each time, the
# CLI and the benchmark hold one for the whole walk (`held`).
Lend = Callable[[], AbstractContextManager["ProjectRunner"]]

# Why a walk has nothing to repair: the tests pass, they could not be run or ranked, or no
# function of the project ran in them; "" when it has suspects.
Stop = Literal["", "passing", "error", "no suspect"]


def held(runner: ProjectRunner) -> Lend:
    """`runner`, lent to every step (and closed by its owner, not by the walk)."""
    return lambda: nullcontext(runner)


@dataclass(frozen=True)
class FailureJob:
    """What a walk starts from: the failing tests (pytest node ids relative to `root`), the
    project, and the settings every suspect's session gets."""

    root: Path
    tests: tuple[str, ...]
    # build_request's keywords for each suspect's session (mode, max_turns, cwd, ...)
    session: Mapping[str, Any] = field(default_factory=dict)
    budget_s: float | None = None  # the walk's time over all its sessions; None: the default
    pairs: Pairs = "any file"  # which second functions a fix of two may take
    model_suspects: int = MODEL_SUSPECTS  # suspects an `auto` walk's model steps run on
    localize_timeout_s: float | None = None  # each of the ranking's test runs; None: the runner's

    @property
    def budget(self) -> float:
        return DEFAULT_TIME_BUDGET_S if self.budget_s is None else self.budget_s


@dataclass(frozen=True)
class WalkHooks:
    """How a front end takes part in the walk: `run` runs a suspect's session (with its own
    progress, backend, runner and cancel); the others report, or replace a step."""

    run: Callable[[Suspect, DebugRequest], DebugResult]
    # a suspect's request; default: build_request on the suspect's file with the job's settings
    # and `FailureWalk.tests_for` (raise RequestError when the suspect cannot be debugged)
    request: Callable[[Suspect], DebugRequest] | None = None
    on_start: Callable[[SuspectAttempt], None] | None = None  # a session is about to run
    on_vet: Callable[[SuspectAttempt], None] | None = None  # a fix goes to its own tests


@dataclass
class FailureWalk:
    """A walk's state and outcome: the ranking, then each suspect's attempt."""

    job: FailureJob
    found: FailureLocalization
    attempts: list[SuspectAttempt] = field(default_factory=list)
    repair_s: float = 0.0  # how long `repair` took

    @property
    def budget_spent(self) -> bool:
        """The job's budget ended the walk (or a session in it) before it found a fix."""
        shown = self.shown
        if shown is not None and shown.result is not None and shown.result.success:
            return False
        cut = any(a.result is not None and a.result.stop_reason == "time_budget"
                  for a in self.attempts)  # fmt: skip
        return cut or self.repair_s >= self.job.budget

    @property
    def untried(self) -> list[Suspect]:
        """The suspects the walk may try that got no session (the budget, or a fix, came
        first), best first."""
        ran = {a.suspect.target for a in self.attempts}
        return [s for s in self.tried if s.target not in ran]

    @property
    def stop(self) -> Stop:
        if self.found.passed:
            return "passing"
        if self.found.error:
            return "error"
        return "" if self.found.suspects else "no suspect"

    @property
    def tried(self) -> list[Suspect]:
        """The suspects the walk may try, best first."""
        return self.found.suspects[:SUSPECTS_TRIED]

    def tests_for(self, suspect: Suspect) -> list[str]:
        """The failing tests a suspect's session must make pass."""
        return failing_tests_for(self.found, suspect)

    @property
    def shown(self) -> SuspectAttempt | None:
        """The attempt to report: the fix, else the last session that ran."""
        return reported(self.attempts)

    def ranked_after(self) -> list[Suspect]:
        """The ranking once the sessions' edits count as evidence."""
        return ranked_by_evidence(self.found.suspects, self.attempts)

    def evidence_table(self) -> list[str]:
        return evidence_table(self.found, self.attempts)


def localize(job: FailureJob, lend: Lend, cancel: CancelToken | None = None) -> FailureWalk:
    """The first phase: the failing tests run and the project's functions ranked."""
    with lend() as runner:
        found = localize_failure(
            runner, job.root, list(job.tests), cancel=cancel, timeout_s=job.localize_timeout_s
        )
    return FailureWalk(job, found)


def repair(walk: FailureWalk, hooks: WalkHooks, lend: Lend) -> list[SuspectAttempt]:
    """The second phase: the suspects' sessions in order until one fixes the failure (each
    fix refused when it breaks its function's own tests), under the job's one budget. The
    attempts are kept in `walk.attempts` too."""
    job = walk.job

    def build(suspect: Suspect) -> DebugRequest:
        if hooks.request is not None:
            return hooks.request(suspect)
        from selfdebug.server.engine.request import build_request

        return build_request(
            job.root / suspect.file,
            suspect.qualname,
            tests=walk.tests_for(suspect),
            project_root=job.root,
            **job.session,
        )

    def vet(attempt: SuspectAttempt, left_s: float | None) -> str:
        if hooks.on_vet is not None:
            hooks.on_vet(attempt)
        with lend() as runner:
            return own_tests_refusal(attempt, runner, job.root, left_s)

    started = time.monotonic()
    walk.attempts = repair_suspects(
        walk.found,
        build,
        hooks.run,
        model_tried=job.model_suspects,
        budget_s=job.budget,
        on_start=hooks.on_start,
        pairs=job.pairs,
        vet=vet,
    )
    walk.repair_s = time.monotonic() - started
    return walk.attempts


def doing(attempt: SuspectAttempt) -> str:
    """What an attempt is and why its suspect: "edit search; suspect 1 of 3: ..."."""
    stage = f"{attempt.stage}; " if attempt.stage else ""
    return f"{stage}{attempt.why}"
