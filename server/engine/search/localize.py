"""Fault localization from real runs: which lines of the target the failing tests run and the
passing ones do not (spectrum-based, Ochiai by default).

Input is each test's outcome and the target's lines it ran (server/runner/search_runner.py
measures that with tracing restricted to the target); output is the lines ranked most suspicious
first, each with the counts a user can check ("run by 2/2 failing and 0/5 passing tests").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.engine.target import TargetFunction

FAILING = ("failed", "error", "timeout")


@dataclass(frozen=True)
class SuspiciousLine:
    line: int  # 1-based file line
    score: float  # Ochiai in [0, 1]
    failing_hits: int  # failing tests that ran the line
    failing_total: int
    passing_hits: int
    passing_total: int

    def describe(self) -> str:
        return (
            f"suspicious: run by {self.failing_hits}/{self.failing_total} failing and "
            f"{self.passing_hits}/{self.passing_total} passing tests"
        )


@dataclass
class Localization:
    lines: list[SuspiciousLine]  # most suspicious first; only lines some failing test ran
    note: str = ""  # e.g. "no passing test: ranked by failing-run coverage only"

    def top(self, k: int) -> list[SuspiciousLine]:
        return self.lines[:k]

    def prompt_line(self, k: int = 3, source: str = "") -> str:
        """What the model is told: "lines most likely at fault: 7, 5" (file lines, as the editor
        shows them), each with its text when `source` is given (the model sees no numbers)."""
        top = self.top(k)
        if not top or sum(s.score == top[0].score for s in self.lines) > k:
            return ""  # more lines tie for first than we would name: no evidence to give
        text = "lines most likely at fault: " + ", ".join(str(s.line) for s in top)
        lines = source.splitlines()
        shown = [f"line {s.line}: `{lines[s.line - 1].strip()}`" for s in top
                 if 0 < s.line <= len(lines)]  # fmt: skip
        return f"{text} ({'; '.join(shown)})" if shown else text


def ochiai(failing_hits: int, failing_total: int, passing_hits: int) -> float:
    denominator = math.sqrt(failing_total * (failing_hits + passing_hits))
    return failing_hits / denominator if denominator else 0.0


def rank_lines(
    outcomes: Mapping[str, str],
    lines_by_test: Mapping[str, Iterable[int]],
    *,
    exclude: Iterable[int] = (),
) -> Localization:
    """Rank the lines failing tests ran. Ties: the later line first (closer to where the wrong
    value leaves the function), since a bug upstream of the failing check shows as a tie."""
    failing = [t for t, o in outcomes.items() if o in FAILING]
    passing = [t for t, o in outcomes.items() if o == "passed"]
    skip = set(exclude)
    counts: dict[int, list[int]] = {}
    for test in failing + passing:
        for line in set(lines_by_test.get(test, ())):
            if line in skip:
                continue
            entry = counts.setdefault(line, [0, 0])
            entry[0 if test in failing else 1] += 1
    ranked = [
        SuspiciousLine(
            line=line,
            score=ochiai(hits[0], len(failing), hits[1]),
            failing_hits=hits[0],
            failing_total=len(failing),
            passing_hits=hits[1],
            passing_total=len(passing),
        )
        for line, hits in counts.items()
        if hits[0] > 0
    ]
    ranked.sort(key=lambda s: (-round(s.score, 9), -s.failing_hits, -s.line))
    note = ""
    if not failing:
        note = "no failing test: nothing to localize"
    elif not passing:
        note = "no passing test: lines ranked by how many failing tests run them"
    return Localization(ranked, note)


def all_lines(target: TargetFunction) -> list[SuspiciousLine]:
    """Every line of the function's body in order, unscored: where to edit with no evidence."""
    return [
        SuspiciousLine(n, 0.0, 0, 0, 0, 0) for n in range(target.def_line + 2, target.end_line + 1)
    ]
