"""One turn of the self-debugging loop: ask the model for a fix (after the mode's own step),
check every sample, run the usable ones on the chosen tests (once per distinct program), and
guard the all-passing ones against the wider tests in vote order.

The session's turns (session/turns.py) decide what a turn's outcome means for the loop (the fix,
the best so far, a regression to report); this module only produces it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from selfdebug.server.engine import fix_answers
from selfdebug.server.engine.answers.candidate import Candidate, program_key
from selfdebug.server.engine.answers.vote import Scored, rank
from selfdebug.server.engine.fix_check import check_fixes
from selfdebug.server.engine.transcript import compact_run
from selfdebug.server.runner.results import RunResult, TestResult

if TYPE_CHECKING:
    from selfdebug.server.engine.session.context import RunContext


@dataclass
class Evaluated:
    candidate: Candidate
    run: RunResult | None  # None when there are no tests to run


@dataclass
class TurnOutcome:
    """What one turn produced: the voted candidate, or the first safe all-passing one."""

    evaluated: Evaluated
    wider: RunResult | None = None  # the guard's run when it held
    fixed: bool = False  # all chosen tests pass and no wider test broke
    broken: list[TestResult] | None = None  # all chosen pass, but these wider tests broke


def take_turn(session: RunContext) -> TurnOutcome | None:
    """Ask for a fix (after the mode's own step), check every sample, run the usable ones,
    and guard the all-passing ones in vote order. None when no sample was usable
    (`session.check_error` says why)."""
    extra = session.strategy.before_fix(session)
    if extra is None:
        return None
    variables = session.prompt_vars(**extra)
    session.check_error, session.repeat_note = "", ""
    session.emit("asking the model", 0.3)
    candidates = fix_answers.ask_for_fix(session, variables)
    usable = [c for c in candidates if c.ok]
    session.candidates_checked += len(usable)
    if not usable:
        session.check_error = candidates[0].problem if candidates else "the model gave no answer"
        return None
    tests = session.request.target.tests
    if not tests:
        return TurnOutcome(Evaluated(usable[0], None))
    scored = [
        Scored(index, cached_run(session, "chosen", tests, candidate, index))
        for index, candidate in enumerate(usable)
    ]
    ordered = rank(scored)
    if len(usable) > 1:
        session.record(
            "vote",
            picked=ordered[0].index,
            order=[s.index for s in ordered],
            passed=[s.run.passed for s in scored],
        )
    passing = [v for v in ordered if v.run.all_passed]
    evidence = check_fixes(session, [(v.index, usable[v.index].code or "") for v in passing])
    first_broken = flawed = None
    for voted in passing:  # in vote order, until one is safe and not flawed (fix_check.py)
        evaluated = Evaluated(usable[voted.index], voted.run)
        broken, wider = guard(session, evaluated)
        if broken:
            first_broken = first_broken or TurnOutcome(evaluated, broken=broken)
            continue
        evaluated.candidate.warnings.extend(evidence.warnings(voted.index))
        if not evidence.flawed(voted.index):
            return TurnOutcome(evaluated, wider=wider, fixed=True)
        flawed = flawed or TurnOutcome(evaluated, wider=wider, fixed=True)
    if flawed is not None or first_broken is not None:
        return flawed or first_broken
    return TurnOutcome(Evaluated(usable[ordered[0].index], ordered[0].run))


def cached_run(
    session: RunContext, kind: str, nodeids: list[str], candidate: Candidate, index: int
) -> RunResult:
    """Run `nodeids` on a candidate, once per distinct program: models often propose the
    same code again, and its tests would only say the same thing again."""
    assert candidate.new_source is not None
    key = (kind, program_key(candidate.code or candidate.new_source))
    if key in session.runs:
        session.record("tests_reused", label=kind)
        return session.runs[key]
    if kind == "chosen":
        session.emit(f"running {len(nodeids)} tests on candidate {index + 1}", 0.8)
    else:
        session.emit(f"running {len(nodeids)} wider tests", 0.9)
    run = session.run_tests(nodeids, candidate.new_source, label=kind)
    session.runs[key] = run
    return run


def guard(session: RunContext, evaluated: Evaluated) -> tuple[list[TestResult], RunResult | None]:
    """Regression guard: the wider tests that passed before and fail (or vanish) with the
    candidate; [] when it is safe."""
    wider_tests = session.request.target.wider_tests
    if not wider_tests or session.wider_before is None:
        return [], None
    after = cached_run(session, "wider", wider_tests, evaluated.candidate, 0)
    now = after.by_id()
    broken = [
        now.get(n) or TestResult(nodeid=n, outcome="error", message="did not run")
        for n in after.no_longer_passing(session.wider_before)
    ]
    session.record("guard", broken=[t.nodeid for t in broken], result=compact_run(after))
    return broken, after
