"""What a job will run: the function's tests (`TestPlan`) and the isolation they get.

Why shared: both features that run tests (run tests, self-debug) start the same way, and the
choice must be the engine's (`resolve_tests`, as for the CLI). The plain functions block (test
discovery runs pytest's collection, the first isolation check starts bubblewrap): `plan_job` runs
them in a worker thread and tells the user what it found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol.types import LogMessageParams, MessageType

from selfdebug.server.lsp import workspace_files
from selfdebug.server.lsp.edits import FunctionSnapshot
from selfdebug.server.lsp.progress import JobProgress
from selfdebug.server.lsp.settings import ServerSettings, runner_settings

if TYPE_CHECKING:
    from selfdebug.server.lsp.runners import RunnerPool
    from selfdebug.server.lsp.server import SelfDebugServer


@dataclass(frozen=True)
class TestPlan:
    project_root: Path
    tests: list[str]  # pytest node ids, relative to project_root
    found_by: str = ""  # how they were chosen, one line (shown before the model is called)
    warnings: tuple[str, ...] = ()  # e.g. a test file that fails to collect
    failing: tuple[str, ...] = ()  # those that failed when discovery ran them

    def for_session(self) -> tuple[list[str], list[str], str]:
        """The engine's split (TestChoice.for_session): the tests run for every candidate, the
        ones left to the regression check, and the note that says so."""
        from selfdebug.server.engine.request import TestChoice

        return TestChoice(self.tests, self.found_by, failing=list(self.failing)).for_session()


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
    settings: ServerSettings,
    file: Path,
    qualname: str,
    *,
    boundary: Path | None = None,
    runners: RunnerPool | None = None,
) -> TestPlan:
    """The tests that exercise `qualname`: the explicit `testSelection`, or discovery (the tests
    that execute it, cached per function: the second command on it does not run them again).

    The project root is the nearest marker inside `boundary` (the workspace folder), else the
    folder itself. Shares the engine's choice (`choose_tests`) with the CLI; raises its
    RequestError (a message fit for the user) when there are none. With `runners`, discovery
    runs in the job's warm shadow copy.
    """
    from selfdebug.server.engine import choose_tests
    from selfdebug.server.runner import find_project_root

    root = find_project_root(file, boundary)
    explicit = settings.test_selection if isinstance(settings.test_selection, list) else None
    if runners is None or explicit:
        choice = choose_tests(
            file, qualname, root, explicit, settings=runner_settings(settings), cwd=root
        )
    else:
        with runners.lend(root, runner_settings(settings)) as runner:
            choice = choose_tests(file, qualname, root, None, cwd=root, runner=runner)
    return TestPlan(
        root, choice.tests, choice.found_by, tuple(choice.warnings), tuple(choice.failing)
    )


def describe_plan(plan: TestPlan, shown: int = 5) -> str:
    """What the progress text says once the tests are chosen: how, and which."""
    names = ", ".join(plan.tests[:shown]) + (
        f" (+{len(plan.tests) - shown})" if len(plan.tests) > shown else ""
    )
    return f"{plan.found_by}: {names}" if plan.found_by else names


async def plan_job(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, settings: ServerSettings, job: JobProgress
) -> tuple[Isolation, TestPlan]:
    """The job's isolation (the fallback announced once per server and in the progress text)
    and its tests, found off the event loop; which tests and how they were found are reported
    (progress text and the log) before anything else runs."""
    isolation = await ls.in_worker(isolation_for, settings)
    ls.warn_once(isolation.warning)
    job.report(f"isolation: {isolation.label}; finding the tests")
    plan = await ls.in_worker(plan_tests, settings, snapshot.path, snapshot.qualname,
                              boundary=workspace_files.locate(ls, snapshot.uri).folder,
                              runners=ls.runners)  # fmt: skip
    job.report(describe_plan(plan))
    ls.window_log_message(
        LogMessageParams(
            type=MessageType.Info,
            message=f"tests of `{snapshot.qualname}`: {plan.found_by}\n  "
            + "\n  ".join(plan.tests),
        )
    )
    for warning in plan.warnings:
        ls.warn_once(warning)
    return isolation, plan
