"""Evidence-driven repair without a model: localize the fault from real runs, then try the small
classic edits at the most suspicious lines, many per test process, and keep what the tests say.

Steps (each a plain function, so the session, the benchmark and the tests call the same code):
- `localize`: one run of the chosen and wider tests with line coverage of the target only
  (server/runner/search_runner.py), ranked by Ochiai (localize.py);
- `candidate_edits`: the edits of edits.py at the top lines, bounded, ordered;
- `evaluate`: the edits judged in batches (progress "tried 140/300 edits" between batches; the
  time budget and cancel stop a batch at once, by killing its process);
- `rank_survivors`: edits that pass every chosen test, ranked by wider tests passed, then edit
  size, then agreement with the model's candidates, then line rank;
- `judge_survivors`: the distinct survivors and the original run on inputs generated from the
  tests' own calls (crosscheck.py): survivors that agree everywhere are one answer (the
  smallest is proposed); survivors at different lines that disagree mean the tests cannot tell
  where the bug is (the classic overfitting of such a search): nothing is proposed, and the
  input that separates them is shown to the user and the model instead;
- `search_step`: all of it for a session; the winner is run once more the normal way (a fresh
  pytest process, chosen and wider tests) so that its evidence is what every fix is judged by.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from selfdebug.server.cancel import Cancelled, CancelToken
from selfdebug.server.engine.answers.candidate import Candidate, program_key
from selfdebug.server.engine.evidence import NOTHING_EXPECTED, Evidence, Expected
from selfdebug.server.engine.overfitting import NO_EXPECTED_VALUES, ExpectedValues
from selfdebug.server.engine.search.crosscheck import (
    CrossCheck,
    Separation,
    Versions,
    describe_separation,
    run_crosscheck,
)
from selfdebug.server.engine.search.edits import Edit, generate_edits
from selfdebug.server.engine.search.localize import Localization, SuspiciousLine, rank_lines
from selfdebug.server.engine.search.predicates import with_guarding_conditions
from selfdebug.server.engine.target import TargetFunction
from selfdebug.server.engine.types import Alternatives
from selfdebug.server.runner.results import RunResult, nodeid_covers
from selfdebug.server.runner.search_runner import (
    CandidateCode,
    CoverageRun,
    SearchRunner,
    Verdict,
)

if TYPE_CHECKING:
    from selfdebug.server.runner import ProjectRunner

SearchStop = Literal["found", "exhausted", "cancelled", "time_budget", "error", "skipped"]
MAX_CHECKED = 10  # distinct survivors run on generated inputs
MIN_INPUTS = 20  # fewer say little the tests did not; needed to call edits equivalent (a flaw or a
# disagreement needs only the one input that shows it: fix_check.py uses every usable check)
FIRST_BATCH = 40  # a first answer (and progress) soon; later batches are larger
BATCH = 150


@dataclass
class SearchSettings:
    max_edits: int = 300  # candidates tried at most
    top_lines: int = 8  # suspicious lines edited
    stop_after: int = 3  # full passes that end the search early
    crosscheck: bool = True  # survivors run against each other on generated inputs
    generated_inputs: int = 200
    min_candidate_timeout_s: float = 0.5  # per candidate, all its tests together
    max_candidate_timeout_s: float = 5.0


@dataclass
class Survivor:
    """An edit that passes every chosen test."""

    edit: Edit
    chosen_passed: int
    chosen_total: int
    wider_passed: int
    wider_total: int
    breaks_wider: bool  # a wider test that passed before fails with the edit
    agrees_with_model: bool = False

    def sort_key(self) -> tuple[Any, ...]:
        e = self.edit
        return (self.breaks_wider, -self.wider_passed, e.size, not self.agrees_with_model, e.rank)


# survivors the tests cannot tell apart -> the one to propose and why (SearchContext.prefer)
# For each of some function texts, the group of survivors (an index into the groups) it behaves
# like on every generated input, or None: how a model's answer that is no survivor still votes.
BehaviourMatch = Callable[[Sequence[str]], list["int | None"]]
# (each group: survivors that behave alike; a match for other texts) -> the survivor to propose
# and why, or None
Preference = Callable[[Sequence[Sequence[Survivor]], BehaviourMatch], "tuple[Survivor, str] | None"]


@dataclass
class SearchResult:
    stop: SearchStop
    tried: int = 0
    total: int = 0
    survivors: list[Survivor] = field(default_factory=list)  # best first
    error: str = ""
    seconds: float = 0.0
    unsteady: list[str] = field(default_factory=list)  # see Evaluation
    refused: list[str] = field(default_factory=list)  # edits not tried, and why (overfitting.py)


@dataclass
class VerifiedFix:
    """The search's winner after a normal run: what the session proposes."""

    candidate: Candidate
    chosen_run: RunResult
    wider_run: RunResult | None
    found_by: str  # "edit search at line 7"


