"""The model's turns, the session's last step: one turn after another (turn.py), each in the
plan's current mode (a rewrite, or a print/probe turn whose mode gathers a log first:
modes.PrintMode, modes.ProbeMode), until the chosen tests pass or a stop rule fires.

Every turn is remembered (history.py) and shown to the model, and no prompt is sent twice: when
a prompt or a program repeats, the next prompt says so and the model is sampled with a new seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from selfdebug.server.engine import feedback
from selfdebug.server.engine.model_calls.failed_calls import CallFailed
from selfdebug.server.engine.modes import STRATEGIES
from selfdebug.server.engine.search import host as search_host
from selfdebug.server.engine.session.pipeline import PASSTHROUGH
from selfdebug.server.engine.turn import Evaluated, take_turn
from selfdebug.server.engine.types import StopReason

if TYPE_CHECKING:
    from selfdebug.server.engine.session.context import RunContext


@dataclass(frozen=True)
class ModelTurns:
    """The model's turns. `give_up_after` (the requested mode's `turns_without_gain`): once the
    plan's last mode runs, that many turns in a row without gain end the session; 0: only the
    request's `no_improvement_limit` does."""

    give_up_after: int = 0
    name: ClassVar[str] = "model turns"

    def run(self, context: RunContext) -> StopReason:
        request = context.request
        plan = _Plan(context)
        max_turns = _max_turns(context)
        best = context.best.run if context.best is not None else context.chosen_before  # partial
        best_passed = best.passed if best is not None else 0
        without_improvement = 0
        while True:
            if context.turn >= max_turns:
                return "max_turns"
            context.turn += 1
            context.emit(f"turn {context.turn}/{max_turns}")
            failed = False
            try:
                outcome = take_turn(context)
            except CallFailed:  # recorded by the model caller: the turn ends, the session not
                outcome, failed = None, True
            improved = False
            if outcome is not None and outcome.evaluated.run is None:  # no tests: structural
                context.best, context.fixed_at_turn = outcome.evaluated, context.turn
            elif outcome is not None and outcome.fixed:
                context.best, context.best_wider = outcome.evaluated, outcome.wider
                context.found_by = ""  # the model's (from the search's partial fix, maybe)
                context.fixed_at_turn = context.turn
                return "passed"
            elif outcome is not None and outcome.broken is not None:
                context.check_error = feedback.regression_note(
                    outcome.broken, context.target, context.file
                )
                names = ", ".join(f"`{t.nodeid}`" for t in outcome.broken[:3])
                verdict = f"Not kept: it passed the tests shown but broke {names}."
                _remember(context, outcome.evaluated, verdict, kept=False)
            elif outcome is not None:
                improved = _weigh(context, outcome.evaluated, best_passed)
                near = outcome.evaluated  # a near miss: the search may finish it
                if _beats_original(context, near) and context.adopt(
                    search_host.near_miss_fix(context, near.candidate, near.run, PASSTHROUGH)
                ):
                    return "passed"
                if improved:
                    kept = context.best
                    best_passed = kept.run.passed if kept and kept.run else 0
            if improved:
                without_improvement = 0
            else:
                without_improvement += 1
            if not context.strategy.loops:
                return "max_turns"
            if without_improvement >= request.budget.no_improvement_limit:
                return "no_improvement"
            if failed:  # no answer says nothing of the mode: it gets the next turn too
                continue
            plan_spent = not improved and not plan.next_mode() and self.give_up_after > 0
            if plan_spent and without_improvement >= self.give_up_after:
                return "no_improvement"  # further turns have not paid


class _Plan:
    """The plan's modes as the turns go (modes.plan_modes): the first from turn 1, the next
    after a turn without gain."""

    def __init__(self, context: RunContext) -> None:
        self.context = context
        self.step = 0
        self._enter(0)

    def next_mode(self) -> bool:
        """After a turn with no gain, the plan's next mode (auto); False when there is none
        (a plain mode, or the end of auto's plan)."""
        if self.step + 1 >= len(self.context.plan):
            return False
        self._enter(self.step + 1)
        return True

    def _enter(self, step: int) -> None:
        context = self.context
        self.step = step
        planned = context.plan[step]
        context.strategy = STRATEGIES[planned.mode]
        context.mode = planned.mode
        context.recorder.record(
            "mode",
            turn=context.turn,
            requested=context.request.mode,
            mode=context.mode,
            why=planned.why,
        )


def _max_turns(context: RunContext) -> int:
    if not context.strategy.loops or not context.request.target.tests:
        return 1
    return max(1, context.request.budget.max_turns)


def _remember(context: RunContext, evaluated: Evaluated, verdict: str, kept: bool) -> None:
    """Keep the attempt for the next prompts; a program seen before is said to repeat, and
    the next turn samples instead of asking greedily again."""
    run, code = evaluated.run, evaluated.candidate.code
    if run is None or not code:
        return
    shows = context.strategy.shows_failures
    attempt = context.attempts.add(
        code,
        turn=context.turn,
        mode=context.strategy.name,
        tally=f"{run.passed}/{run.total}",
        feedback=(
            feedback.describe_failures(context.evidence_of(run), context.target, context.file)
            if shows
            else ""
        ),
        verdict=verdict,
        kept=kept,
    )
    context.record("attempt", number=attempt.number, kept=kept, repeat_of=attempt.repeat_of)
    if attempt.repeat_of:
        context.repeat_note = (
            f"Your last answer was the same program as {attempt.repeat_of}, which did not "
            "work; sending it again does not help, so make a different change."
        )
        context.sample_next_turn()


def _beats_original(context: RunContext, evaluated: Evaluated) -> bool:
    """More chosen tests pass than on the original: a near miss worth a search, even when
    the search's own partial fix (the best so far) passes as many."""
    before = context.chosen_before.passed if context.chosen_before is not None else 0
    return evaluated.run is not None and evaluated.run.passed > before


def _weigh(context: RunContext, evaluated: Evaluated, best_passed: int) -> bool:
    """A candidate that does not pass every chosen test: the best so far when it passes
    more than any before (True), the version shown next when it passes no fewer than the
    current one; remembered either way."""
    run = evaluated.run
    assert run is not None and context.current_run is not None
    improved = run.passed > best_passed
    if improved:
        context.best, context.best_wider = evaluated, None
        context.found_by = ""
        context.fixed_at_turn = context.turn
    current = f"{context.current_run.passed}/{context.current_run.total}"
    shows = context.strategy.shows_failures
    if run.passed >= context.current_run.passed and evaluated.candidate.code:
        verdict = (
            f"Kept: it passed {run.passed}/{run.total}, no fewer than before ({current}), "
            "so the function shown above is this version."
        )
        if not shows:
            verdict = "Kept: the function shown above is this version; it is still wrong."
        _remember(context, evaluated, verdict, kept=True)
        context.current_code = evaluated.candidate.code
        context.current_run = run
    else:
        verdict = (
            f"Not kept: it passed fewer tests ({run.passed}/{run.total}) than the version "
            f"shown above ({current})."
        )
        if not shows:
            verdict = "Not kept: it is still wrong."
        _remember(context, evaluated, verdict, kept=False)
    return improved
