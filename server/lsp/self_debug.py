"""`selfdebug.selfDebug` and `selfdebug.proposeFix`: the self-debugging session of one function.

Argument: one JSON object (schema in arguments.py), {uri, qualname | position, version?, mode?}.
Malformed arguments are answered at once with InvalidParams. The session runs in a worker thread
with a progress bar and the user's cancel, one at a time (another waits its turn in
session_queue.py): find the tests, run the engine (its first run of the tests is published as
diagnostics as soon as the engine reports it), then deliver the fix and the session report
(`selfdebug/sessionReport`, and a markdown file). `selfdebug.selfDebug` sends the fix as
`workspace/applyEdit` (needsConfirmation); `selfdebug.proposeFix` runs the same session but answers
with the fix instead of applying it (`proposal`, schema in proposal.py), so an editor can show a
diff and apply it on Accept. Failures become a report and a message, never a dead server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol.types import MessageType, ShowDocumentParams
from pygls.uris import from_fs_path

from selfdebug.server.backends.base import Backend
from selfdebug.server.cancel import Cancelled, CancelToken
from selfdebug.server.engine.modes import Mode
from selfdebug.server.engine.request import default_wider_tests
from selfdebug.server.engine.types import DebugRequest, DebugResult, Progress, ProgressCallback
from selfdebug.server.lsp import proposal, report
from selfdebug.server.lsp.arguments import FunctionTarget, parse_target
from selfdebug.server.lsp.configuration import fetch_settings
from selfdebug.server.lsp.diagnostics import FunctionSpan, suspicious_diagnostics
from selfdebug.server.lsp.edits import FunctionSnapshot, moved_since_request
from selfdebug.server.lsp.fix_delivery import deliver_fix, propose_fix
from selfdebug.server.lsp.planning import Isolation, TestPlan, plan_job
from selfdebug.server.lsp.progress import JobProgress
from selfdebug.server.lsp.run_tests import show_failures
from selfdebug.server.lsp.runners import RunnerPool
from selfdebug.server.lsp.server import SelfDebugServer  # pygls reads the handlers' annotations
from selfdebug.server.lsp.session_queue import queued_message
from selfdebug.server.lsp.settings import (
    ServerSettings,
    backend_settings,
    debug_request,
    runner_settings,
)
from selfdebug.server.lsp.targets import resolve_async

logger = logging.getLogger(__name__)

SELF_DEBUG = "selfdebug.selfDebug"
PROPOSE_FIX = "selfdebug.proposeFix"


def register(server: SelfDebugServer) -> None:
    @server.command(SELF_DEBUG)
    async def self_debug_command(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        return await self_debug(ls, parse_target(arguments))

    @server.command(PROPOSE_FIX)
    async def propose_fix_command(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        answer = await self_debug(ls, parse_target(arguments), propose=True)
        return {"proposal": None, **answer}  # null also when the session failed or was cancelled


async def self_debug(
    ls: SelfDebugServer, target: FunctionTarget, *, propose: bool = False
) -> dict[str, Any]:
    """The session; its fix goes to the editor as `workspace/applyEdit`, or with `propose` it is
    returned in the answer (`proposal`, see proposal.py) for the client to review and apply."""

    async def body(snapshot: FunctionSnapshot, settings: ServerSettings, job: JobProgress) -> Any:
        return await _self_debug(ls, snapshot, settings, target.mode, job, propose)

    return await one_session(ls, target, "Self-debug `{}`", "finding tests", body)


SessionBody = Callable[[FunctionSnapshot, ServerSettings, JobProgress], Awaitable[dict[str, Any]]]


async def one_session(
    ls: SelfDebugServer, target: FunctionTarget, title: str, first: str, body: SessionBody
) -> dict[str, Any]:
    """A session command's frame: the function as the editor has it now (refused when it
    moved since the request), a cancellable progress titled `title` (with `{}` for the
    function's name), its turn in the session queue (session_queue.py: "queued behind `f`"
    while another runs; the function is read again when its turn comes), the settings, and
    every ending (a result, a cancel, an error) answered with a session report, never a dead
    server."""
    snapshot = await resolve_async(ls, target)
    moved = moved_since_request(target.version, snapshot)
    if moved:
        ls.show(f"`{snapshot.qualname}` not debugged: {moved}; run it again", MessageType.Warning)
        return {"started": False, "error": moved}
    job: JobProgress | None = None
    title = title.format(snapshot.qualname)
    try:
        job = started = await JobProgress.start(ls, title, first)

        def queued(running: str, ahead: int) -> None:
            started.report(queued_message(running, ahead))

        async with ls.sessions.turn(snapshot.qualname, job.cancel, queued) as waited:
            if waited:
                job.cancel.raise_if_cancelled()
                snapshot = await resolve_async(ls, target)
                job.report(first)
            settings = await fetch_settings(ls, snapshot.uri)
            return await body(snapshot, settings, job)
    except Cancelled:
        return send_report(ls, plain_report(snapshot, "cancelled", "cancelled by the user"), None)
    except Exception as error:
        logger.exception("%s failed", title)
        ls.show(f"{title} failed: {error}", MessageType.Error)
        return send_report(ls, plain_report(snapshot, "error", str(error)), None)
    finally:
        if job is not None:
            job.end("cancelled" if job.cancel.cancelled else "done")


async def _self_debug(
    ls: SelfDebugServer,
    snapshot: FunctionSnapshot,
    settings: ServerSettings,
    mode: Mode | None,
    job: JobProgress,
    propose: bool,
) -> dict[str, Any]:
    isolation, plan = await plan_job(ls, snapshot, settings, job)
    backend = await load_backend(ls, settings, mode, job)
    chosen, guarded, note = plan.for_session()
    found_by = f"{plan.found_by}; {note}" if note else plan.found_by
    folder = report.new_session_dir(snapshot.qualname)
    wider = default_wider_tests(chosen + guarded)
    run = SessionRun(snapshot, plan.project_root, chosen, wider, folder)
    result = await run_engine(ls, settings, backend, mode, job, run, found_by)
    job.end(result.summary())
    return await conclude(ls, settings, isolation, propose, run, result)


@dataclasses.dataclass(frozen=True)
class SessionRun:
    """One session's function and tests, as the engine gets them."""

    snapshot: FunctionSnapshot
    project_root: Path
    tests: list[str]
    wider_tests: list[str]
    folder: Path  # the report and the transcript

    @classmethod
    def of(cls, snapshot: FunctionSnapshot, root: Path, tests: list[str]) -> SessionRun:
        """A session on `tests`, guarded by their whole files."""
        folder = report.new_session_dir(snapshot.qualname)
        return cls(snapshot, root, tests, default_wider_tests(tests), folder)