@dataclass
class SearchStep:
    localization: Localization | None = None
    coverage: CoverageRun | None = None
    search: SearchResult | None = None
    fix: VerifiedFix | None = None
    ambiguous: list[Survivor] = field(default_factory=list)  # see `judge_survivors`
    crosscheck: CrossCheck | None = None
    separation: str = ""  # the generated input on which the ambiguous edits differ
    caveat: str = ""  # see SurvivorVerdict.caveat
    alternatives: Alternatives | None = None  # see SurvivorVerdict.alternatives
    agreement: str = ""  # survivors that behave the same
    partial: Partial | None = None  # no survivor: the best edit that fixes some failing tests

    def ambiguity_note(self, k: int = 3) -> str:
        """For the user and the model: the edits the tests could not choose between, and
        the input that tells them apart when one was found."""
        if not self.ambiguous:
            return ""
        shown = "; ".join(s.edit.describe() for s in self.ambiguous[:k])
        more = f" and {len(self.ambiguous) - k} more" if len(self.ambiguous) > k else ""
        note = f"{len(self.ambiguous)} different small edits make the tests pass: {shown}{more}"
        return f"{note}; they differ {self.separation}" if self.separation else note


ProgressFn = Callable[[str, float], None]
EventFn = Callable[..., object]


def _nothing(*_args: Any, **_kwargs: Any) -> None:
    return None


# -- the steps --
def localize(
    searcher: SearchRunner,
    target: TargetFunction,
    tests: Sequence[str],
    *,
    cancel: CancelToken | None = None,
    timeout_s: float | None = None,
) -> tuple[Localization, CoverageRun]:
    coverage = searcher.coverage(tests, cancel=cancel, timeout_s=timeout_s)
    outcomes = {nodeid: t.outcome for nodeid, t in coverage.tests.items()}
    lines = {nodeid: t.lines for nodeid, t in coverage.tests.items()}
    header = range(target.start_line + 1, target.def_line + 2)  # decorators and the def line
    localization = rank_lines(outcomes, lines, exclude=header)
    if coverage.error and not coverage.tests:
        localization.note = f"no localization: {coverage.error}"
    return localization, coverage


def candidate_edits(
    target: TargetFunction,
    lines: Sequence[SuspiciousLine],
    settings: SearchSettings,
    expected: Expected = NOTHING_EXPECTED,
) -> list[Edit]:
    """Edits at the top lines; lines with the same score share a rank, so that a small edit on
    any of them comes before a larger one on the first. A group of lines with the last top
    line's score is taken whole (up to twice `top_lines`): where a cut falls inside it is
    chance (the lines every test runs tie, and a bug before a failing path is among them). The
    condition that guards each top line is edited too (predicates.py)."""
    top = list(lines[: settings.top_lines])
    if top:
        last = round(top[-1].score, 9)
        for line in lines[len(top) : 2 * settings.top_lines]:
            if round(line.score, 9) != last:
                break
            top.append(line)
    ranks: dict[int, int] = {}
    scores: list[float] = []
    for line in top:
        score = round(line.score, 9)
        if score not in scores:
            scores.append(score)
        ranks[line.line] = scores.index(score)
    ranks = with_guarding_conditions(target.code, target.start_line + 1, ranks)
    return generate_edits(
        target.code,
        target.start_line + 1,
        ranks,
        settings.max_edits,
        expected,
        class_name=target.class_name,
    )


@dataclass
class Evaluation:
    """What judging the edits came to (see `evaluate`)."""

    verdicts: dict[int, Verdict] = field(default_factory=dict)  # by edit index
    stop: SearchStop = "exhausted"
    error: str = ""
    chosen_ids: list[str] = field(default_factory=list)  # as collected
    wider_ids: list[str] = field(default_factory=list)
    unsteady: set[str] = field(default_factory=set)  # wider tests failing on a re-run, unchanged

    def extend(self, more: Evaluation, offset: int = 0) -> None:
        """`more`'s verdicts added, numbered from `offset` (its edits follow these in one list)."""
        self.verdicts.update({offset + i: v for i, v in more.verdicts.items()})
        self.chosen_ids = more.chosen_ids or self.chosen_ids
        self.wider_ids = more.wider_ids or self.wider_ids
        self.unsteady |= more.unsteady
        self.stop, self.error = more.stop, more.error or self.error


