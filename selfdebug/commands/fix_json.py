"""`selfdebug fix --json`: one JSON object on stdout for a script, everything else on stderr.

Why its own module: the text report is for a person and may change its wording; the object is
for scripts and CI jobs, so its keys are named and typed once here (`FixJson`), versioned
(`"selfdebug_fix": 1`), and built from the run's `FixOutcome` after it finished. The verdict
follows the exit code (selfdebug/exit_codes.py), which it states too.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Literal, TypedDict

from selfdebug.commands.fix_outcome import FixOutcome
from selfdebug.commands.fix_report import evidence_line
from selfdebug.commands.patch_file import relative
from selfdebug.exit_codes import ExitCode, for_signal
from selfdebug.server.engine.diffing import unified_diff
from selfdebug.server.runner.source_files import decode_source

if TYPE_CHECKING:
    from selfdebug.server.engine.suspects.rank import Suspect
    from selfdebug.server.engine.suspects.repair import SuspectAttempt
    from selfdebug.server.engine.types import Alternatives, DebugResult, TestTally

VERSION = 1

Verdict = Literal[
    "fixed",  # 0: a fix passes the chosen tests (written with --write)
    "already_passing",  # 0: nothing to fix
    "no_fix",  # 1
    "usage_error",  # 2: the message is on stderr
    "session_failed",  # 3
    "not_written",  # 4: a fix found, not written (the reason on stderr)
    "cancelled",  # 128 + the signal
]
_BY_CODE: dict[int, Verdict] = {
    ExitCode.NO_FIX: "no_fix",
    ExitCode.USAGE: "usage_error",
    ExitCode.SESSION_FAILED: "session_failed",
    ExitCode.NOT_WRITTEN: "not_written",
}


class Target(TypedDict):
    file: str  # relative to the project root, "/"
    qualname: str


class Tally(TypedDict):
    passed: int
    total: int


class Tests(TypedDict):
    chosen_before: Tally | None
    chosen_after: Tally | None  # the proposed candidate's; None without one
    wider_before: Tally | None  # None: no wider tests ran
    wider_after: Tally | None


class AlternativesJson(TypedDict):
    """Fixes that pass the tests and the tests cannot choose between."""

    edits: list[str]  # one per behaviour
    separating_input: str | None  # the call on which they differ; None when none was found
    results: list[str]  # each edit's result on it, in `edits` order


class Timings(TypedDict):
    seconds: float  # the whole command
    session_seconds: float  # the sessions (from a failure: all of them together)
    model_seconds: float | None  # None when no model was called
    model_calls: int


class SuspectJson(TypedDict):
    target: str  # "path::qualname"
    line: int  # its def line
    score: float  # the best Ochiai of its lines
    why: str  # "1/1 failing tests run it, 2/3 passing do; ..."


class AttemptJson(TypedDict):
    target: str
    stage: str  # "edit search", "model", ...; "": the whole mode
    why: str  # why it was tried ("suspect 1 of 2: ...")
    outcome: Literal["fixed", "no_fix", "refused", "not_debugged", "cancelled"]
    detail: str  # why refused or not debugged; else the evidence line


class FixJson(TypedDict):
    selfdebug_fix: int  # this object's version
    verdict: Verdict
    exit_code: int
    form: Literal["function", "failure"]
    target: Target | None  # the function shown (of a fix of two, the second)
    functions: list[str]  # every function the fix changes, "path::qualname"
    files: list[str]  # the files it changes
    diff: str  # the fix over the files as read; without a fix, the best candidate's ("")
    evidence: str | None  # "passes N/M chosen, K/L wider; ..." (None: no session ran)
    tests: Tests | None
    found_by: str  # "edit search at line 4"; "": the model
    explanation: str
    caveat: str  # what the tests could not tell about the fix
    alternatives: AlternativesJson | None
    refused: list[str]  # candidates refused (overfitting, the walk's own-tests check), why
    warnings: list[str]
    stop_reason: str | None
    mode: str | None  # the mode that ran (auto resolved)
    written: bool
    patch: str | None  # where --save-patch saved the fix
    transcript: str | None
    timings: Timings
    # from a failing test (form "failure"); empty otherwise
    failing_tests: list[str]
    suspects: list[SuspectJson]  # the ranking, most suspicious first
    attempts: list[AttemptJson]  # each suspect's session, in order


def verdict(code: int, result: DebugResult | None) -> Verdict:
    if code == ExitCode.OK:
        return "fixed" if result is not None and result.success else "already_passing"
    if code >= 128:
        return "cancelled"
    return _BY_CODE.get(code, "session_failed")


def fix_json(outcome: FixOutcome, code: int) -> FixJson:
    result, request = outcome.result, outcome.request
    root = outcome.root
    failure = outcome.form == "failure"
    target: Target | None = None
    if request is not None and root is not None:
        target = {"file": relative(request.target.file, root), "qualname": request.target.qualname}
    sessions = [a.result for a in outcome.attempts if a.result is not None] if failure else []
    sessions = sessions or ([result] if result is not None else [])
    model_calls = sum(r.model_calls for r in sessions)
    return {
        "selfdebug_fix": VERSION,
        "verdict": verdict(code, result),
        "exit_code": code,
        "form": outcome.form,
        "target": target,
        "functions": [f"{relative(f, root)}::{q}" for f, q in outcome.functions] if root else [],
        "files": [relative(f, root) for f in outcome.fix_files] if root else [],
        "diff": _diff(outcome),
        "evidence": evidence_line(result) if result is not None else None,
        "tests": _tests(result) if result is not None else None,
        "found_by": result.found_by if result is not None else "",
        "explanation": result.explanation if result is not None else "",
        "caveat": result.caveat if result is not None else "",
        "alternatives": _alternatives(result.alternatives) if result is not None else None,
        "refused": list(result.refused) if result is not None else [],
        "warnings": list(result.warnings) if result is not None else [],
        "stop_reason": result.stop_reason if result is not None else None,
        "mode": result.mode if result is not None else None,
        "written": outcome.written,
        "patch": str(outcome.patch) if outcome.patch is not None else None,
        "transcript": str(result.transcript_path) if result and result.transcript_path else None,
        "timings": {
            "seconds": round(outcome.seconds, 3),
            "session_seconds": round(sum(r.seconds for r in sessions), 3),
            "model_seconds": round(sum(r.model_seconds for r in sessions), 3)
            if model_calls
            else None,
            "model_calls": model_calls,
        },
        "failing_tests": list(outcome.failure.failing) if outcome.failure else [],
        "suspects": [_suspect(s) for s in outcome.failure.suspects] if outcome.failure else [],
        "attempts": [_attempt(a) for a in outcome.attempts],
    }


def _diff(outcome: FixOutcome) -> str:
    """The fix over each file as its session read it (a fix of two: both edits); without a
    fix, the best candidate's diff the text report shows."""
    root = outcome.root
    if not outcome.fix_files or root is None:
        return outcome.result.diff if outcome.result is not None else ""
    return "".join(
        unified_diff(_text(outcome.originals.get(file)), text, relative(file, root))
        for file, text in outcome.fix_files.items()
    )


