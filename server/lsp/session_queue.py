"""One self-debug session at a time; a request made while one runs waits its turn (first in,
first out) instead of being refused.

Why one at a time: a session holds the one model and most of the CPU for minutes. Why a queue
rather than a refusal: the user asked for the second session; making them ask again when the
first ends is work the server can do. A waiting request leaves the line when its cancel token
fires (the progress bar's cancel, `$/cancelRequest`) or its task is cancelled, without touching
the running session; when the running one ends (cancelled or not), the next in line starts.

Event-loop side: every method is called from the server's event loop (a token's cancel may come
from any thread and is handed over to the loop).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from selfdebug.server.cancel import Cancelled, CancelToken

# Told to a waiting request whenever the line moves: (the running session's name, how many
# requests wait ahead of this one).
OnWait = Callable[[str, int], None]


def queued_message(running: str, ahead: int) -> str:
    """The progress text of a waiting request."""
    more = f" and {ahead} more before it" if ahead else ""
    return f"queued behind `{running}`{more}"


@dataclass(eq=False)
class _Waiter:
    name: str
    turn: asyncio.Future[None]  # done when the session slot is handed to this request
    on_wait: OnWait


class SessionQueue:
    def __init__(self) -> None:
        self.running: str | None = None  # the name of the session that holds the slot
        self._line: deque[_Waiter] = deque()

    @contextlib.asynccontextmanager
    async def turn(self, name: str, cancel: CancelToken, on_wait: OnWait) -> AsyncIterator[bool]:
        """Hold the session slot for the body; yields whether the request had to wait. Raises
        Cancelled when `cancel` fires while it waits (it then never runs)."""
        waited = self.running is not None
        if waited:
            await self._wait(name, cancel, on_wait)
        else:
            self.running = name
        try:
            yield waited
        finally:
            self._hand_over()

    async def _wait(self, name: str, cancel: CancelToken, on_wait: OnWait) -> None:
        loop = asyncio.get_running_loop()
        waiter = _Waiter(name, loop.create_future(), on_wait)
        self._line.append(waiter)
        on_wait(self.running or "", len(self._line) - 1)

        def leave() -> None:  # any thread
            loop.call_soon_threadsafe(self._leave, waiter, cancel.reason)

        unregister = cancel.on_cancel(leave)
        try:
            await waiter.turn
        except asyncio.CancelledError:
            if waiter in self._line:
                self._leave(waiter, "")
            elif not waiter.turn.cancelled() and waiter.turn.exception() is None:
                self._hand_over()  # the slot reached it as its task was cancelled: pass it on
            raise
        finally:
            unregister()

    def _leave(self, waiter: _Waiter, reason: str) -> None:
        """A waiting request gives up its place (a no-op once its turn has come)."""
        if waiter not in self._line:
            return
        self._line.remove(waiter)
        if not waiter.turn.done():
            waiter.turn.set_exception(Cancelled(reason or "cancelled while queued"))
        self._tell_line()

    def _hand_over(self) -> None:
        """The running session ended: the slot goes to the first in line, or is free."""
        while self._line:
            waiter = self._line.popleft()
            if waiter.turn.done():  # its task was cancelled and has not left the line yet
                continue
            self.running = waiter.name
            waiter.turn.set_result(None)
            self._tell_line()
            return
        self.running = None

    def _tell_line(self) -> None:
        for ahead, waiter in enumerate(self._line):
            waiter.on_wait(self.running or "", ahead)