def evaluate(
    searcher: SearchRunner,
    edits: Sequence[Edit],
    chosen: Sequence[str],
    wider: Sequence[str],
    *,
    first_line: int,
    must_pass: Sequence[str],
    settings: SearchSettings,
    cancel: CancelToken | None = None,
    deadline: float | None = None,
    progress: ProgressFn = _nothing,
    failing_first: Sequence[str] = (),
    start: int = 0,
    stop_after: int | None = None,
) -> Evaluation:
    """Judge `edits` from `start` in batches, FIRST_BATCH then BATCH per test process, until
    `stop_after` pass (settings.stop_after by default; 0: judge them all)."""
    found = Evaluation()
    stop_after = settings.stop_after if stop_after is None else stop_after
    first = start
    full = 0
    progress(f"tried 0/{len(edits)} edits", 0.0)
    while start < len(edits):
        if cancel is not None and cancel.cancelled:
            found.stop = "cancelled"
            return found
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            found.stop = "time_budget"
            return found
        size = FIRST_BATCH if start == first else BATCH
        batch = edits[start : start + size]
        codes = [CandidateCode(start + i, e.code, first_line) for i, e in enumerate(batch)]
        judged = searcher.judge(
            codes,
            chosen,
            wider,
            cancel=cancel,
            timeout_s=remaining,
            stop_after=max(0, stop_after - full),
            per_candidate={
                "min_timeout_s": settings.min_candidate_timeout_s,
                "max_timeout_s": settings.max_candidate_timeout_s,
            },
            must_pass=must_pass,
            failing_first=failing_first,
        )
        found.verdicts.update(judged.verdicts)
        found.chosen_ids = judged.chosen or found.chosen_ids
        found.wider_ids = judged.wider or found.wider_ids
        found.unsteady |= judged.unsteady
        full += sum(passes(v, must_pass, found.unsteady) for v in judged.verdicts.values())
        start += len(batch)
        tried = len(found.verdicts)
        progress(f"tried {first + tried}/{len(edits)} edits", (first + tried) / max(1, len(edits)))
        if judged.cancelled:
            found.stop = "cancelled"
            return found
        if judged.out_of_time:
            found.stop = "time_budget"
            return found
        if judged.error:
            found.stop, found.error = "error", judged.error
            return found
        if stop_after and full >= stop_after:
            found.stop = "found"
            break
    return found


def passes(verdict: Verdict, must_pass: Sequence[str], unsteady: set[str]) -> bool:
    if verdict.timed_out or verdict.problem or not verdict.outcomes:
        return False
    wanted = set(must_pass) - unsteady
    return all(o == "passed" for n, o in verdict.outcomes.items() if _id_in(n, wanted))


def rank_survivors(
    edits: Sequence[Edit],
    verdicts: dict[int, Verdict],
    chosen_ids: Sequence[str],
    wider_ids: Sequence[str],
    wider_passed_before: set[str],
    model_codes: Sequence[str] = (),
) -> list[Survivor]:
    """Edits that pass every chosen test, best first (see Survivor.sort_key)."""
    model_keys = {program_key(code) for code in model_codes}
    survivors = []
    for index, verdict in verdicts.items():
        if verdict.timed_out or verdict.problem or not chosen_ids:
            continue
        if not all(verdict.outcomes.get(n) == "passed" for n in chosen_ids):
            continue
        edit = edits[index]
        wider_passed = sum(verdict.outcomes.get(n) == "passed" for n in wider_ids)
        breaks = any(verdict.outcomes.get(n) != "passed" for n in wider_passed_before)
        survivors.append(
            Survivor(
                edit,
                len(chosen_ids),
                len(chosen_ids),
                wider_passed,
                len(wider_ids),
                breaks,
                program_key(edit.code) in model_keys,
            )
        )
    survivors.sort(key=Survivor.sort_key)
    return survivors


@dataclass
class Partial:
    """An edit that fixes some of the failing chosen tests and breaks no test that passed:
    one part of a bug at two places (click `style`: two copy-pasted lines), for a second
    search, or the model, to finish."""

    edit: Edit
    fixed: list[str]  # chosen tests that failed on the original and pass with the edit
    failing_total: int

    def describe(self) -> str:
        return (
            f"{self.edit.describe()} fixes {len(self.fixed)} of {self.failing_total} failing tests"
        )


