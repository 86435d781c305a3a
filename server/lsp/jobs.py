"""The blocking work behind the commands (test discovery, test runs, the self-debug loop).

Why separate from the handlers: these are plain, typed functions that run in a worker thread, so
the event loop keeps answering requests while tests and the model run, and so they can be called
from tests without a server. Everything takes the job's CancelToken.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfdebug.server.backends.base import Backend
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.types import DebugRequest, DebugResult, ProgressCallback
from selfdebug.server.lsp.runners import RunnerPool
from selfdebug.server.lsp.settings import ServerSettings, runner_settings
from selfdebug.server.runner.results import RunResult


@dataclass(frozen=True)
class TestPlan:
    project_root: Path
    tests: list[str]  # pytest node ids, relative to project_root


@dataclass(frozen=True)
class Isolation:
    mode: str  # "bwrap" or "rlimits"
    warning: str  # "" under bubblewrap

    @property
    def label(self) -> str:
        """What the progress bar and the report say."""
        return "sandboxed: bubblewrap" if self.mode == "bwrap" else "NOT sandboxed: rlimits"


def isolation_for(settings: ServerSettings) -> Isolation:
    """The isolation tests get under these settings; SandboxUnavailable (with how to install
    bubblewrap) when `requireSandbox` or `isolation: bwrap` cannot be met. Blocking the first
    time (one bubblewrap start)."""
    from selfdebug.server.runner.sandbox import choose_isolation, isolation_warning

    mode = choose_isolation(settings.isolation, require_sandbox=settings.require_sandbox)
    return Isolation(mode, isolation_warning(mode))


def plan_tests(
    settings: ServerSettings, file: Path, qualname: str, *, boundary: Path | None = None
) -> TestPlan:
    """The tests that exercise `qualname`: the explicit `testSelection`, or discovery.

    The project root is the nearest marker inside `boundary` (the workspace folder), else the
    folder itself. Shares the engine's choice (`resolve_tests`) with the CLI; raises its
    RequestError (a message fit for the user) when there are none.
    """
    from selfdebug.server.engine import resolve_tests
    from selfdebug.server.runner import find_project_root

    root = find_project_root(file, boundary)
    explicit = settings.test_selection if isinstance(settings.test_selection, list) else None
    tests = resolve_tests(
        file, qualname, root, explicit, settings=runner_settings(settings), cwd=root
    )
    return TestPlan(root, tests)


def run_tests(
    settings: ServerSettings,
    plan: TestPlan,
    *,
    runners: RunnerPool,
    file: Path,
    source: str,
    cancel: CancelToken,
) -> RunResult:
    """One run of the plan's tests against the editor's text of `file` (saved or not)."""
    with runners.lend(plan.project_root, runner_settings(settings)) as runner:
        return runner.run(plan.tests, overrides={file: source}, cancel=cancel)


class BaselineObserver:
    """A ProjectRunner stand-in that hands the engine's baseline run to `on_baseline`.

    Why: the server publishes the failing tests as diagnostics as soon as they are known, and the
    engine's first run (the chosen tests on the user's unmodified text, no probes) is exactly that
    run; observing it spares a second pytest run per session. Every call goes to the real runner.
    """

    def __init__(
        self,
        runner: Any,
        *,
        file: Path,
        source: str,
        tests: list[str],
        on_baseline: Callable[[RunResult], None],
    ) -> None:
        self._runner = runner
        self._file = file.resolve()
        self._source = source
        self._tests = list(tests)
        self._on_baseline: Callable[[RunResult], None] | None = on_baseline

    def run(
        self,
        nodeids: Sequence[str],
        *,
        overrides: Mapping[Path, str] | None = None,
        probes: bool = False,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
    ) -> RunResult:
        result = self._runner.run(
            nodeids, overrides=overrides, probes=probes, cancel=cancel, timeout_s=timeout_s
        )
        if self._on_baseline is not None and self._is_baseline(nodeids, overrides, probes):
            report, self._on_baseline = self._on_baseline, None
            report(result)
        return result

    def _is_baseline(
        self, nodeids: Sequence[str], overrides: Mapping[Path, str] | None, probes: bool
    ) -> bool:
        texts = {Path(path).resolve(): text for path, text in (overrides or {}).items()}
        return (
            not probes
            and list(nodeids) == self._tests
            and texts.get(self._file, self._source) == self._source
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)


def debug(
    settings: ServerSettings,
    request: DebugRequest,
    backend: Backend,
    *,
    runners: RunnerPool,
    progress: ProgressCallback,
    cancel: CancelToken,
    on_baseline: Callable[[RunResult], None],
) -> DebugResult:
    """The self-debugging loop; `on_baseline` gets the first run of the chosen tests."""
    from selfdebug.server.engine import run_session

    with runners.lend(request.project_root, runner_settings(settings)) as runner:
        observed = BaselineObserver(
            runner,
            file=request.file,
            source=request.source_override or "",
            tests=request.tests,
            on_baseline=on_baseline,
        )
        return run_session(
            request,
            backend,
            runner=observed,  # type: ignore[arg-type]
            progress=progress,
            cancel=cancel,
        )
