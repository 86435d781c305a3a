"""`selfdebug.runTests`: run the tests of one function and show its failures as diagnostics.

Argument: one JSON object (schema in arguments.py), {uri, qualname | position, version?}.
Malformed arguments are answered at once with InvalidParams; the run itself happens in a worker
thread with a progress bar and the user's cancel, and the answer (a summary object) arrives when
it is done. `show_failures` is also how the self-debug feature publishes its first run, and
`runOnSave` re-runs every tested function of a saved file through `rerun_on_save`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol.types import MessageType

from selfdebug.server.cancel import CancelToken
from selfdebug.server.lsp.arguments import FunctionTarget, parse_target
from selfdebug.server.lsp.configuration import fetch_settings
from selfdebug.server.lsp.diagnostics import FunctionSpan, lsp_diagnostics
from selfdebug.server.lsp.edits import FunctionSnapshot, function_hash_in
from selfdebug.server.lsp.planning import TestPlan, plan_job
from selfdebug.server.lsp.progress import JobProgress
from selfdebug.server.lsp.runners import RunnerPool
from selfdebug.server.lsp.server import SelfDebugServer  # pygls reads the handlers' annotations
from selfdebug.server.lsp.settings import ServerSettings, runner_settings
from selfdebug.server.lsp.targets import resolve_async
from selfdebug.server.runner.results import RunResult

logger = logging.getLogger(__name__)

RUN_TESTS = "selfdebug.runTests"


def register(server: SelfDebugServer) -> None:
    @server.command(RUN_TESTS)
    async def run_tests_command(ls: SelfDebugServer, *arguments: Any) -> dict[str, Any]:
        return await run_tests(ls, parse_target(arguments))


def rerun_on_save(ls: SelfDebugServer, uri: str) -> None:
    """Run the tests of every function of `uri` that was tested before (`runOnSave`)."""
    for qualname in ls.diagnostics.tested_in(uri):
        ls.spawn(run_tests(ls, FunctionTarget(uri=uri, qualname=qualname)))


async def run_tests(ls: SelfDebugServer, target: FunctionTarget) -> dict[str, Any]:
    snapshot = await resolve_async(ls, target)
    settings = await fetch_settings(ls, snapshot.uri)
    job = await JobProgress.start(ls, f"Tests of `{snapshot.qualname}`", "finding tests")
    try:
        return await _run_tests(ls, snapshot, settings, job)
    except Exception as error:
        logger.exception("running the tests of %s failed", snapshot.qualname)
        ls.show(f"tests of `{snapshot.qualname}`: {error}", MessageType.Error)
        return {"error": str(error)}
    finally:
        job.end("done")


async def _run_tests(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, settings: ServerSettings, job: JobProgress
) -> dict[str, Any]:
    isolation, plan = await plan_job(ls, snapshot, settings, job)
    job.report(f"running {len(plan.tests)} tests ({isolation.label})", 10)
    run = await ls.in_worker(
        run_plan,
        settings,
        plan,
        runners=ls.runners,
        file=snapshot.path,
        source=snapshot.source.decode("utf-8"),
        cancel=job.cancel,
    )
    show_failures(ls, snapshot, plan, run)
    for note in run.notes:
        ls.warn_once(note)
    summary = f"{run.passed}/{run.total} tests pass" + (" (cancelled)" if run.cancelled else "")
    summary += f" ({isolation.label})"
    job.end(summary)
    return {
        "qualname": snapshot.qualname,
        "tests": plan.tests,
        "foundBy": plan.found_by,
        "passed": run.passed,
        "total": run.total,
        "cancelled": run.cancelled,
        "error": run.error,
        "summary": summary,
        "isolation": run.isolation,
        "isolationWarning": isolation.warning,
        "notes": run.notes,
    }


def run_plan(
    settings: ServerSettings,
    plan: TestPlan,
    *,
    runners: RunnerPool,
    file: Path,
    source: str,
    cancel: CancelToken,
) -> RunResult:
    """One run of the plan's tests against the editor's text of `file` (saved or not).
    Blocking: call it in a worker thread."""
    with runners.lend(plan.project_root, runner_settings(settings)) as runner:
        return runner.run(plan.tests, overrides={file: source}, cancel=cancel)


def show_failures(
    ls: SelfDebugServer, snapshot: FunctionSnapshot, plan: TestPlan, run: RunResult
) -> None:
    """Publish the run's failures as diagnostics (or clear them when the tests pass).
    Event-loop side."""
    if run.cancelled:
        return  # a partial run says nothing reliable
    owner = (snapshot.uri, snapshot.qualname)
    ls.diagnostics.note_tested(owner)
    document = ls.workspace.text_documents.get(snapshot.uri)  # never a disk read here
    edited = document is not None and (
        function_hash_in(document.source, snapshot.qualname) != snapshot.function_hash
    )
    if edited:
        return  # the user edited the function meanwhile: these lines may be wrong now
    span = FunctionSpan(snapshot.path, snapshot.qualname, snapshot.start_line, snapshot.end_line)
    by_uri = lsp_diagnostics(run, span, plan.project_root)
    ls.publish_diagnostics(ls.diagnostics.record(owner, snapshot.function_hash, by_uri))