def rank_partials(
    edits: Sequence[Edit],
    verdicts: dict[int, Verdict],
    failing_before: Sequence[str],
    passed_before: set[str],
) -> list[Partial]:
    """Edits that make some but not all of `failing_before` pass while every test of
    `passed_before` (the chosen and wider tests that passed on the original) still passes;
    most tests fixed first, then the smallest edit, then the most suspicious line."""
    partials = []
    for index, verdict in verdicts.items():
        if verdict.timed_out or verdict.problem:
            continue
        fixed = [n for n in failing_before if verdict.outcomes.get(n) == "passed"]
        if not fixed or len(fixed) == len(failing_before):
            continue
        if all(verdict.outcomes.get(n) == "passed" for n in passed_before):
            partials.append(Partial(edits[index], fixed, len(failing_before)))
    partials.sort(key=lambda p: (-len(p.fixed), p.edit.size, p.edit.rank))
    return partials


@dataclass
class SurvivorVerdict:
    """What the survivors come to once run against each other (see `judge_survivors`)."""

    chosen: list[Survivor] = field(default_factory=list)  # to verify, best first
    ambiguous: list[Survivor] = field(default_factory=list)  # differing answers: none chosen
    check: CrossCheck | None = None
    separation: str = ""  # the input that tells the ambiguous ones apart, each one's result
    agreement: str = ""  # "2 edits at lines 6 and 7 behave the same on 200 generated inputs"
    flaws: dict[int, str] = field(default_factory=dict)  # id(survivor) -> flaw note
    groups: list[list[str]] = field(default_factory=list)  # the edits, by behaviour
    rule: str = ""  # which rule decided ("one answer", "only a repair", "one line", ...)
    caveat: str = ""  # what the tests could not tell: "2 fixes pass; they differ on f(0): ..."
    alternatives: Alternatives | None = None  # the caveat's or the ambiguous edits, structured

    def notes(self, survivor: Survivor) -> list[str]:
        """What the proposed edit's explanation and warnings say about this evidence."""
        notes = [self.agreement] if self.agreement else []
        return notes + ([self.flaws[id(survivor)]] if id(survivor) in self.flaws else [])


def judge_survivors(
    context: SearchContext, searcher: SearchRunner, kept: Sequence[Survivor], *, vote: bool = True
) -> SurvivorVerdict:
    """The distinct programs among `kept` (best first; a pair whose part passes alone is
    left out: its other change is not needed), run with the original on generated
    inputs (crosscheck.py). Those that raise where the original returned give way to those
    that do not; the rest that agree everywhere are one answer (the first, smallest, is
    proposed). When they disagree, the one answer that keeps every result the original
    returned normally, where each other one changes some (`CrossCheck.only_repair`: it fixes
    a crash or a hang and nothing else; of several, the one that also keeps the original's
    other exceptions), is proposed; else, at more than one line, nothing is
    proposed and the input that separates them is shown instead; at one line, the smallest
    edit there.

    Without that evidence (no inputs could be made), survivors at several lines are treated as
    disagreeing; at one line the model votes (`vote`; its answers count only when they are a
    survivor's program, or scored) before the smallest is taken (HumanEvalFix/147: scored
    among survivors at four lines, a wrong one was chosen where none was right). On QuixBugs dev
    before the check (visible tests: one or two cases), survivors at several lines were far more
    common among the search's fixes that failed hidden tests than among the right ones."""
    alone = {s.edit.code for s in kept}
    kept = [s for s in kept if not any(p.code in alone for p in s.edit.parts)]  # minimal ones
    programs = [group[0] for group in _by_program(kept).values()][:MAX_CHECKED]
    verdict = SurvivorVerdict()
    if not programs:
        return verdict
    check = verdict.check = _crosscheck(context, searcher, programs)
    if check is None:  # no evidence: at one line the model's vote or the smallest, else nothing
        verdict.rule = "no generated inputs"
        one_line = len({n for s in programs for n in s.edit.lines}) <= 1
        each = [[s] for s in programs]  # no behaviour known: each program its own
        if one_line and vote and (voted := _preferred(context, searcher, each, blind=True)):
            verdict.rule = "the model's choice"
            verdict.chosen, verdict.agreement = [voted[0]], voted[1]
            verdict.caveat = f"{len(programs)} fixes pass; no generated input could compare them"
        elif one_line:
            verdict.chosen = list(programs)
            if len(programs) > 1:
                verdict.caveat = (
                    f"{len(programs)} fixes pass; no generated input could compare them"
                )
        else:
            verdict.ambiguous = list(programs)
        if len(programs) > 1:
            verdict.alternatives = Alternatives(tuple(s.edit.describe() for s in programs))
        return verdict
    keys = {id(s): str(i) for i, s in enumerate(programs)}
    by_key = {keys[id(s)]: s for s in programs}
    for survivor in programs:
        note = check.flaw_note(keys[id(survivor)])
        if note:
            verdict.flaws[id(survivor)] = note
    candidates = [s for s in programs if id(s) not in verdict.flaws] or programs
    flawed = [s for s in programs if s not in candidates]  # tried only if the rest fail
    groups = check.behaviour_groups([keys[id(s)] for s in candidates])
    verdict.groups = [[by_key[k].edit.describe() for k in group] for group in groups]
    behaviours = [[by_key[k] for k in group] for group in groups]  # the survivors, grouped
    firsts = [group[0] for group in behaviours]
    answers, failures = [group[0] for group in groups], context.evidence.expected.failed_with
    repair = check.only_repair(answers, failures) if len(groups) > 1 else None
    if len(groups) == 1:
        verdict.rule = "one answer"
        verdict.chosen = [by_key[k] for k in groups[0]] + flawed
        if len(groups[0]) > 1:
            lines = sorted({n for k in groups[0] for n in by_key[k].edit.lines})
            verdict.agreement = (
                f"{len(groups[0])} edits at {_lines_text(lines)} behave the same on "
                f"{check.inputs} generated inputs"
            )
    elif repair is not None:
        verdict.rule = "only a repair"
        verdict.caveat, verdict.alternatives = _differ(check, keys, firsts)
        verdict.chosen = [by_key[k] for k in next(g for g in groups if g[0] == repair)]
        kept_errors = check.only_repair(answers) is None  # told apart by their errors
        verdict.agreement = (
            f"of {len(groups)} answers that differ on {check.inputs} generated inputs, the only "
            "one that keeps every result the original returned"
            + (f" and every error it raised but the failing tests' {', '.join(failures)}"
               if kept_errors else
               " (it answers only where the original raised or did not finish)")
        )  # fmt: skip
    elif vote and (preferred := _preferred(context, searcher, behaviours)) is not None:
        pick, why = preferred
        verdict.rule = "the model's choice"
        verdict.caveat, verdict.alternatives = _differ(check, keys, firsts)
        group = next(g for g in behaviours if any(s is pick for s in g))
        verdict.chosen = [pick, *[s for s in group if s is not pick]]
        verdict.agreement = why
    elif len({n for s in firsts for n in s.edit.lines}) <= 1:
        verdict.rule = "one line"
        verdict.chosen = list(candidates)
        verdict.caveat, verdict.alternatives = _differ(check, keys, firsts)
    else:
        verdict.rule = "ambiguous"
        verdict.ambiguous = firsts
        separation = check.separating([keys[id(s)] for s in firsts])
        if separation is not None:
            labels = {keys[id(s)]: s.edit.describe() for s in firsts[:3]}
            verdict.separation = describe_separation(separation, labels)
        verdict.alternatives = _alternatives(separation, keys, firsts)
    return verdict


