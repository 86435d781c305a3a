"""SIGINT, SIGTERM and SIGHUP end a command alike: the job that runs is cancelled (its test
processes stopped, its working folder removed) and the command exits 128 + the signal.

Why one place: only Ctrl-C did this. A SIGTERM (a CI timeout, systemd, `kill`) or a SIGHUP (the
terminal closed) ended the process on the spot, before any cleanup, and left its shadow copy of
the project behind. `stopping()` wraps a whole command (cli.py): each of these signals then
unwinds it the way Ctrl-C does (`Interrupted` is a KeyboardInterrupt), so every `finally` runs.
Around a job that runs in another thread, `cancelling(token)` makes the first signal a cancel
the job sees, and a second one `Interrupted` (stop waiting).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.cancel import CancelToken

SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
Handler = Callable[[int, FrameType | None], None]

_received: list[int] = []  # the signals that arrived since `stopping()` began (process-wide)


class Interrupted(KeyboardInterrupt):
    """A signal ended the command; `signum` gives its exit code (exit_codes.for_signal)."""

    def __init__(self, signum: int) -> None:
        super().__init__(describe(signum))
        self.signum = signum


def describe(signum: int) -> str:
    """How the progress text names a signal: "Ctrl-C", "SIGTERM", "SIGHUP"."""
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def received() -> int | None:
    """The first signal that arrived since `stopping()` began; None when none did."""
    return _received[0] if _received else None


@contextlib.contextmanager
def _handling(handler: Handler) -> Iterator[None]:
    """`handler` for every signal of SIGNALS in the block (only the main thread can set one)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


@contextlib.contextmanager
def stopping() -> Iterator[None]:
    """For a whole command: each signal raises `Interrupted` in the main thread."""
    _received.clear()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        _received.append(signum)
        raise Interrupted(signum)

    with _handling(on_signal):
        yield


@contextlib.contextmanager
def cancelling(
    cancel: CancelToken, on_cancel: Callable[[str], None] | None = None
) -> Iterator[None]:
    """While a job runs in another thread: the first signal cancels `cancel` (after
    `on_cancel(describe(signum))`, for the progress text); a second raises `Interrupted`."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        _received.append(signum)
        if cancel.cancelled:  # asked twice: stop waiting for the job
            raise Interrupted(signum)
        if on_cancel is not None:
            on_cancel(describe(signum))
        cancel.cancel(f"interrupted by {describe(signum)}")

    with _handling(on_signal):
        yield
