"""Work-done progress (`window/workDoneProgress/create`, `$/progress`) for one long job, and the
user's cancel button (`window/workDoneProgress/cancel`) wired to the job's CancelToken.

Why a class: the engine reports from a worker thread, but pygls writes to the client from the event
loop; every report is handed over with `loop.call_soon_threadsafe`, so the engine never touches
the protocol.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING, cast

from lsprotocol.types import WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport

from selfdebug.server.engine.modes import STRATEGIES
from selfdebug.server.engine.types import Progress
from selfdebug.server.lsp.protocol import AnsweringProtocol

if TYPE_CHECKING:
    from selfdebug.server.engine.types import Mode
    from selfdebug.server.lsp.server import SelfDebugServer

logger = logging.getLogger(__name__)


def progress_message(event: Progress) -> str:
    """'turn 2/10, explain mode: asking the model to explain the code line by line, then fix it;
    model: 140 tokens, 6 tok/s'; without a mode (before it is resolved) the engine's own
    wording."""
    if event.mode and event.turn:
        # the mode's own step, not only "asking the model" (an `explain` turn takes longer, and why)
        strategy = STRATEGIES.get(cast("Mode", event.mode))  # unknown text: no strategy
        step = strategy.asks if strategy and event.phase == "asking the model" else ""
        head = f"turn {event.turn}/{event.max_turns}, {event.mode} mode"
        model = f"; {event.model}" if event.model else ""  # how far the running call has come
        return f"{head}: {step or event.phase}{model}"
    if event.message:
        return event.message
    return f"turn {event.turn}/{event.max_turns}: {event.phase}" if event.turn else event.phase


class JobProgress:
    """A progress bar in the editor (when the client supports one) plus the job's cancel token."""

    def __init__(self, ls: SelfDebugServer, token: str | None) -> None:
        self._ls = ls
        self._token = token
        self._loop = asyncio.get_running_loop()
        self._ended = False
        self.cancel = ls.job_token()  # cancelled too when the server stops
        protocol = cast(AnsweringProtocol, ls.protocol)
        self._unregister = protocol.cancel_with_request(self.cancel)

    @classmethod
    async def start(cls, ls: SelfDebugServer, title: str, message: str) -> JobProgress:
        window = ls.client_capabilities.window
        if window is None or not window.work_done_progress:
            return cls(ls, None)
        token = f"selfdebug-{uuid.uuid4()}"
        try:
            await ls.work_done_progress.create_async(token)
        except Exception as error:  # the client refused: run without a progress bar
            logger.warning("window/workDoneProgress/create failed: %s", error)
            return cls(ls, None)
        job = cls(ls, token)
        user_cancel = ls.work_done_progress.tokens[token]
        user_cancel.add_done_callback(lambda _: job.cancel.cancel("cancelled by the user"))
        ls.work_done_progress.begin(
            token,
            WorkDoneProgressBegin(title=title, cancellable=True, message=message, percentage=0),
        )
        return job

    def report(self, message: str, percentage: int | None = None) -> None:
        """Event-loop side."""
        if self._token is None or self._ended:
            return
        value = WorkDoneProgressReport(message=message, percentage=percentage, cancellable=True)
        self._ls.work_done_progress.report(self._token, value)

    def report_threadsafe(self, message: str, percentage: int | None = None) -> None:
        """Any thread (the engine's progress callback)."""
        self._loop.call_soon_threadsafe(self.report, message, percentage)

    def on_engine_progress(self, event: Progress) -> None:
        percentage = max(0, min(100, int(event.percentage)))
        self.report_threadsafe(progress_message(event), percentage)

    def end(self, message: str) -> None:
        self._unregister()  # the request is over: a late $/cancelRequest has nothing to stop
        if self._token is None or self._ended:
            return
        self._ended = True
        self._ls.work_done_progress.end(self._token, WorkDoneProgressEnd(message=message))
        self._ls.work_done_progress.tokens.pop(self._token, None)
