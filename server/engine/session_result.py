"""The result a session hands back (DebugResult), built in one place from its state.

Why its own module: the session decides, this module only reports what it decided (the best
candidate and its diff, the test tallies before and after, the costs, and the caveats), so the
session's steps (session/) read without the bookkeeping.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from selfdebug.server.engine.diffing import unified_diff
from selfdebug.server.engine.types import (
    Alternatives,
    DebugRequest,
    DebugResult,
    StopReason,
    TestTally,
)
from selfdebug.server.runner.results import RunResult

if TYPE_CHECKING:
    from selfdebug.server.engine.session.context import RunContext


def session_result(session: RunContext, stop: StopReason, error: str) -> DebugResult:
    """What a finished session hands back: the best candidate (if any), its evidence, the
    costs and what the tests could not tell."""
    best = session.best
    fixed_file = best.candidate.new_source if best is not None else None
    warnings = list(session.warnings)
    if best is not None:
        warnings.extend(best.candidate.warnings)
    elif session.search_step is not None and session.search_step.ambiguous:
        warnings.append(
            f"edit search: {session.search_step.ambiguity_note()}; the tests cannot tell which"
            " is right, so none is proposed (a test that tells them apart would decide)"
        )
    target = session.target
    localization = session.search_step.localization if session.search_step else None
    return DebugResult(
        stop_reason=stop,
        turns=session.turn,
        mode=session.mode,  # still the requested one when the session ended before choosing
        original_function=target.code,
        fixed_function=best.candidate.code if best is not None else None,
        fixed_file=fixed_file,
        diff=unified_diff(session.source, fixed_file, session.label) if fixed_file else "",
        explanation=best.candidate.explanation if best is not None else "",
        chosen_before=_tally(session.chosen_before)
        or TestTally(0, len(session.request.target.tests)),
        chosen_after=(_tally(best.run) or TestTally(0, 0)) if best is not None else None,
        wider_before=_tally(session.wider_before),
        wider_after=_tally(session.best_wider),
        prompt_tokens=session.model.usage.prompt_tokens,
        completion_tokens=session.model.usage.completion_tokens,
        model_calls=session.model.usage.calls,
        seconds=time.monotonic() - session.started,
        model_seconds=session.model.usage.seconds,
        fixed_at_turn=session.fixed_at_turn if best is not None else None,
        error=error,
        transcript_path=session.request.reporting.transcript_path,
        function_range=(target.start_line, target.end_line),
        warnings=warnings,
        candidates_checked=session.candidates_checked,
        found_by=session.found_by if best is not None else "",
        suspicious=localization.lines[:5] if localization else [],
        localization_note=localization.note if localization else "",
        failed_calls=list(session.model.failed),
        caveat=_caveat(session) if best is not None else "",
        refused=list(session.refused),
        alternatives=_alternatives(session),
    )


def _alternatives(session: RunContext) -> Alternatives | None:
    """The caveat's edits (the proposed fix's rivals), or the search's undecided ones."""
    if session.best is not None:
        return session.fix_alternatives if session.found_by and session.fix_caveat else None
    step = session.search_step
    return step.alternatives if step is not None and step.ambiguous else None


def _caveat(session: RunContext) -> str:
    """What the tests could not tell about the fix: answers that differ where a rule chose
    one (the search's), or no test beyond the chosen ones."""
    if session.found_by and session.fix_caveat:
        return session.fix_caveat
    if session.best_wider is None:
        count = len(session.request.target.tests)
        return f"checked only by the {count} chosen test{'s' if count != 1 else ''}"
    return ""


def unlocated_result(request: DebugRequest, error: str, started: float) -> DebugResult:
    """The result of a session that never started: its function could not be found."""
    return DebugResult(
        stop_reason="error",
        turns=0,
        mode=request.mode,
        original_function="",
        fixed_function=None,
        fixed_file=None,
        diff="",
        explanation="",
        chosen_before=TestTally(0, len(request.target.tests)),
        chosen_after=None,
        seconds=time.monotonic() - started,
        error=error,
        transcript_path=request.reporting.transcript_path,
    )


def _tally(run: RunResult | None) -> TestTally | None:
    return TestTally(run.passed, run.total) if run is not None else None