def _preferred(
    context: SearchContext,
    searcher: SearchRunner,
    groups: Sequence[Sequence[Survivor]],
    *,
    blind: bool = False,
) -> tuple[Survivor, str] | None:
    """The survivor the session's preference (the model's vote) picks, each group a different
    behaviour; None without a preference or a pick. `blind`: no generated inputs could run,
    so an answer that is no survivor matches none."""
    if context.prefer is None or len(groups) < 2:
        return None

    def match(codes: Sequence[str]) -> list[int | None]:
        """Each text's group: the one whose first survivor it agrees with on every generated
        input, when exactly one does (a text that does not run matches none)."""
        if blind:
            return [None] * len(codes)
        firsts = [group[0].edit.code for group in groups]
        check = _on_generated_inputs(context, searcher, [*firsts, *codes])
        if not _gives_evidence(check):
            return [None] * len(codes)
        found: list[int | None] = []
        for j in range(len(codes)):
            key = str(len(firsts) + j)
            runs = bool(check.outcomes(key))
            hits = [i for i in range(len(firsts)) if runs and check.agree(key, str(i))]
            found.append(hits[0] if len(hits) == 1 else None)
        return found

    found = context.prefer(groups, match)
    if found is None or not any(found[0] is s for group in groups for s in group):
        return None
    return found


def _differ(
    check: CrossCheck, keys: dict[int, str], firsts: Sequence[Survivor]
) -> tuple[str, Alternatives]:
    """`2 fixes pass; they differ on f(0): ...`: the answers one of which a rule chose, as the
    caveat says it and structured."""
    separation = check.separating([keys[id(s)] for s in firsts])
    alternatives = _alternatives(separation, keys, firsts)
    if separation is None:
        return f"{len(firsts)} fixes pass and differ", alternatives
    labels = {keys[id(s)]: s.edit.describe() for s in firsts[:3]}
    caveat = f"{len(firsts)} fixes pass; they differ {describe_separation(separation, labels)}"
    return caveat, alternatives