async def load_backend(
    ls: SelfDebugServer, settings: ServerSettings, mode: Mode | None, job: JobProgress
) -> Backend:
    """The session's model, loaded off the event loop; none for a mode that makes no model
    call (`search`)."""
    from selfdebug.server.engine.modes import strategy_of

    if not strategy_of(mode or settings.mode).uses_model:
        from selfdebug.server.backends.no_model import NoModelBackend

        return NoModelBackend()
    job.report("loading the model", 1)
    return await ls.in_worker(ls.backends.get, backend_settings(settings))


def session_request(
    settings: ServerSettings, mode: Mode | None, run: SessionRun, found_by: str
) -> DebugRequest:
    """The engine's request for the editor's text of the function."""
    snapshot = run.snapshot
    request = debug_request(
        settings,
        file=snapshot.path,
        qualname=snapshot.qualname,
        project_root=run.project_root,
        tests=run.tests,
        wider_tests=run.wider_tests,
        mode=mode,
        source_override=snapshot.source.decode("utf-8"),
        transcript_path=run.folder / "transcript.jsonl",
    )
    target = dataclasses.replace(request.target, tests_found_by=found_by)
    return dataclasses.replace(request, target=target)


async def run_engine(
    ls: SelfDebugServer,
    settings: ServerSettings,
    backend: Backend,
    mode: Mode | None,
    job: JobProgress,
    run: SessionRun,
    found_by: str,
) -> DebugResult:
    """The engine's session in a worker thread; see `session_runner`."""
    run_session = session_runner(ls, settings, backend, job, run)
    return await ls.in_worker(run_session, session_request(settings, mode, run, found_by))


