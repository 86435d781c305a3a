"""Evidence-driven repair without a model: localize the fault from real runs, then make the
small classic edits at the most suspicious lines and hand them to the judge.

Steps (each a plain function, so the session, the benchmark and the tests call the same code):
- `localize`: one run of the chosen and wider tests with line coverage of the target only
  (server/runner/search_runner.py), ranked by Ochiai (localize.py);
- `candidate_edits`: the edits of edits.py at the top lines, and those of place_edits.py at the
  constants, class attributes and defaults the function reads (places.py), bounded, ordered;
- `search_step`: both for a session, then the edits judged as every generator's candidates
  are (engine/judge/: run in batches, survivors ranked, run against each other on generated
  inputs, the winner run once more the normal way), into the step's answer.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.evidence import NOTHING_EXPECTED, Evidence, Expected
from selfdebug.server.engine.judge.context import SearchContext, SearchSettings, left
from selfdebug.server.engine.judge.judge import Judge, Judgement
from selfdebug.server.engine.search.edits import Edit, generate_edits
from selfdebug.server.engine.search.localize import (
    Localization,
    SuspiciousLine,
    all_lines,
    rank_lines,
)
from selfdebug.server.engine.search.place_edits import MAX_PLACE_EDITS, place_edits, points_at
from selfdebug.server.engine.search.places import places_of
from selfdebug.server.engine.search.predicates import with_guarding_conditions
from selfdebug.server.engine.search.registry import CLASSES
from selfdebug.server.engine.target import TargetFunction
from selfdebug.server.runner.search_runner import CoverageRun, SearchRunner


@dataclass
class SearchStep(Judgement):
    """The judge's answer on the search's edits, and where the search looked."""

    localization: Localization | None = None
    coverage: CoverageRun | None = None


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
    *,
    source: str = "",
    evidence: Evidence | None = None,
) -> list[Edit]:
    """Edits at the top lines; lines with the same score share a rank, so that a small edit on
    any of them comes before a larger one on the first. A group of lines with the last top
    line's score is taken whole (up to twice `top_lines`): where a cut falls inside it is
    chance (the lines every test runs tie, and a bug before a failing path is among them). The
    condition that guards each top line is edited too (predicates.py).

    With `source` (the file's text), the places outside the body that the function reads
    (places.py) are edited too, within the same budget: after the function's single edits
    (before the combinations), or first, ranked with the top lines, when `evidence` (the
    failing tests') points at the place (`points_at`: the wrong value is the constant's)."""
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
    places = places_of(source, target) if source else []
    pointed = [p for p in places if evidence is not None and points_at(p, evidence)]
    later = [p for p in places if p not in pointed]
    room = min(MAX_PLACE_EDITS, settings.max_edits // 4)
    first = place_edits(source, target, pointed, rank=0, limit=room, expected=expected)
    last_rank = max(ranks.values(), default=0) + 1
    room -= len(first)
    then = place_edits(source, target, later, rank=last_rank, limit=room, expected=expected)
    edits = generate_edits(
        target.code,
        target.start_line + 1,
        ranks,
        settings.max_edits - len(first) - len(then),
        expected,
        class_name=target.class_name,
    )
    combined = {c.name for c in CLASSES if c.combines}
    singles = [e for e in edits if e.edit_class not in combined]
    return first + singles + then + [e for e in edits if e.edit_class in combined]


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
        searcher, context.target, tests, cancel=context.cancel, timeout_s=left(context.deadline)
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
    edits = candidate_edits(
        context.target,
        lines,
        context.settings,
        context.evidence.expected,
        source=context.source,
        evidence=context.evidence,
    )
    Judge(context).judge(edits, into=step, progress=context.progress, started=started)
    return step