def _alternatives(
    separation: Separation | None, keys: dict[int, str], firsts: Sequence[Survivor]
) -> Alternatives:
    """The answers that differ, each one's result on the input that tells them apart."""
    edits = tuple(s.edit.describe() for s in firsts)
    if separation is None:
        return Alternatives(edits)
    results = tuple(separation.results.get(keys[id(s)], "") for s in firsts)
    return Alternatives(edits, separation.call, results)


def _lines_text(lines: Sequence[int]) -> str:
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + ", ".join(str(n) for n in lines[:-1]) + f" and {lines[-1]}"


def _crosscheck(
    context: SearchContext, searcher: SearchRunner, programs: Sequence[Survivor]
) -> CrossCheck | None:
    """The programs and the original on generated inputs; None when that gives no evidence
    (no calls recorded, too few inputs, an error): see the transcript's `crosscheck` event."""
    if not context.settings.crosscheck:
        return None
    context.progress(f"running {len(programs)} edits on generated inputs", 0.9)
    check = _on_generated_inputs(context, searcher, [s.edit.code for s in programs])
    context.cancel.raise_if_cancelled()
    context.event(
        "crosscheck",
        versions=len(programs),
        **check.record_fields(),
    )
    return check if _gives_evidence(check) else None


def _on_generated_inputs(
    context: SearchContext, searcher: SearchRunner, codes: Sequence[str]
) -> CrossCheck:
    """`codes` (function texts, ids "0", "1", ... in order) and the original run on the inputs
    generated from the calls the chosen and wider tests make."""
    versions = Versions({str(i): code for i, code in enumerate(codes)},
                        context.target.start_line + 1)  # fmt: skip
    tests = list(dict.fromkeys(context.chosen + context.wider))
    return run_crosscheck(
        searcher, context.target.name, versions, tests,
        count=context.settings.generated_inputs, cancel=context.cancel,
        timeout_s=_left(context.deadline),
    )  # fmt: skip


def _gives_evidence(check: CrossCheck) -> bool:
    return check.usable and check.inputs >= MIN_INPUTS


def simplest_first(survivors: Sequence[Survivor]) -> list[Survivor]:
    """The same order, but within edits that make one program the plain spelling first: the
    user is shown `levenshtein(...)`, not `1 * levenshtein(...)` (the first edit that passed)."""
    ordered = []
    for key, group in _by_program(survivors).items():
        plain = [s for s in group if program_key(s.edit.code) == key]
        ordered += plain + [s for s in group if s not in plain]
    return ordered


def _by_program(survivors: Sequence[Survivor]) -> dict[str, list[Survivor]]:
    """The survivors grouped by the program they make (`behaviour_key`), in their order."""
    groups: dict[str, list[Survivor]] = {}
    for survivor in survivors:
        groups.setdefault(behaviour_key(survivor.edit.code), []).append(survivor)
    return groups


def behaviour_key(code: str) -> str:
    """`program_key` after the arithmetic identities (`1 * x`, `x + 0`, `x - 0`): the edits
    `1 + f(x)` -> `1 * f(x)`, `1` -> `0` and dropping `1 +` make one program, not three."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return program_key(code)
    return program_key(ast.unparse(_Identities().visit(tree)))


class _Identities(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        left, right = node.left, node.right
        if isinstance(node.op, ast.Add | ast.Sub) and _is_number(right, 0):
            return left
        if isinstance(node.op, ast.Add) and _is_number(left, 0):
            return right
        if isinstance(node.op, ast.Mult) and _is_number(right, 1):
            return left
        if isinstance(node.op, ast.Mult) and _is_number(left, 1):
            return right
        return node


def _is_number(node: ast.expr, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


# -- for a session --
@dataclass
class SearchContext:
    """What the session hands over: the function, its tests and the session's limits."""

    runner: ProjectRunner
    file: Path
    source: str
    target: TargetFunction
    chosen: list[str]
    wider: list[str]
    chosen_before: RunResult
    evidence: Evidence  # chosen_before's failing tests, read once (engine/evidence.py)
    wider_before: RunResult | None
    cancel: CancelToken
    deadline: float | None  # time.monotonic() value; None: no time budget
    run_tests: Callable[[list[str], str, str], RunResult]  # (nodeids, file text, label)
    progress: ProgressFn = _nothing
    event: EventFn = _nothing  # transcript
    settings: SearchSettings = field(default_factory=SearchSettings)
    first_lines: list[int] = field(default_factory=list)  # edited before the suspicious lines
    found_on: str = ""  # what the edits change, for `found_by` ("the model's candidate")
    expected_values: ExpectedValues = NO_EXPECTED_VALUES  # refuses edits that write them in
    # survivors the tests cannot tell apart -> the one to propose and why (the model's vote,
    # model_edits/preference.py); None: the rules below decide alone
    prefer: Preference | None = None


