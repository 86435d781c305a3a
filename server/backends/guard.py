"""One guard per model call: the overall deadline and the user's cancel, as one cheap flag.

Why: a model call can block in places we do not control (llama.cpp evaluating a long prompt, an
HTTP read from a server that never answers). Each backend polls `guard.stopped` where it can and
registers `on_stop` actions (abort a decode, close a stream) for where it cannot. The flag is a
plain attribute so that llama.cpp's abort callback, called for every graph node, stays cheap.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from selfdebug.server.backends.base import BackendCancelled, BackendError, BackendTimeout
from selfdebug.server.cancel import CancelToken


class CallGuard:
    def __init__(self, deadline_s: float, cancel: CancelToken | None = None) -> None:
        self.deadline_s = deadline_s
        self.started = time.monotonic()
        self.stopped = False
        self.reason = ""  # "cancelled" or "deadline" once stopped
        self._cancel = cancel
        self._lock = threading.Lock()
        self._actions: list[Callable[[], None]] = []
        self._timer: threading.Timer | None = None
        self._unregister: Callable[[], None] = lambda: None

    def __enter__(self) -> CallGuard:
        self._timer = threading.Timer(max(self.deadline_s, 0.0), self.stop, args=("deadline",))
        self._timer.daemon = True
        self._timer.start()
        if self._cancel is not None:
            self._unregister = self._cancel.on_cancel(lambda: self.stop("cancelled"))
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._unregister()

    def remaining(self) -> float:
        return max(self.deadline_s - (time.monotonic() - self.started), 0.0)

    def stop(self, reason: str) -> None:
        with self._lock:
            if self.stopped:
                return
            self.reason = reason
            self.stopped = True
            actions, self._actions = self._actions, []
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

    def error(self, what: str) -> BackendError:
        """The typed error for a stopped call; `what` names the call for the user."""
        if self.reason == "cancelled":
            return BackendCancelled(f"{what} was cancelled")
        return BackendTimeout(f"{what} did not finish within its {self.deadline_s:g} s deadline")

    def raise_if_stopped(self, what: str) -> None:
        if self.stopped:
            raise self.error(what)
