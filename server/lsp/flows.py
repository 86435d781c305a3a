"""What a command does, step by step: find the function, find and run its tests (diagnostics),
run the self-debugging loop with progress and cancel, then deliver the fix and the report.

Why here and not in the handlers: each step is a call to a typed function (jobs.py in a worker
thread, edits.py, report.py, diagnostics.py); this module only sequences them and turns failures
into messages, so a failing step never takes the server down.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol.types import (
    ApplyWorkspaceEditParams,
    MessageType,
    Position,
    ShowDocumentParams,
    ShowMessageParams,
    WorkspaceEdit,
)
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from selfdebug.server.cancel import Cancelled
from selfdebug.server.engine.request import default_wider_tests
from selfdebug.server.lsp import jobs, proposal, report, workspace_files
from selfdebug.server.lsp.arguments import FunctionTarget
from selfdebug.server.lsp.configuration import fetch_settings
from selfdebug.server.lsp.diagnostics import FunctionSpan, lsp_diagnostics
from selfdebug.server.lsp.edits import (
    FunctionSnapshot,
    fix_edit,
    fixed_function_text,
    function_hash_in,
    moved_since_request,
    stale_reason,
    take_snapshot,
)
from selfdebug.server.lsp.positions import utf16_position
from selfdebug.server.lsp.progress import JobProgress
from selfdebug.server.lsp.settings import backend_settings, debug_request
from selfdebug.server.runner.results import RunResult

if TYPE_CHECKING:
    from selfdebug.server.engine.modes import Mode
    from selfdebug.server.engine.types import DebugResult
    from selfdebug.server.lsp.server import SelfDebugServer

logger = logging.getLogger(__name__)


def resolve(
    ls: SelfDebugServer, target: FunctionTarget, disk_text: str | None = None
) -> FunctionSnapshot:
    """The target function in the editor's current text (InvalidParams when there is none, when
    the file is outside the workspace, or when it is not open and `disk_text` was not read for it
    off the event loop: see `resolve_async`)."""
    from selfdebug.instrument import locate_at

    file = workspace_files.locate(ls, target.uri)
    path = file.path
    document = ls.workspace.text_documents.get(file.uri)
    if document is None:
        if disk_text is None:
            raise JsonRpcInvalidParams(f"{path} is not open in the editor")
        document = TextDocument(file.uri, disk_text, position_codec=ls.workspace.position_codec)
    source = document.source
    qualname = target.qualname
    if not qualname and target.position is not None:
        position = Position(line=target.position.line, character=target.position.character)
        line, column = utf16_position(document, position)
        location = locate_at(source.encode("utf-8"), line, column)
        if location is None:
            raise JsonRpcInvalidParams(f"no function at {path}:{line + 1}:{position.character}")
        qualname = location.qualname
    try:
        return take_snapshot(file.uri, path, document.version, source, qualname or "")
    except Exception as error:
        raise JsonRpcInvalidParams(f"no function `{qualname}` in {path}: {error}")


async def resolve_async(ls: SelfDebugServer, target: FunctionTarget) -> FunctionSnapshot:
    """`resolve`, reading a file the editor does not have open in a worker thread."""
    file = workspace_files.locate(ls, target.uri)
    text = None
    if not workspace_files.is_open(ls, file.uri):
        text = await ls.in_worker(workspace_files.read_unopened, file.path)
    return resolve(ls, target, disk_text=text)


async def current_text(ls: SelfDebugServer, uri: str, path: Path) -> tuple[int | None, str]:
    """(version, text) of a document now: the editor's, else the file's (read off the loop)."""
    document = ls.workspace.text_documents.get(uri)
    if document is not None:
        return document.version, document.source
    return None, await ls.in_worker(workspace_files.read_unopened, path)


def warn_once(ls: SelfDebugServer, warning: str) -> None:
    """A warning the user should see once per server, not at every run (isolation, trust)."""
    if warning and ls.settings_cache.first_time(warning):
        show(ls, warning, MessageType.Warning)


def show(ls: SelfDebugServer, message: str, kind: MessageType = MessageType.Info) -> None:
    ls.window_show_message(ShowMessageParams(type=kind, message=f"selfdebug: {message}"))


def record_run(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, plan: jobs.TestPlan, run: RunResult
) -> None:
    """Publish the run's failures as diagnostics (or clear them when the tests pass)."""
    if run.cancelled:
        return  # a partial run says nothing reliable
    owner = (snapshot.uri, snapshot.qualname)
    ls.tested[owner] = plan
    document = ls.workspace.text_documents.get(snapshot.uri)  # never a disk read here
    edited = document is not None and (
        function_hash_in(document.source, snapshot.qualname) != snapshot.function_hash
    )
    if edited:
        return  # the user edited the function meanwhile: these lines may be wrong now
    span = FunctionSpan(snapshot.path, snapshot.qualname, snapshot.start_line, snapshot.end_line)
    by_uri = lsp_diagnostics(run, span, plan.project_root)
    ls.diagnostic_hashes[owner] = snapshot.function_hash
    ls.publish_diagnostics(ls.diagnostics.replace(owner, by_uri))


