"""One `selfdebug fix` session run under a progress bar (one bar per turn), in a worker thread
so that a signal in the main thread cancels it (commands/interrupts.py); shared by both forms
(a function, or each suspect of a failing test's walk)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.engine.types import DebugRequest, DebugResult


def run_with_progress(request: DebugRequest, backend, console, runner=None) -> DebugResult:
    """Run the session in a worker thread so a signal in the main thread (Ctrl-C, SIGTERM,
    SIGHUP) cancels it cleanly."""
    from rich.markup import escape
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from selfdebug.commands.interrupts import cancelling
    from selfdebug.server.cancel import CancelToken
    from selfdebug.server.engine import run_session

    cancel = CancelToken()
    outcome: dict[str, DebugResult | BaseException] = {}
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        tasks = {0: bar.add_task("preparing", total=100)}

        def on_progress(event) -> None:
            """One bar per turn: a finished turn stays on screen with its last phase."""
            if event.turn not in tasks:
                for earlier in tasks.values():
                    bar.update(earlier, completed=100)
                tasks[event.turn] = bar.add_task(f"turn {event.turn}/{event.max_turns}", total=100)
            share = 100 / max(event.max_turns, 1)
            within = 100 * (event.percentage - (event.turn - 1) * share) / share
            bar.update(
                tasks[event.turn],
                completed=max(0, min(100, within)) if event.turn else 50,
                description=escape(event.message or event.phase),  # may name test ids
            )

        finished = threading.Event()

        def work() -> None:
            try:
                outcome["result"] = run_session(
                    request, backend, runner=runner, progress=on_progress, cancel=cancel
                )
            except BaseException as error:  # reported below, never a traceback
                outcome["error"] = error
            finally:
                finished.set()

        def on_signal(name: str) -> None:
            bar.update(tasks[max(tasks)], description=f"cancelling ({name})")

        # Ctrl-C, SIGTERM and SIGHUP cancel the session (a second one stops waiting for it).
        with cancelling(cancel, on_signal):
            threading.Thread(target=work, name="selfdebug-fix", daemon=True).start()
            while not finished.wait(0.2):
                pass
        for task in tasks.values():
            bar.update(task, completed=100)
    if "result" in outcome:
        result = outcome["result"]
        assert not isinstance(result, BaseException)
        return result
    # run_session reports every session problem in its result (stop "error", failed calls):
    # what escapes it is a bug of ours, for cli.main to report as one (exit 5, traceback saved)
    error = outcome.get("error")
    raise error if isinstance(error, BaseException) else RuntimeError("the session did not finish")
