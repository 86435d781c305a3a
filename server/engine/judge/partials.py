"""No survivor: the best edit that fixes some failing tests and breaks none.

A bug at two places (click `style`: two copy-pasted lines) has no one-edit fix, but an edit at
one of them makes some failing tests pass; a second search, or the model, finishes it
(search/host.py: `partial_start`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from selfdebug.server.engine.judge.context import SearchContext
from selfdebug.server.engine.judge.survivors import Survivor, by_program
from selfdebug.server.engine.judge.verdicts import MAX_CHECKED, preferred
from selfdebug.server.engine.search.edits import Edit
from selfdebug.server.runner.results import RunResult
from selfdebug.server.runner.search_runner import SearchRunner, Verdict


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


def preferred_partial(
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
    programs = [group[0] for group in by_program(survivors).values()][:MAX_CHECKED]
    if len(programs) < 2 or context.prefer is None:
        return partials[0]
    found = preferred(context, searcher, [[s] for s in programs], blind=True)
    if found is None:
        return partials[0]
    chosen = partial_of[id(found[0].edit)]
    context.event("search_partial_preferred", edit=chosen.describe(), why=found[1])
    return chosen


def partial_holds(run: RunResult, before: RunResult) -> bool:
    """Whether a fresh run of the chosen tests with a partial edit (`run`) confirms it: more
    pass than on the original (`before`) and none that passed there fails."""
    return not run.no_longer_passing(before) and run.passed > before.passed