async def run_tests(ls: SelfDebugServer, target: FunctionTarget) -> dict[str, Any]:
    snapshot = await resolve_async(ls, target)
    settings = await fetch_settings(ls, snapshot.uri)
    job = await JobProgress.start(ls, f"Tests of `{snapshot.qualname}`", "finding tests")
    try:
        return await _run_tests(ls, snapshot, settings, job)
    except Exception as error:
        logger.exception("running the tests of %s failed", snapshot.qualname)
        show(ls, f"tests of `{snapshot.qualname}`: {error}", MessageType.Error)
        return {"error": str(error)}
    finally:
        job.end("done")


async def _run_tests(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, settings: Any, job: JobProgress
) -> dict[str, Any]:
    isolation = await _isolation(ls, settings, job)
    plan = await ls.in_worker(jobs.plan_tests, settings, snapshot.path, snapshot.qualname,
                              boundary=workspace_files.locate(ls, snapshot.uri).folder)  # fmt: skip
    job.report(f"running {len(plan.tests)} tests ({isolation.label})", 10)
    run = await ls.in_worker(
        jobs.run_tests,
        settings,
        plan,
        runners=ls.runners,
        file=snapshot.path,
        source=snapshot.source.decode("utf-8"),
        cancel=job.cancel,
    )
    record_run(ls, snapshot, plan, run)
    for note in run.notes:
        warn_once(ls, note)
    summary = f"{run.passed}/{run.total} tests pass" + (" (cancelled)" if run.cancelled else "")
    summary += f" ({isolation.label})"
    job.end(summary)
    return {
        "qualname": snapshot.qualname,
        "tests": plan.tests,
        "passed": run.passed,
        "total": run.total,
        "cancelled": run.cancelled,
        "error": run.error,
        "summary": summary,
        "isolation": run.isolation,
        "isolationWarning": isolation.warning,
        "notes": run.notes,
    }


async def _isolation(ls: SelfDebugServer, settings: Any, job: JobProgress) -> jobs.Isolation:
    """The isolation the job's tests will get (SandboxUnavailable when `requireSandbox` cannot
    be met); the fallback is announced once per server and in the progress text."""
    isolation = await ls.in_worker(jobs.isolation_for, settings)
    warn_once(ls, isolation.warning)
    job.report(f"isolation: {isolation.label}")
    return isolation


async def self_debug(
    ls: SelfDebugServer, target: FunctionTarget, *, propose: bool = False
) -> dict[str, Any]:
    """The session; its fix goes to the editor as `workspace/applyEdit`, or with `propose` it is
    returned in the answer (`proposal`, see proposal.py) for the client to review and apply."""
    snapshot = await resolve_async(ls, target)
    moved = moved_since_request(target.version, snapshot)
    if moved:
        show(ls, f"`{snapshot.qualname}` not debugged: {moved}; run it again", MessageType.Warning)
        return {"started": False, "error": moved}
    if ls.session_running:
        show(ls, "a self-debug session is already running; cancel it or wait", MessageType.Warning)
        return {"started": False, "error": "a session is already running"}
    ls.session_running = True
    job: JobProgress | None = None
    try:
        settings = await fetch_settings(ls, snapshot.uri)
        job = await JobProgress.start(ls, f"Self-debug `{snapshot.qualname}`", "finding tests")
        return await _self_debug(ls, snapshot, settings, target.mode, job, propose)
    except Cancelled:
        return _send_report(ls, _plain_report(snapshot, "cancelled", "cancelled by the user"), None)
    except Exception as error:
        logger.exception("self-debug of %s failed", snapshot.qualname)
        show(ls, f"self-debug of `{snapshot.qualname}` failed: {error}", MessageType.Error)
        return _send_report(ls, _plain_report(snapshot, "error", str(error)), None)
    finally:
        ls.session_running = False
        if job is not None:
            job.end("cancelled" if job.cancel.cancelled else "done")


