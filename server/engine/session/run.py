"""One self-debugging session: run the tests, localize, search, ask the model, check and run its
candidates, until the chosen tests pass or a stop rule fires; the steps are the requested mode's
(plan.py), run in order by the pipeline (pipeline.py).

The user's file is never written here: the session works on text and runs every version in the
runner's shadow copy (through `overrides`). The result carries the evidence ("passes N/M chosen,
K/L wider") and a diff the caller may offer to apply.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from selfdebug.server.backends.base import Backend, BackendCancelled
from selfdebug.server.cancel import Cancelled, CancelToken
from selfdebug.server.engine.recorder import Recorder
from selfdebug.server.engine.session.context import RunContext
from selfdebug.server.engine.session.pipeline import Stop
from selfdebug.server.engine.session.plan import plan_session
from selfdebug.server.engine.session_result import session_result, unlocated_result
from selfdebug.server.engine.target import (
    TargetFunction,
    TargetNotFound,
    TargetUnreadable,
    read_target,
    relative_label,
)
from selfdebug.server.engine.transcript import Transcript
from selfdebug.server.engine.turn import guard
from selfdebug.server.engine.types import DebugRequest, DebugResult, ProgressCallback

if TYPE_CHECKING:
    from selfdebug.server.runner import ProjectRunner


class Session:
    """A session on a located function (see `run_session`, which locates it first): its
    context, its steps, and what it hands back."""

    def __init__(
        self,
        request: DebugRequest,
        backend: Backend,
        source: str,
        target: TargetFunction,
        *,
        runner: ProjectRunner | None,
        recorder: Recorder,
        cancel: CancelToken | None,
        started: float,
    ) -> None:
        plan = plan_session(request, source, target)
        self.pipeline = plan.pipeline
        self.context = RunContext(
            request,
            backend,
            source,
            target,
            plan.modes,
            runner=runner,
            recorder=recorder,
            cancel=cancel,
            started=started,
        )

    def run(self) -> DebugResult:
        context = self.context
        if not context.request.target.pinned_files:
            return self._run()
        with context.runner.pinned(context.request.target.pinned_files):
            return self._run()

    def _run(self) -> DebugResult:
        context = self.context
        stop, error = self.pipeline.run(context)
        try:
            if stop not in ("cancelled", "error", "passed"):
                _final_guard(context)
        except (Cancelled, BackendCancelled):  # cancelled while the wider tests ran
            context.best, stop = None, "cancelled"
        except Exception as problem:
            context.best = None
            error = error or f"regression guard failed: {problem}"
        result = session_result(context, stop, error)
        context.recorder.session_end(result)
        self.close()
        return result

    def close(self) -> None:
        self.context.recorder.close()
        self.context.close_runner()


def _final_guard(context: RunContext) -> None:
    """A partial improvement is proposed only if it also keeps the wider tests; when the time
    budget leaves no time to run them, it is proposed unguarded and says so (the session ends
    with what it has, never past its budget)."""
    if context.best is None or context.best.run is None or context.best_wider is not None:
        return
    if not context.request.target.wider_tests:
        return
    unguarded = "the time budget was spent before the wider tests ran on the best partial candidate"
    try:
        broken, wider = guard(context, context.best)
    except Stop as spent:
        if spent.reason != "time_budget":
            raise
        context.warnings.append(unguarded)
        return
    remaining = context.remaining_s()
    if wider is not None and wider.timed_out and remaining is not None and remaining <= 1.0:
        context.warnings.append(unguarded)  # the run was cut by the budget, not by the fix
        return
    if not broken:
        context.best_wider = wider
    else:
        context.warnings.append("the best partial candidate broke a wider test; not proposed")
        context.best, context.fixed_at_turn = None, None


def run_session(
    request: DebugRequest,
    backend: Backend,
    *,
    runner: ProjectRunner | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> DebugResult:
    """Debug `request.target`'s function with `backend`; see the module docstring.
    Creates (and closes) a ProjectRunner when none is given. Never raises for session problems:
    they come back as stop_reason "error" with `DebugResult.error` set."""
    started = time.monotonic()
    recorder = Recorder(Transcript(request.reporting.transcript_path), progress)
    try:
        source, target = read_target(
            request.target.file, request.target.qualname, request.target.source_override
        )
    except TargetNotFound as error:
        where = (
            ""
            if isinstance(error, TargetUnreadable)
            else relative_label(request.target.file, request.target.project_root) + ": "
        )
        result = unlocated_result(request, f"{where}{error}", started)
        recorder.session_end(result)
        recorder.close()
        return result
    session = Session(
        request,
        backend,
        source,
        target,
        runner=runner,
        recorder=recorder,
        cancel=cancel,
        started=started,
    )
    return session.run()