def _text(data: bytes | None) -> str:
    return decode_source(data, errors="replace")[0] if data is not None else ""


def _tally(tally: TestTally | None) -> Tally | None:
    return {"passed": tally.passed, "total": tally.total} if tally is not None else None


def _tests(result: DebugResult) -> Tests:
    return {
        "chosen_before": _tally(result.chosen_before),
        "chosen_after": _tally(result.chosen_after),
        "wider_before": _tally(result.wider_before),
        "wider_after": _tally(result.wider_after),
    }


def _alternatives(alternatives: Alternatives | None) -> AlternativesJson | None:
    if alternatives is None:
        return None
    return {
        "edits": list(alternatives.edits),
        "separating_input": alternatives.call or None,
        "results": list(alternatives.results),
    }


def _suspect(suspect: Suspect) -> SuspectJson:
    return {
        "target": suspect.target,
        "line": suspect.line,
        "score": round(suspect.score, 4),
        "why": suspect.describe(),
    }


def _attempt(attempt: SuspectAttempt) -> AttemptJson:
    result = attempt.result
    base: AttemptJson = {
        "target": attempt.suspect.target,
        "stage": attempt.stage,
        "why": attempt.why,
        "outcome": "no_fix",
        "detail": evidence_line(result) if result is not None else "",
    }
    if attempt.error:
        return {**base, "outcome": "not_debugged", "detail": attempt.error}
    if attempt.refused:
        return {**base, "outcome": "refused", "detail": attempt.refused}
    if result is not None and result.stop_reason == "cancelled":
        return {**base, "outcome": "cancelled"}
    return {**base, "outcome": "fixed"} if result is not None and result.success else base


@contextlib.contextmanager
def stdout_on_stderr() -> Iterator[None]:
    """Meanwhile, whatever is written to stdout goes to stderr: ours (`print`) and a child
    process's that inherits it, so stdout holds the JSON object alone."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def printing_json(outcome: FixOutcome, run: Callable[[], int]) -> int:
    """`run()`'s exit code, its output on stderr and then the JSON object on stdout. A bug of
    ours (an exception) prints none: cli.main reports it (exit 5)."""
    from selfdebug.commands import interrupts

    try:
        with stdout_on_stderr():
            code = run()
    except KeyboardInterrupt as stop:  # a second signal: the job no longer waited for
        _print(fix_json(outcome, for_signal(getattr(stop, "signum", signal.SIGINT))))
        raise
    signum = interrupts.received()  # the code cli.main will exit with
    _print(fix_json(outcome, code if signum is None else for_signal(signum)))
    return code


def _print(document: FixJson) -> None:
    print(json.dumps(document, indent=2, ensure_ascii=False))
    sys.stdout.flush()