async def _self_debug(
    ls: SelfDebugServer,
    snapshot: FunctionSnapshot,
    settings: Any,
    mode: Mode | None,
    job: JobProgress,
    propose: bool,
) -> dict[str, Any]:
    isolation = await _isolation(ls, settings, job)
    plan = await ls.in_worker(jobs.plan_tests, settings, snapshot.path, snapshot.qualname,
                              boundary=workspace_files.locate(ls, snapshot.uri).folder)  # fmt: skip
    source = snapshot.source.decode("utf-8")
    job.report("loading the model", 1)
    backend = await ls.in_worker(ls.backends.get, backend_settings(settings))
    loop = asyncio.get_running_loop()

    def on_baseline(run: RunResult) -> None:  # worker thread -> event loop
        loop.call_soon_threadsafe(record_run, ls, snapshot, plan, run)

    folder = report.new_session_dir(snapshot.qualname)
    request = debug_request(
        settings,
        file=snapshot.path,
        qualname=snapshot.qualname,
        project_root=plan.project_root,
        tests=plan.tests,
        wider_tests=default_wider_tests(plan.tests),
        mode=mode,
        source_override=source,
        transcript_path=folder / "transcript.jsonl",
    )
    result = await ls.in_worker(
        jobs.debug,
        settings,
        request,
        backend,
        runners=ls.runners,
        progress=job.on_engine_progress,
        cancel=job.cancel,
        on_baseline=on_baseline,
    )
    job.end(result.summary())
    session_report = report.from_result(snapshot.uri, snapshot.qualname, result)
    session_report.isolation, session_report.isolation_warning = isolation.label, isolation.warning
    proposed: proposal.FixProposal | None = None
    if result.success and propose:
        proposed = propose_fix(ls, snapshot, result)
        session_report.note = proposed.stale_reason or "proposed for review in the editor"
    elif result.success:
        session_report.applied, note = await deliver_fix(ls, snapshot, result)
        session_report.note = note or session_report.note
    report.write_markdown(session_report, folder)
    answer = _send_report(ls, session_report, settings.show_report)
    if propose:
        answer["evidence"] = proposal.fix_evidence(result)
        answer["proposal"] = proposed.to_json() if proposed else None
    return answer


def fix_workspace_edit(
    snapshot: FunctionSnapshot, result: DebugResult, codec: PositionCodec
) -> tuple[WorkspaceEdit, str]:
    """The confirmable, versioned edit of the fix and the function's new text (one edit for
    both ways of delivering it, so a reviewed proposal applies exactly what applyEdit would)."""
    new_text = fixed_function_text(snapshot, result.fixed_file, result.fixed_function)
    label, description = confirmation_text(snapshot.qualname, result)
    edit = fix_edit(snapshot, new_text, label=label, description=description, codec=codec)
    return edit, new_text


def propose_fix(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, result: DebugResult
) -> proposal.FixProposal:
    """The fix without applying it, with why it would be refused now (if the document moved)."""
    document = ls.workspace.get_text_document(snapshot.uri)
    edit, new_text = fix_workspace_edit(snapshot, result, document.position_codec)
    return proposal.build_proposal(
        snapshot,
        result,
        edit=edit,
        new_function_text=new_text,
        stale_reason=stale_reason(snapshot, document.version, document.source),
    )


async def deliver_fix(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, result: DebugResult
) -> tuple[bool, str]:
    """Send the fix as a confirmable edit, unless the document moved on. Returns (applied, why)."""
    workspace_caps = ls.client_capabilities.workspace
    if workspace_caps is None or not workspace_caps.apply_edit:
        return False, "the editor cannot apply edits; see the diff in the report"
    version, text = await current_text(ls, snapshot.uri, snapshot.path)
    reason = stale_reason(snapshot, version, text)
    if reason:
        show(ls, f"fix for `{snapshot.qualname}` not applied: {reason}. Run it again.")
        return False, f"not applied: {reason}"
    edit, _ = fix_workspace_edit(snapshot, result, ls.workspace.position_codec)
    label, _ = confirmation_text(snapshot.qualname, result)
    answer = await ls.workspace_apply_edit_async(ApplyWorkspaceEditParams(edit=edit, label=label))
    if not answer.applied:
        why = answer.failure_reason or "declined"
        show(ls, f"fix for `{snapshot.qualname}` not applied: {why}")
        return False, f"not applied: {why}"
    return True, ""


def confirmation_text(qualname: str, result: DebugResult) -> tuple[str, str]:
    """(label, description) of the edit the user confirms: our words only, never the model's
    text (its explanation is in the report), and every safety warning about the candidate."""
    warnings = "".join(f"WARNING: {w}. " for w in result.warnings)
    return f"Self-debug fix for `{qualname}`", f"{warnings}{result.summary()}"


def _plain_report(snapshot: FunctionSnapshot, stop_reason: str, note: str) -> report.SessionReport:
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


def _send_report(
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
