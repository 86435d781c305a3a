"""The one judge of candidate fixes, whoever made them (the edit search, the model's local
edits, a model's rewrite built into an `Edit`): generators only generate.

`Judge(context).judge(candidates)` takes them through every step, in this order:
- refused: a candidate that writes a failing test's expected value into the code
  (overfitting.py), however it scores;
- run on the chosen and wider tests in batches (batches.py: `evaluate`, the failing tests
  first, stopping after a few pass);
- survivors: those that pass every chosen test, ranked (survivors.py); those that break a wider
  test that passed on the original are left out (the wider-test guard);
- run against each other and the original on generated inputs (crosscheck.py), and the rules
  of verdicts.py choose one, or none (`judge_survivors`), with the reasons for the choice
  (`Judgement.verdict`); when the first survivors differ and the model votes, the untried
  candidates are run too first (`conclude`);
- the chosen one verified afresh, as any fix is (verify.py), or, with no survivor, the best
  partial edit (partials.py).
A generator that judges as it generates (the model's local edits, hole by hole) calls
`evaluate` and `conclude` itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from selfdebug.server.cancel import Cancelled
from selfdebug.server.engine.answers.candidate import program_hash
from selfdebug.server.engine.judge.batches import Evaluation, Judging, SearchStop, evaluate
from selfdebug.server.engine.judge.context import ProgressFn, SearchContext, nothing
from selfdebug.server.engine.judge.crosscheck import CrossCheck
from selfdebug.server.engine.judge.partials import Partial, preferred_partial, rank_partials
from selfdebug.server.engine.judge.survivors import (
    Survivor,
    id_in,
    passes,
    rank_survivors,
    simplest_first,
)
from selfdebug.server.engine.judge.verdicts import SurvivorVerdict, judge_survivors
from selfdebug.server.engine.judge.verify import VerifiedFix, verify
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.engine.search.once_loops import loops_once
from selfdebug.server.engine.types import Alternatives
from selfdebug.server.runner.search_runner import SearchRunner


@dataclass
class SearchResult:
    """What running the candidates came to: how many, why it stopped, the survivors."""

    stop: SearchStop
    tried: int = 0
    total: int = 0
    survivors: list[Survivor] = field(default_factory=list)  # best first
    error: str = ""
    seconds: float = 0.0
    unsteady: list[str] = field(default_factory=list)  # see Evaluation
    refused: list[str] = field(default_factory=list)  # edits not tried, and why (overfitting.py)


@dataclass
class Judgement:
    """The judge's answer: the verified fix, or the edits the tests could not choose between,
    or the best partial edit, and the evidence behind it."""

    search: SearchResult | None = None
    fix: VerifiedFix | None = None
    ambiguous: list[Survivor] = field(default_factory=list)  # see `judge_survivors`
    crosscheck: CrossCheck | None = None
    separation: str = ""  # the generated input on which the ambiguous edits differ
    caveat: str = ""  # see SurvivorVerdict.caveat
    alternatives: Alternatives | None = None  # see SurvivorVerdict.alternatives
    agreement: str = ""  # survivors that behave the same
    partial: Partial | None = None  # no survivor: the best edit that fixes some failing tests
    verdict: SurvivorVerdict | None = None  # the rule that chose among the survivors, and why

    def ambiguity_note(self, k: int = 3) -> str:
        """For the user and the model: the edits the tests could not choose between, and
        the input that tells them apart when one was found."""
        if not self.ambiguous:
            return ""
        shown = "; ".join(s.edit.describe() for s in self.ambiguous[:k])
        more = f" and {len(self.ambiguous) - k} more" if len(self.ambiguous) > k else ""
        note = f"{len(self.ambiguous)} different small edits make the tests pass: {shown}{more}"
        return f"{note}; they differ {self.separation}" if self.separation else note

    @property
    def ranked(self) -> list[Survivor]:
        """The survivors in the order the judge tries them as the fix (best first), or the
        undecided ones; `search.survivors` holds every survivor in test order."""
        if self.verdict is None:
            return []
        return list(self.verdict.chosen or self.verdict.ambiguous)

    def reasons(self) -> list[str]:
        """Why `ranked` stands in its order: the rule that decided (verdicts.py), then what
        the generated inputs showed (agreement, caveat, the separating input, flaws)."""
        verdict = self.verdict
        if verdict is None or not verdict.rule:
            return []
        found = [verdict.agreement, verdict.caveat, self.separation, *verdict.flaws.values()]
        return [f"rule: {verdict.rule}", *(text for text in found if text)]


class Judge:
    """The judge of one context's candidates (see the module's docstring)."""

    def __init__(self, context: SearchContext, *, deadline: float | None = None) -> None:
        """`deadline` ends the test runs (time.monotonic(); the context's when None: a
        generator with its own budget passes its end)."""
        self.context = context
        target = context.target
        self.searcher = SearchRunner(
            context.runner, context.file, target.qualname, context.source, target.start_line + 1
        )
        self.judging = Judging.of(context)
        self.deadline = context.deadline if deadline is None else deadline

    def judge(
        self,
        candidates: Sequence[Edit],
        *,
        into: Judgement | None = None,
        progress: ProgressFn = nothing,
        started: float | None = None,
    ) -> Judgement:
        """Every step for `candidates`, run in their order (the generator's best first: the
        runs stop after a few pass, see `conclude` for the rest), into `into` (a new
        Judgement when None). Raises Cancelled when cancelled."""
        judgement = Judgement() if into is None else into
        started = time.monotonic() if started is None else started
        edits, refused = self.refuse_overfitting(list(candidates))

        def more(start: int) -> Evaluation:
            return self.evaluate(edits, progress=progress, start=start, stop_after=0)

        judged = self.evaluate(edits, progress=progress)
        self.conclude(judgement, edits, judged, started, refused, more)
        return judgement

    def refuse_overfitting(self, edits: list[Edit]) -> tuple[list[Edit], list[str]]:
        return refuse_overfitting(self.context, edits)

    def evaluate(
        self,
        edits: Sequence[Edit],
        *,
        progress: ProgressFn = nothing,
        start: int = 0,
        stop_after: int | None = None,
    ) -> Evaluation:
        """`evaluate` (batches.py) with this context's tests and limits."""
        context, judging = self.context, self.judging
        return evaluate(
            self.searcher,
            edits,
            context.chosen,
            judging.wider,
            first_line=context.target.start_line + 1,
            must_pass=judging.must_pass,
            settings=context.settings,
            cancel=context.cancel,
            deadline=self.deadline,
            progress=progress,
            failing_first=judging.failing_before,
            start=start,
            stop_after=stop_after,
        )

    def passing(
        self, found: Evaluation, unsteady: set[str], edits: Sequence[Edit] = (), offset: int = 0
    ) -> int:
        """How many of `found`'s candidates pass every test they must; with the `edits` they
        are (the first at `offset`), not those that keep a loop running once (once_loops.py):
        they end no search for a fix, the judge takes one that runs the loop first."""
        must_pass = self.judging.must_pass
        return sum(
            passes(v, must_pass, unsteady) and not (edits and loops_once(edits[offset + i].code))
            for i, v in found.verdicts.items()
        )

    def conclude(
        self,
        into: Judgement,
        edits: Sequence[Edit],
        judged: Evaluation,
        started: float,
        refused: list[str],
        more: Callable[[int], Evaluation] | None = None,
    ) -> None:
        """`conclude` with this judge's runner and tests."""
        conclude(self.context, self.searcher, into, edits, judged, self.judging, started,
                 refused, more)  # fmt: skip


