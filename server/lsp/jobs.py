"""The blocking work behind the commands (test discovery, test runs, the self-debug loop).

Why separate from the handlers: these are plain, typed functions that run in a worker thread, so
the event loop keeps answering requests while tests and the model run, and so they can be called
from tests without a server. Everything takes the job's CancelToken.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from selfdebug.server.backends.base import Backend
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.types import DebugRequest, DebugResult, ProgressCallback
from selfdebug.server.lsp.settings import ServerSettings, runner_settings
from selfdebug.server.runner.results import RunResult


@dataclass(frozen=True)
class TestPlan:
    project_root: Path
    tests: list[str]  # pytest node ids, relative to project_root


def plan_tests(settings: ServerSettings, file: Path, qualname: str) -> TestPlan:
    """The tests that exercise `qualname`: the explicit `testSelection`, or discovery.

    Raises the runner's DiscoveryError (its message names file and line) when none is found.
    """
    from selfdebug.server.runner import find_project_root, find_tests

    root = find_project_root(file)
    if isinstance(settings.test_selection, list):
        return TestPlan(root, list(settings.test_selection))
    candidates = find_tests(root, file, qualname, runner_settings(settings))
    return TestPlan(root, [c.nodeid for c in candidates])


def run_tests(
    settings: ServerSettings,
    plan: TestPlan,
    *,
    file: Path,
    source: str,
    cancel: CancelToken,
) -> RunResult:
    """One run of the plan's tests against the editor's text of `file` (saved or not)."""
    from selfdebug.server.runner import ProjectRunner

    runner = ProjectRunner(plan.project_root, runner_settings(settings))
    try:
        return runner.run(plan.tests, overrides={file: source}, cancel=cancel)
    finally:
        runner.close()


def debug(
    settings: ServerSettings,
    request: DebugRequest,
    backend: Backend,
    *,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> DebugResult:
    from selfdebug.server.engine import run_session
    from selfdebug.server.runner import ProjectRunner

    runner = ProjectRunner(request.project_root, runner_settings(settings))
    try:
        return run_session(request, backend, runner=runner, progress=progress, cancel=cancel)
    finally:
        runner.close()
