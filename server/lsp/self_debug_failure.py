"""`selfdebug.debugFailure` and `selfdebug.proposeFailureFix`: self-debug a failing test, wherever
the bug is (issue 35).

Argument: the test function, as for `selfdebug.selfDebug` ({uri, qualname | position, version?,
mode?}). The test is run, the project's functions ranked for its failure (engine/suspects/): the
ranking is shown first (the progress names the suspects, each gets an Information diagnostic
with its score, the log has the table), then the usual session runs on the top suspects in order
under one time budget (the walk: engine/from_failure.py) and the first fix is delivered like
any other (applied after confirmation, or proposed for review), naming the function it changed
and why that function was chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol.types import (
    Diagnostic,
    DiagnosticSeverity,
    LogMessageParams,
    MessageType,
)
from pygls.uris import from_fs_path

from selfdebug.server.engine.from_failure import (
    FailureJob,
    WalkHooks,
    doing,
    localize,
    repair,
)
from selfdebug.server.engine.modes import Mode
from selfdebug.server.engine.request import RequestError
from selfdebug.server.engine.suspects.localize import FailureLocalization
from selfdebug.server.engine.suspects.rank import Suspect
from selfdebug.server.engine.suspects.repair import SuspectAttempt, why_chosen
from selfdebug.server.engine.types import DebugRequest, DebugResult
from selfdebug.server.lsp import workspace_files
from selfdebug.server.lsp.arguments import FunctionTarget, parse_target
from selfdebug.server.lsp.diagnostics import SOURCE
from selfdebug.server.lsp.edits import FunctionSnapshot
from selfdebug.server.lsp.planning import isolation_for
from selfdebug.server.lsp.positions import line_range
from selfdebug.server.lsp.progress import JobProgress
from selfdebug.server.lsp.self_debug import (
    SessionRun,
    conclude,
    load_backend,
    one_session,
    plain_report,
    send_report,
    session_request,
    session_runner,
)
from selfdebug.server.lsp.server import SelfDebugServer  # pygls reads the handlers' annotations
from selfdebug.server.lsp.settings import ServerSettings, runner_settings
from selfdebug.server.lsp.targets import resolve_async

if TYPE_CHECKING:
    from selfdebug.server.runner import ProjectRunner

DEBUG_FAILURE = "selfdebug.debugFailure"
PROPOSE_FAILURE_FIX = "selfdebug.proposeFailureFix"
SUSPECTS_SHOWN = 5  # diagnostics and progress text


def register(server: SelfDebugServer) -> None:
    @server.command(DEBUG_FAILURE)
    async def debug_failure_command(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        return await debug_failure(ls, parse_target(arguments))

    @server.command(PROPOSE_FAILURE_FIX)
    async def propose_failure_fix_command(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        answer = await debug_failure(ls, parse_target(arguments), propose=True)
        return {"proposal": None, **answer}


def pytest_nodeid(root: Path, file: Path, qualname: str) -> str:
    """pytest's node id of a test function: `tests/test_x.py::TestA::test_b`."""
    relative = file.resolve().relative_to(root.resolve()).as_posix()
    return "::".join([relative, *qualname.split(".")])


async def debug_failure(
    ls: SelfDebugServer, target: FunctionTarget, *, propose: bool = False
) -> dict[str, Any]:
    async def body(test: FunctionSnapshot, settings: ServerSettings, job: JobProgress) -> Any:
        return await _debug_failure(ls, test, settings, target.mode, job, propose)

    title = "Self-debug the failure of `{}`"
    return await one_session(ls, target, title, "running the test", body)