def conclude(
    context: SearchContext,
    searcher: SearchRunner,
    step: Judgement,
    edits: Sequence[Edit],
    judged: Evaluation,
    judging: Judging,
    started: float,
    refused: list[str],
    more: Callable[[int], Evaluation] | None = None,
) -> None:
    """From the verdicts on `edits` to `step`'s answer: the survivors ranked, run against each
    other on generated inputs, the chosen one verified afresh (`step.fix`), or the undecided
    ones (`step.ambiguous`), or the best partial edit. Raises Cancelled when judging was.

    `more(start)` judges the edits from `start` on that an early stop left untried. When the
    first survivors disagree and the tests cannot choose, the intended fix may be a bigger
    edit than any of them (HumanEvalFix/145: every one-token edit that passes is wrong, the fix
    drops a term): the rest are judged too, before the session's preference (the model's vote)
    chooses among them all. At one line, only the rest at that line (dateutil `parse`: the
    first three survivors rewrite an error's message three ways; the one that keeps every
    message the original wrote, `str(e.args[0])`, comes later)."""
    kept, wider_passed_before = _survivors(context, step, edits, judged, judging, started, refused)
    untried = max(judged.verdicts, default=-1) + 1
    # every survivor keeps a loop that runs at most once: they pass by its first pass, and
    # an edit that runs the loop (a later, bigger one) is what the verdict rules prefer
    once = bool(kept) and all(loops_once(s.edit.code) for s in kept)
    can_go_on = (
        more is not None
        and (context.prefer is not None or once)  # else more survivors decide nothing
        and judged.stop == "found"
        and untried < len(edits)
    )
    verdict = judge_survivors(context, searcher, kept, vote=not can_go_on)
    # survivors at one line (that differ, or that nothing can compare) name the place the
    # tests agree on: more edits there; at several lines, more edits anywhere
    blind = verdict.rule == "no generated inputs" and len(verdict.chosen) > 1
    undecided = verdict.rule in ("ambiguous", "one line") or blind
    if can_go_on and more is not None and (undecided or once):
        why = ("every survivor keeps a loop that runs at most once" if once and not undecided
               else "no generated input could compare the survivors" if blind
               else "the survivors differ and the tests cannot choose")  # fmt: skip
        context.event("search_goes_on", tried=untried, total=len(edits), why=why)
        at_one_line = not once and (blind or verdict.rule == "one line")
        place = set(verdict.chosen[0].edit.lines) if at_one_line else set()
        judged.extend(more(untried))
        kept, wider_passed_before = _survivors(
            context, step, edits, judged, judging, started, refused
        )
        kept = [s for s in kept if set(s.edit.lines) <= place] if at_one_line else kept
        verdict = judge_survivors(context, searcher, kept)  # with the vote
    if not kept and (judging.passed_before or wider_passed_before):  # else any lucky edit would do
        partials = rank_partials(
            edits,
            judged.verdicts,
            judging.failing_before,
            judging.passed_before | wider_passed_before,
        )
        if partials:
            context.event("search_partial", edits=[p.describe() for p in partials[:5]])
        step.partial = preferred_partial(context, searcher, partials)
    if verdict.rule:
        context.event(
            "survivors_judged",
            rule=verdict.rule,
            groups=verdict.groups[:10],
            chosen=[s.edit.describe() for s in verdict.chosen[:3]],
            flaws=list(verdict.flaws.values())[:5],
            agreement=verdict.agreement,
        )
    step.verdict, step.ambiguous, step.crosscheck = verdict, verdict.ambiguous, verdict.check
    step.separation, step.agreement = verdict.separation, verdict.agreement
    step.caveat, step.alternatives = verdict.caveat, verdict.alternatives
    if step.ambiguous:
        context.event(
            "search_ambiguous",
            lines=sorted({n for s in step.ambiguous for n in s.edit.lines}),
            edits=[s.edit.describe() for s in step.ambiguous[:10]],
            separation=verdict.separation,
        )
    else:
        for survivor in verdict.chosen[:3]:
            step.fix = verify(context, survivor.edit, verdict.notes(survivor))
            if step.fix is not None:
                break
    if context.settings.record_candidates:
        _record_judged(context, step, edits, judged)