def search_step(context: SearchContext, *, search: bool) -> SearchStep:
    """Localize (always), and when `search`, try edits and verify the best one. Raises
    Cancelled when cancelled; a spent time budget ends the step with what it has."""
    step = SearchStep()
    searcher = SearchRunner(
        context.runner,
        context.file,
        context.target.qualname,
        context.source,
        context.target.start_line + 1,
    )
    tests = list(dict.fromkeys(context.chosen + context.wider))
    context.progress("localizing the fault (line coverage)", 0.02)
    localization, coverage = localize(
        searcher, context.target, tests, cancel=context.cancel, timeout_s=_left(context.deadline)
    )
    context.cancel.raise_if_cancelled()
    step.localization, step.coverage = localization, coverage
    context.event(
        "localization",
        lines=[vars(s) for s in localization.lines[:10]],
        note=localization.note,
        coverage_overhead=round(coverage.overhead, 3),
        error=coverage.error,
    )
    if not search:
        return step
    started = time.monotonic()
    lines = localization.lines or all_lines(context.target)  # no evidence: every line, in order
    if context.first_lines:  # lines named by the caller (a model's changes) rank first
        top = max([s.score for s in lines], default=0.0) + 1.0
        given = [SuspiciousLine(n, top, 0, 0, 0, 0) for n in context.first_lines]
        lines = given + [s for s in lines if s.line not in set(context.first_lines)]
    edits = candidate_edits(context.target, lines, context.settings, context.evidence.expected)
    edits, refused = refuse_overfitting(context, edits)
    judging = Judging.of(context)

    def judge_from(start: int, stop_after: int | None = None) -> Evaluation:
        return evaluate(
            searcher,
            edits,
            context.chosen,
            judging.wider,
            first_line=context.target.start_line + 1,
            must_pass=judging.must_pass,
            settings=context.settings,
            cancel=context.cancel,
            deadline=context.deadline,
            progress=context.progress,
            failing_first=judging.failing_before,
            start=start,
            stop_after=stop_after,
        )

    judged = judge_from(0)

    def more(start: int) -> Evaluation:
        return judge_from(start, stop_after=0)

    conclude(context, searcher, step, edits, judged, judging, started, refused, more)
    return step


@dataclass(frozen=True)
class Judging:
    """What every candidate (the search's edits, the model's local edits) is judged by: the
    chosen tests, the wider tests that passed on the original, and which failed before."""

    wider: list[str]  # the wider tests that are not chosen ones
    must_pass: list[str]  # chosen, and the wider ones that passed on the original
    wider_passed: set[str]  # requested ids of wider tests that passed on the original
    failing_before: list[str]  # chosen tests that failed on the original
    passed_before: set[str]  # chosen tests that passed on the original

    @classmethod
    def of(cls, context: SearchContext) -> Judging:
        before = context.wider_before.tests if context.wider_before else []
        wider_passed = {t.nodeid for t in before if t.ok and t.nodeid not in context.chosen}
        return cls(
            wider=[t for t in context.wider if t not in context.chosen],
            must_pass=list(dict.fromkeys(context.chosen + sorted(wider_passed))),
            wider_passed=wider_passed,
            failing_before=[t.nodeid for t in context.chosen_before.tests if not t.ok],
            passed_before={t.nodeid for t in context.chosen_before.tests if t.ok},
        )