def session_runner(
    ls: SelfDebugServer,
    settings: ServerSettings,
    backend: Backend,
    job: JobProgress,
    run: SessionRun,
) -> Callable[[DebugRequest], DebugResult]:
    """A blocking call that runs a request of `run`'s function on a warm runner (call it in a
    worker thread): its first run of the tests goes to the diagnostics, its suspicious lines
    after it."""
    loop = asyncio.get_running_loop()
    plan = TestPlan(run.project_root, run.tests)
    progress = _progress_sink(ls, run.snapshot, plan, job)

    def run_session(request: DebugRequest) -> DebugResult:
        result = debug(
            settings, request, backend, runners=ls.runners, progress=progress, cancel=job.cancel
        )
        loop.call_soon_threadsafe(show_suspicious, ls, run.snapshot, result)
        return result

    return run_session


async def conclude(
    ls: SelfDebugServer,
    settings: ServerSettings,
    isolation: Isolation,
    propose: bool,
    run: SessionRun,
    result: DebugResult,
    *,
    why: str = "",
    others: Sequence[FunctionSnapshot] = (),
) -> dict[str, Any]:
    """The fix to the editor (applied after confirmation, or proposed for review) and the
    session report; `why`: why this function was chosen, said first in the report; `others`:
    the other functions of the same document that a fix of two functions changes."""
    snapshot = run.snapshot
    session_report = report.from_result(snapshot.uri, snapshot.qualname, result)
    session_report.isolation, session_report.isolation_warning = isolation.label, isolation.warning
    if why:
        session_report.summary = f"{why}. {session_report.summary}"
    proposed: proposal.FixProposal | None = None
    if result.success and propose:
        proposed = propose_fix(ls, snapshot, result, others)
        session_report.note = proposed.stale_reason or "proposed for review in the editor"
    elif result.success:
        session_report.applied, note = await deliver_fix(ls, snapshot, result, others)
        session_report.note = note or session_report.note
    report.write_markdown(session_report, run.folder)
    answer = send_report(ls, session_report, settings.show_report)
    if propose:
        answer["evidence"] = proposal.fix_evidence(result)
        answer["proposal"] = proposed.to_json() if proposed else None
    return answer


def show_suspicious(ls: SelfDebugServer, snapshot: FunctionSnapshot, result: DebugResult) -> None:
    """The session's suspicious lines as Information diagnostics of the function (issue 13);
    they clear with its failures. Event-loop side."""
    if not result.suspicious:
        return
    span = FunctionSpan(snapshot.path, snapshot.qualname, snapshot.start_line, snapshot.end_line)
    by_uri = suspicious_diagnostics(result.suspicious, span)
    owner = (snapshot.uri, snapshot.qualname)
    ls.publish_diagnostics(ls.diagnostics.add(owner, snapshot.function_hash, by_uri))


def _progress_sink(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, plan: TestPlan, job: JobProgress
) -> ProgressCallback:
    """The engine's progress (a worker thread) to the progress bar, and its baseline run (the
    chosen tests on the editor's text) to the diagnostics: no second pytest run for them."""
    loop = asyncio.get_running_loop()

    def on_progress(event: Progress) -> None:
        if event.baseline is not None:
            loop.call_soon_threadsafe(show_failures, ls, snapshot, plan, event.baseline)
        job.on_engine_progress(event)

    return on_progress


def debug(
    settings: ServerSettings,
    request: DebugRequest,
    backend: Backend,
    *,
    runners: RunnerPool,
    progress: ProgressCallback,
    cancel: CancelToken,
) -> DebugResult:
    """The self-debugging loop on a warm runner. Blocking: call it in a worker thread."""
    from selfdebug.server.engine import run_session

    with runners.lend(request.target.project_root, runner_settings(settings)) as runner:
        return run_session(request, backend, runner=runner, progress=progress, cancel=cancel)


def plain_report(snapshot: FunctionSnapshot, stop_reason: str, note: str) -> report.SessionReport:
    return report.SessionReport(
        uri=snapshot.uri,
        qualname=snapshot.qualname,
        summary=note,
        explanation="",
        diff="",
        transcript_path="",
        success=False,
        stop_reason=stop_reason,
        note=note,
    )


def send_report(
    ls: SelfDebugServer, session_report: report.SessionReport, show_document: bool | None
) -> dict[str, Any]:
    if not session_report.markdown:
        session_report.markdown = report.render_markdown(session_report)
    ls.protocol.notify(report.METHOD, session_report.to_json())
    window = ls.client_capabilities.window
    can_show = window is not None and window.show_document is not None
    if show_document and can_show and session_report.report_path:
        uri = from_fs_path(session_report.report_path) or ""
        ls.window_show_document(ShowDocumentParams(uri=uri, take_focus=False))
    return session_report.to_json()