async def _debug_failure(
    ls: SelfDebugServer,
    test: FunctionSnapshot,
    settings: ServerSettings,
    mode: Mode | None,
    job: JobProgress,
    propose: bool,
) -> dict[str, Any]:
    from selfdebug.server.runner import find_project_root

    isolation = await ls.in_worker(isolation_for, settings)
    ls.warn_once(isolation.warning)
    root = find_project_root(test.path, workspace_files.locate(ls, test.uri).folder)
    nodeid = pytest_nodeid(root, test.path, test.qualname)
    job.report(f"isolation: {isolation.label}; running {nodeid}")

    def lend() -> AbstractContextManager[ProjectRunner]:  # a warm runner for each step
        return ls.runners.lend(root, runner_settings(settings))

    failure = FailureJob(
        root,
        (nodeid,),
        budget_s=settings.time_budget_seconds,
        pairs="same file",  # a proposal is reviewed as one document
    )
    walk = await ls.in_worker(localize, failure, lend, job.cancel)
    found = walk.found
    if walk.stop:
        why = ("the test passes: nothing to fix" if walk.stop == "passing" else found.error
               or "no function of the project ran in the failing test")  # fmt: skip
        ls.show(f"`{test.qualname}`: {why}", MessageType.Info)
        stop = "already_passing" if walk.stop == "passing" else "error"
        return send_report(ls, plain_report(test, stop, why), None)
    show_ranking(ls, test, root, found, job)
    backend = await load_backend(ls, settings, mode, job)
    runs: dict[str, SessionRun] = {}  # by suspect, those whose text the editor gave
    sessions: dict[str, Callable[[DebugRequest], DebugResult]] = {}
    for suspect in walk.tried:
        try:
            snapshot = await resolve_async(ls, _suspect_target(root, suspect))
        except Exception as error:  # changed since the run (renamed, unparsable): not tried
            ls.warn_once(f"{suspect.target} not debugged: {error}")
            continue
        run = runs[suspect.target] = SessionRun.of(snapshot, root, walk.tests_for(suspect))
        sessions[suspect.target] = session_runner(ls, settings, backend, job, run)

    def build(suspect: Suspect) -> DebugRequest:
        run = runs.get(suspect.target)
        if run is None:
            raise RequestError(f"`{suspect.qualname}` is no longer where the tests ran it")
        return session_request(settings, mode, run, "")

    def run_one(suspect: Suspect, request: DebugRequest) -> DebugResult:
        return sessions[suspect.target](request)

    def on_start(attempt: SuspectAttempt) -> None:
        job.report_threadsafe(f"repairing `{attempt.suspect.qualname}` ({doing(attempt)})")

    def on_vet(attempt: SuspectAttempt) -> None:
        job.report_threadsafe(f"checking the fix with the tests of `{attempt.suspect.qualname}`")

    hooks = WalkHooks(run_one, request=build, on_start=on_start, on_vet=on_vet)
    attempts = await ls.in_worker(repair, walk, hooks, lend)
    shown = walk.shown
    if shown is None or shown.result is None:
        why = "no suspect could be debugged: " + "; ".join(a.error for a in attempts if a.error)
        return send_report(ls, plain_report(test, "error", why), None)
    job.end(shown.result.summary())
    why = f"`{shown.suspect.qualname}` was {shown.why}"
    others = []
    if shown.base is not None:  # a fix of two functions: the other one, in the same file
        why = f"a fix of two functions, {shown.functions()}: {why}"
        others = [runs[shown.base.suspect.target].snapshot]
    answer = await conclude(
        ls, settings, isolation, propose, runs[shown.suspect.target], shown.result,
        why=why, others=others,
    )  # fmt: skip
    answer["suspects"] = [_suspect_json(s) for s in found.suspects[:SUSPECTS_SHOWN]]
    return answer


def _suspect_target(root: Path, suspect: Suspect) -> FunctionTarget:
    uri = from_fs_path(str(root / suspect.file)) or ""
    return FunctionTarget(uri=uri, qualname=suspect.qualname)


def show_ranking(
    ls: SelfDebugServer,
    test: FunctionSnapshot,
    root: Path,
    found: FailureLocalization,
    job: JobProgress,
) -> None:
    """The answer to "where do I look", before any repair: the suspects in the progress text,
    the table in the log, and an Information diagnostic on each suspect's `def` line (owned by
    the test function: they clear when it changes)."""
    top = found.suspects[:SUSPECTS_SHOWN]
    job.report("suspects: " + ", ".join(f"{s.qualname} ({s.score:.2f})" for s in top))
    table = "\n".join(found.table(SUSPECTS_SHOWN))
    ls.window_log_message(LogMessageParams(type=MessageType.Info, message=table))
    by_uri: dict[str, list[Diagnostic]] = {}
    for number, suspect in enumerate(top, 1):
        uri = from_fs_path(str(root / suspect.file)) or ""
        by_uri.setdefault(uri, []).append(
            Diagnostic(
                range=line_range(suspect.line - 1),
                message=f"{why_chosen(found, number)} (score {suspect.score:.2f}) "
                f"for the failure of {test.qualname}",
                severity=DiagnosticSeverity.Information,
                source=SOURCE,
                code="suspect",
                data={"qualname": suspect.qualname, "score": round(suspect.score, 3)},
            )
        )
    owner = (test.uri, test.qualname)
    ls.publish_diagnostics(ls.diagnostics.record(owner, test.function_hash, by_uri))


def _suspect_json(suspect: Suspect) -> dict[str, Any]:
    return {
        "file": suspect.file,
        "qualname": suspect.qualname,
        "line": suspect.line,
        "score": round(suspect.score, 3),
        "why": suspect.describe(),
    }