def conclude(
    context: SearchContext,
    searcher: SearchRunner,
    step: SearchStep,
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
    can_go_on = (
        more is not None
        and context.prefer is not None  # without a vote, more survivors decide nothing
        and judged.stop == "found"
        and untried < len(edits)
    )
    verdict = judge_survivors(context, searcher, kept, vote=not can_go_on)
    # survivors at one line (that differ, or that nothing can compare) name the place the
    # tests agree on: more edits there; at several lines, more edits anywhere
    blind = verdict.rule == "no generated inputs" and len(verdict.chosen) > 1
    if can_go_on and more is not None and (verdict.rule in ("ambiguous", "one line") or blind):
        why = ("no generated input could compare the survivors" if blind
               else "the survivors differ and the tests cannot choose")  # fmt: skip
        context.event("search_goes_on", tried=untried, total=len(edits), why=why)
        at_one_line = blind or verdict.rule == "one line"
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
        step.partial = _preferred_partial(context, searcher, partials)
    if verdict.rule:
        context.event(
            "survivors_judged",
            rule=verdict.rule,
            groups=verdict.groups[:10],
            chosen=[s.edit.describe() for s in verdict.chosen[:3]],
            flaws=list(verdict.flaws.values())[:5],
            agreement=verdict.agreement,
        )
    step.ambiguous, step.crosscheck = verdict.ambiguous, verdict.check
    step.separation, step.agreement = verdict.separation, verdict.agreement
    step.caveat, step.alternatives = verdict.caveat, verdict.alternatives
    if step.ambiguous:
        context.event(
            "search_ambiguous",
            lines=sorted({n for s in step.ambiguous for n in s.edit.lines}),
            edits=[s.edit.describe() for s in step.ambiguous[:10]],
            separation=verdict.separation,
        )
        return
    for survivor in verdict.chosen[:3]:
        step.fix = _verify(context, survivor.edit, verdict.notes(survivor))
        if step.fix is not None:
            break


def _preferred_partial(
    context: SearchContext, searcher: SearchRunner, partials: Sequence[Partial]
) -> Partial | None:
    """The partial edit to build on: of the best ones (the same tests fixed), the one the
    model's vote picks when they are different programs, as for fixes the tests cannot tell
    apart (click `style`: `underline` -> `not underline`, `-> overline`, `-> text` at one line
    each fix the same test); else the first (the smallest edit)."""
    if not partials:
        return None
    best = set(partials[0].fixed)
    tied = [p for p in partials if set(p.fixed) == best]
    partial_of = {id(p.edit): p for p in tied}
    survivors = [Survivor(p.edit, len(p.fixed), p.failing_total, 0, 0, False) for p in tied]
    programs = [group[0] for group in _by_program(survivors).values()][:MAX_CHECKED]
    if len(programs) < 2 or context.prefer is None:
        return partials[0]
    found = _preferred(context, searcher, [[s] for s in programs], blind=True)
    if found is None:
        return partials[0]
    chosen = partial_of[id(found[0].edit)]
    context.event("search_partial_preferred", edit=chosen.describe(), why=found[1])
    return chosen


def _survivors(
    context: SearchContext,
    step: SearchStep,
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
        n for n in wider_ids if _id_in(n, judging.wider_passed) and n not in judged.unsteady
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
    for edit in edits:
        why = context.expected_values.refusal(edit.code, context.target.code)
        if why:
            refused.append(f"{edit.describe()}: {why}")
        else:
            kept.append(edit)
    if refused:
        context.event("search_refused", count=len(refused), edits=refused[:10])
    return kept, refused


def all_lines(target: TargetFunction) -> list[SuspiciousLine]:
    return [
        SuspiciousLine(n, 0.0, 0, 0, 0, 0) for n in range(target.def_line + 2, target.end_line + 1)
    ]


def _id_in(nodeid: str, wanted: set[str]) -> bool:
    """Whether one of the requested ids runs `nodeid` (the runner's rule, `nodeid_covers`)."""
    return any(nodeid_covers(requested, nodeid) for requested in wanted)


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(1.0, deadline - time.monotonic())


def _verify(context: SearchContext, edit: Edit, notes: Sequence[str] = ()) -> VerifiedFix | None:
    """Run the winner as any fix is run (fresh process, chosen then wider tests); None when it
    does not hold up there (state left over between candidates would show here)."""
    new_source = context.target.replace_in(context.source, edit.code)
    context.progress(f"checking the edit at line {edit.line}", 0.95)
    chosen = context.run_tests(context.chosen, new_source, "search-chosen")
    if not chosen.all_passed:
        context.event("search_verify", ok=False, edit=edit.describe(), why="chosen tests")
        return None
    wider = None
    if context.wider and context.wider_before is not None:
        wider = context.run_tests(context.wider, new_source, "search-wider")
        broken = wider.no_longer_passing(context.wider_before)
        if broken:
            context.event("search_verify", ok=False, edit=edit.describe(), why="wider tests")
            return None
    context.event("search_verify", ok=True, edit=edit.describe())
    flaws = [n for n in notes if n.startswith("raises ")]
    agreement = "".join(f"; {n}" for n in notes if not n.startswith("raises "))
    source = "the model's local edit" if edit.origin else "edit search"
    candidate = Candidate(
        reply="",
        code=edit.code,
        new_source=new_source,
        explanation=f"{source}: {edit.describe()}{agreement}",
        warnings=[f"{source}: the edit {n}" for n in flaws],
    )
    on = f" on {context.found_on}" if context.found_on else ""
    found_by = edit.origin or f"edit search at line {edit.line}"
    return VerifiedFix(candidate, chosen, wider, f"{found_by}{on}")
