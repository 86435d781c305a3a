"""One guard per model call: the user's cancel, the stall rule and an optional fixed total, as
one cheap flag; and the call's progress, reported as it comes.

Why progress, not a fixed total: a slow CPU with a long prompt cannot meet a constant (the first
call of a session on a busy 2-core laptop ran past 120 s while it was still working), yet a
stuck call must still end. So a call is stopped when it made no progress (no prompt batch
evaluated, no token) for `stall_s`, or when a fixed total (`deadline_s`: the session's time left,
or a configured one) is spent, or at once when cancelled.

Each backend reports progress (`prompt_progress`, `token`, `alive`), polls `guard.stopped` where
it can and registers `on_stop` actions (abort a decode, close a stream) where it cannot. The flag
is a plain attribute so that llama.cpp's abort callback, called for every graph node, stays cheap;
that callback also calls `tick`: llama.cpp computing one batch of a long prompt on a busy CPU
(a minute or more for 512 tokens of the 1.5B model under load) is slow, not stalled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from selfdebug.server.backends.base import (
    BackendCancelled,
    BackendError,
    BackendStalled,
    BackendTimeout,
    CallProgress,
    ProgressSink,
)
from selfdebug.server.cancel import CancelToken

# A computing call reports at least this often (a quarter of the stall limit when that is less):
# the heartbeat by which the worker's client knows the process is alive.
TICK_REPORT_S = 1.0


class CallGuard:
    def __init__(
        self,
        deadline_s: float | None,
        cancel: CancelToken | None = None,
        *,
        stall_s: float | None = None,
        on_progress: ProgressSink | None = None,
    ) -> None:
        self.deadline_s = deadline_s
        self.stall_s = stall_s
        self.started = time.monotonic()
        self.last_progress = self.started
        self.stopped = False
        self.reason = ""  # "cancelled", "stalled" or "deadline" once stopped
        self.prompt_done = 0
        self.prompt_total = 0
        self.tokens = 0
        self.first_token_at: float | None = None
        self._reported = self.started
        self._report_every = min(TICK_REPORT_S, stall_s / 4) if stall_s else TICK_REPORT_S
        self._on_progress = on_progress
        self._cancel = cancel
        self._lock = threading.Lock()
        self._actions: list[Callable[[], None]] = []
        self._stopped_event = threading.Event()
        self._done = threading.Event()
        self._unregister: Callable[[], None] = lambda: None

    def __enter__(self) -> CallGuard:
        self.started = self.last_progress = time.monotonic()
        if self.deadline_s is not None or self.stall_s is not None:
            watchdog = threading.Thread(target=self._watch, name="call-guard", daemon=True)
            watchdog.start()
        if self._cancel is not None:
            self._unregister = self._cancel.on_cancel(lambda: self.stop("cancelled"))
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._done.set()
        self._unregister()

    def _watch(self) -> None:
        """Wake when the next limit would pass; a progress report moves the stall limit on."""
        while not self._done.is_set() and not self.stopped:
            now = time.monotonic()
            waits = []
            if self.deadline_s is not None:
                left = self.started + self.deadline_s - now
                if left <= 0:
                    self.stop("deadline")
                    return
                waits.append(left)
            if self.stall_s is not None:
                left = self.last_progress + self.stall_s - now
                if left <= 0:
                    self.stop("stalled")
                    return
                waits.append(left)
            self._done.wait(min(waits) + 0.005)

    # -- progress ------------------------------------------------------------------------------

    def alive(self) -> None:
        """Progress without a count (a stream's first bytes, the model loaded)."""
        self.last_progress = time.monotonic()
        self._report()

    def tick(self) -> None:
        """The model is computing (llama.cpp's abort callback, per graph node): progress, and a
        report now and then so that whoever waits knows the call is alive."""
        now = time.monotonic()
        self.last_progress = now
        if now - self._reported >= self._report_every:
            self._report()

    def prompt_progress(self, done: int, total: int) -> None:
        """`done` of the prompt's `total` tokens are evaluated (or came from the KV cache)."""
        self.prompt_done, self.prompt_total = done, total
        self.alive()

    def token(self, count: int = 1) -> None:
        now = time.monotonic()
        if self.first_token_at is None:
            self.first_token_at = now
        self.tokens += count
        self.last_progress = now
        self._report()

    def progress(self) -> CallProgress:
        now = time.monotonic()
        first = self.first_token_at
        return CallProgress(
            seconds=now - self.started,
            prompt_done=self.prompt_done,
            prompt_total=self.prompt_total,
            tokens=self.tokens,
            generating_s=now - first if first is not None else 0.0,
        )

    def _report(self) -> None:
        self._reported = time.monotonic()
        if self._on_progress is None:
            return
        try:
            self._on_progress(self.progress())
        except Exception:  # a broken progress sink must not fail the call
            pass

    # -- limits --------------------------------------------------------------------------------

    def remaining(self) -> float:
        """Seconds until the fixed total, if any (the stall limit aside)."""
        if self.deadline_s is None:
            return float("inf")
        return max(self.deadline_s - (time.monotonic() - self.started), 0.0)

    def wait_timeout(self, slack_s: float = 5.0) -> float:
        """A timeout for one blocking read (a socket): past it the guard has stopped anyway."""
        limit = min(self.remaining(), self.stall_s if self.stall_s is not None else float("inf"))
        return 3600.0 if limit == float("inf") else max(limit, 0.1) + slack_s

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True at once when the call is stopped."""
        return self._stopped_event.wait(seconds)

    def stop(self, reason: str) -> None:
        with self._lock:
            if self.stopped:
                return
            self.reason = reason
            self.stopped = True
            actions, self._actions = self._actions, []
        self._stopped_event.set()
        for action in actions:
            try:
                action()
            except Exception:  # best effort: stopping must never raise in a timer thread
                pass

    def on_stop(self, action: Callable[[], None]) -> None:
        """Run `action` when the call is stopped (at once if it already is)."""
        with self._lock:
            if not self.stopped:
                self._actions.append(action)
                return
        action()

    def where(self) -> str:
        """How far the call had come, for an error message."""
        if self.tokens:
            return f"after {self.tokens} tokens"
        if self.prompt_total:
            return f"while reading the prompt, {self.prompt_done}/{self.prompt_total} tokens"
        return "before its first token"

    def error(self, what: str) -> BackendError:
        """The typed error for a stopped call; `what` names the call for the user."""
        if self.reason == "cancelled":
            return BackendCancelled(f"{what} was cancelled")
        if self.reason == "stalled":
            return BackendStalled(
                f"{what} made no progress for {self.stall_s:g} s ({self.where()})"
            )
        return BackendTimeout(
            f"{what} did not finish within its {self.deadline_s:g} s deadline ({self.where()})"
        )

    def raise_if_stopped(self, what: str) -> None:
        if self.stopped:
            raise self.error(what)
