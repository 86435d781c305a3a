"""A model call that failed ends its turn, not the session (issue 24).

Why: on a busy laptop the first call of a session once ran past a fixed deadline and the session
ended `error` before the edit search, which needs no model, ever ran; run again, it was fixed. So
a call that stalls, runs past its deadline or fails is recorded and the session goes on while its
budget lasts (`auto`: the next mode of its plan; a single mode: its next turn). Only the
user's cancel, the session's budget and a backend that cannot start end a session early.

This module decides which errors are which, and says what failed in words that name the setting
that changes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from selfdebug.server.backends.base import (
    BackendCancelled,
    BackendConfigError,
    BackendError,
    BackendStalled,
    BackendStartFailed,
    BackendTimeout,
    BackendUnreachable,
)
from selfdebug.server.cancel import Cancelled

if TYPE_CHECKING:
    from selfdebug.server.engine.types import StopReason

# The settings that change each limit, as the CLI and the editors spell them.
STALL_SETTING = "--stall-limit / modelStallSeconds"
DEADLINE_SETTING = "--call-deadline / modelCallDeadline"

# These end the session: the user asked to stop, or no later call can do better (no model
# configured, a missing key, an endpoint that does not answer at all, a model process that dies
# before it ever answered). A model process that dies after answering is a failed call: the next
# one starts a fresh process.
ENDS_SESSION: tuple[type[BackendError], ...] = (
    BackendCancelled,
    BackendConfigError,
    BackendUnreachable,
    BackendStartFailed,
)


@dataclass(frozen=True)
class FailedCall:
    """One model call that gave no answer, and why."""

    turn: int
    step: str  # the prompt step ("fix_ut", "add_prints", ...)
    mode: str
    kind: str  # "stalled" (no progress), "deadline" (ran past a fixed total) or "failed"
    seconds: float  # how long the call ran before it was given up
    message: str  # the backend's own words

    def describe(self) -> str:
        """What the user reads: "turn 1: the model call stalled after 40 s: ...", with the
        setting that changes the limit it ran into."""
        after = f"after {self.seconds:.0f} s: {self.message}"
        if self.kind == "stalled":
            return f"turn {self.turn}: the model call stalled {after} ({STALL_SETTING})"
        if self.kind == "deadline":
            return f"turn {self.turn}: the model call was stopped {after} ({DEADLINE_SETTING})"
        return f"turn {self.turn}: the model call failed {after}"


class CallFailed(Exception):
    """Raised by ModelCaller.ask for a call that failed in a way the session survives."""

    def __init__(self, call: FailedCall) -> None:
        super().__init__(call.describe())
        self.call = call


def ends_session(error: BackendError) -> bool:
    return isinstance(error, ENDS_SESSION)


def kind_of(error: BackendError) -> str:
    if isinstance(error, BackendStalled):
        return "stalled"
    if isinstance(error, BackendTimeout):
        return "deadline"
    return "failed"


def session_stop(error: BaseException, budget_spent: bool) -> tuple[StopReason, str]:
    """The stop reason and error text of a session that `error` ended: cancel, the time budget
    (a call cut short by the session's own deadline), else an error."""
    if isinstance(error, (Cancelled, BackendCancelled)):
        return "cancelled", ""
    if isinstance(error, BackendTimeout) and budget_spent:
        return "time_budget", ""
    if isinstance(error, BackendError):
        return "error", str(error)
    return "error", f"{type(error).__name__}: {error}"
