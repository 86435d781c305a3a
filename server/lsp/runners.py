"""Warm shadow copies for the server's jobs: one ProjectRunner per (project, runner settings),
lent to one job at a time.

Why: the first run of a project pays for copying it (hundreds of ms to seconds on a real
project); later runs only re-sync what changed (tens of ms). A runner is never shared by two
jobs at once (overrides are per run), so a busy key gets a second copy, kept for next time too.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selfdebug.server.runner import ProjectRunner, RunnerSettings

logger = logging.getLogger(__name__)


class RunnerPool:
    def __init__(self, max_idle_per_project: int = 2) -> None:
        self._lock = threading.Lock()
        self._idle: dict[tuple[Path, str], list[ProjectRunner]] = {}
        self._max_idle = max_idle_per_project
        self._closed = False

    @contextmanager
    def lend(self, project_root: Path, settings: RunnerSettings) -> Iterator[ProjectRunner]:
        key = (Path(project_root).resolve(), repr(settings))
        with self._lock:
            idle = self._idle.get(key, [])
            runner = idle.pop() if idle else None
        if runner is None:
            runner = ProjectRunner(key[0], settings)
        try:
            yield runner
        finally:
            self._give_back(key, runner)

    def _give_back(self, key: tuple[Path, str], runner: ProjectRunner) -> None:
        runner.forget_runs()  # the next job runs its tests afresh
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if not self._closed and len(idle) < self._max_idle:
                idle.append(runner)
                return
        _close(runner)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            runners = [r for idle in self._idle.values() for r in idle]
            self._idle.clear()
        for runner in runners:
            _close(runner)


def _close(runner: ProjectRunner) -> None:
    try:
        runner.close()
    except Exception:
        logger.exception("removing a shadow copy failed")