def _record_judged(
    context: SearchContext, step: Judgement, edits: Sequence[Edit], judged: Evaluation
) -> None:
    """Every candidate as the judge left it, for the benchmark's funnel (bench/funnel.py):
    its program's hash (`program_hash`, not its code: one short line each), its line, who
    made it (the model's sample, else the edit class), and "untried" (the runs stopped
    before it), "fails" (a chosen test), "breaks wider" (a wider test that passed before),
    "survived" or "chosen" (the verified fix)."""
    survived = {id(s.edit): s.breaks_wider for s in step.search.survivors} if step.search else {}
    chosen = step.fix.program if step.fix is not None else None
    rows = []
    for index, edit in enumerate(edits):
        if index not in judged.verdicts:
            result = "untried"
        elif id(edit) not in survived:
            result = "fails"
        elif survived[id(edit)]:
            result = "breaks wider"
        else:
            result = "chosen" if edit.program == chosen else "survived"
        rows.append([program_hash(edit.program), edit.line, edit.origin or edit.edit_class, result])
    context.event("judged", candidates=rows)


def _survivors(
    context: SearchContext,
    step: Judgement,
    edits: Sequence[Edit],
    judged: Evaluation,
    judging: Judging,
    started: float,
    refused: list[str],
) -> tuple[list[Survivor], set[str]]:
    """The survivors that break no wider test, simplest first (`step.search` records all), and
    the wider tests that passed before. Raises Cancelled when judging was."""
    # a test that fails on a re-run of the unchanged function in one process says nothing of
    # an edit there; the winner's fresh-process run below still runs it
    wider_ids = judged.wider_ids
    wider_passed_before = {
        n for n in wider_ids if id_in(n, judging.wider_passed) and n not in judged.unsteady
    }
    survivors = rank_survivors(
        edits, judged.verdicts, judged.chosen_ids, wider_ids, wider_passed_before
    )
    result = SearchResult(judged.stop, len(judged.verdicts), len(edits), survivors, judged.error,
                          time.monotonic() - started, sorted(judged.unsteady), refused)  # fmt: skip
    step.search = result
    context.event(
        "search",
        stop=result.stop,
        tried=result.tried,
        total=result.total,
        error=result.error,
        seconds=round(result.seconds, 3),
        unsteady=result.unsteady[:10],
        survivors=[
            {
                "edit": s.edit.describe(),
                "wider": f"{s.wider_passed}/{s.wider_total}",
                "breaks_wider": s.breaks_wider,
            }
            for s in survivors[:10]
        ],
    )
    if result.stop == "cancelled":
        raise Cancelled(context.cancel.reason or "cancelled")
    return simplest_first([s for s in survivors if not s.breaks_wider]), wider_passed_before


def refuse_overfitting(context: SearchContext, edits: list[Edit]) -> tuple[list[Edit], list[str]]:
    """The edits that may be tried, and the refused ones described with why: an edit that
    writes a failing test's expected value into the code is an overfit however it scores."""
    kept: list[Edit] = []
    refused: list[str] = []
    hashes: list[list[object]] = []
    for edit in edits:
        original = edit.original_program(context.target.code)
        why = context.expected_values.refusal(edit.program, original)
        if why:
            refused.append(f"{edit.describe()}: {why}")
            if context.settings.record_candidates:
                hashes.append(
                    [program_hash(edit.program), edit.line, edit.origin or edit.edit_class]
                )
        else:
            kept.append(edit)
    if refused:  # `candidates` as `judged` names them (the benchmark's funnel)
        context.event("search_refused", count=len(refused), edits=refused[:10],
                      candidates=hashes)  # fmt: skip
    return kept, refused
