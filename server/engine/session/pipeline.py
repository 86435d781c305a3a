"""The session as a pipeline: its steps run in order, and the first one that gives a stop
reason ends it; a budget spent, a cancel or an error in any step ends it too, as a stop reason.

Why its own module: what a step does (steps.py, turns.py) and which steps a mode runs (plan.py)
change without touching how a run stops; pytest's session runs its named steps the same way.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from selfdebug.server.backends.base import BackendError
from selfdebug.server.cancel import Cancelled
from selfdebug.server.engine.model_calls.failed_calls import session_stop
from selfdebug.server.engine.types import StopReason

if TYPE_CHECKING:
    from selfdebug.server.engine.session.context import RunContext


class Stop(Exception):
    """Ends the run with a stop reason (budgets, cancel, errors)."""

    def __init__(self, reason: StopReason, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason: StopReason = reason
        self.message = message


# What a step lets through to the pipeline when it catches its own failures: these end the run.
PASSTHROUGH: tuple[type[BaseException], ...] = (Cancelled, Stop)


def check_budget(context: RunContext) -> None:
    """Between phases: cancel, then the time and token budgets."""
    context.cancel.raise_if_cancelled()
    remaining = context.remaining_s()
    if remaining is not None and remaining <= 0:
        raise Stop("time_budget", f"time budget of {context.request.budget.time_budget_s}s spent")
    budget = context.request.budget.token_budget
    if budget is not None and context.model.tokens_used >= budget:
        raise Stop("token_budget", f"token budget of {budget} spent")


class Step(Protocol):
    """One step of a session: a stop reason ends the run, None hands on to the next step."""

    @property
    def name(self) -> str: ...

    def run(self, context: RunContext) -> StopReason | None: ...


# The stop reason of a run whose steps all handed on (the plans never build one: their last
# step always stops, see plan.py).
NOTHING_LEFT: StopReason = "no_improvement"


@dataclass(frozen=True)
class Pipeline:
    steps: Sequence[Step]

    @property
    def names(self) -> list[str]:
        return [step.name for step in self.steps]

    def run(self, context: RunContext) -> tuple[StopReason, str]:
        """The steps in order until one stops; the stop reason and, for "error", why. Never
        raises for a session's problems (the LSP server, the CLI and the benchmark call it)."""
        try:
            for step in self.steps:
                stop = step.run(context)
                if stop is not None:
                    return stop, ""
            return NOTHING_LEFT, ""
        except Stop as halt:
            if halt.reason != "error":
                context.recorder.record("budget", reason=halt.reason, message=halt.message)
            return halt.reason, halt.message if halt.reason == "error" else ""
        except Exception as problem:
            remaining = context.remaining_s()
            stop, error = session_stop(problem, remaining is not None and remaining <= 1.0)
            if not isinstance(problem, (BackendError, Cancelled)):
                context.recorder.record("exception", traceback=traceback.format_exc())
            if stop == "time_budget":  # a model call cut by the budget: recorded as any budget
                seconds = context.request.budget.time_budget_s
                message = f"time budget of {seconds}s spent ({problem})"
                context.recorder.record("budget", reason=stop, message=message)
            return stop, error
