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

    Shares the engine's choice (`resolve_tests`) with the CLI; raises its RequestError (a
    message fit for the user) when there are none.
    """
    from selfdebug.server.engine import resolve_tests
    from selfdebug.server.runner import find_project_root

    root = find_project_root(file)
    explicit = settings.test_selection if isinstance(settings.test_selection, list) else None
    tests = resolve_tests(
        file, qualname, root, explicit, settings=runner_settings(settings), cwd=root
    )
    return TestPlan(root, tests)


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
