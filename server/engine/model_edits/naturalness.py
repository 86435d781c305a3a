"""The survivor the model finds most natural, when its written answers chose none.

Among edits that pass every test and behave differently, the model's vote (preference.py) counts
what it writes at their lines; a 1.5B model often writes none of them (it repeats the line, or
writes something else), and the vote is empty. Scored instead, each survivor's line is the FIM
fill at its place, and its mean log-probability per token is compared with the original line's
at the same place: the edit that makes its line most natural relative to the line it replaces
is the model's choice (the naturalness of patches: Xia & Zhang, AlphaRepair, FSE'22; Xia, Wei &
Zhang, ICSE'23: correct patches rank above plausible ones by the model's entropy). Comparing
with the original line at the same place, not across places, keeps one line's easier context
from deciding.

Chosen only when the best reads more naturally than the line it replaces (a fix lowers the
model's surprise at the code; a survivor that raises it is no better evidenced than the bug)
and beats every other behaviour's best by MARGIN; else nothing, and the search's own rules
decide. Measured without the first condition (docs/bench/humanevalfix-dev40-auto-1.5b/, the run
at 5e4852a): it chose wrong fixes among survivors none of which was right (QuixBugs kth,
depth_first_search; HumanEvalFix/147) more often than a right one, which it now leaves
undecided (HumanEvalFix/124).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.judge.context import SearchContext, time_left
from selfdebug.server.engine.judge.survivors import Survivor
from selfdebug.server.engine.model_edits.fim_prompt import build_prompt
from selfdebug.server.engine.model_edits.holes import holes_at
from selfdebug.server.engine.search.localize import SuspiciousLine

MARGIN = 0.1  # nats per token over the next behaviour's best
MAX_SCORED = 10  # survivors scored at most
DEADLINE_S = 60.0


@runtime_checkable
class InfillScorer(Protocol):
    """A backend that can score fills (llama.py: local GGUF models with FIM tokens)."""

    def score_infill(
        self,
        prefix: str,
        suffix: str,
        texts: list[str],
        cancel: CancelToken | None = None,
        deadline_s: float = DEADLINE_S,
    ) -> list[float]: ...


@dataclass(frozen=True)
class Scored:
    survivor: Survivor
    group: int  # its behaviour's index
    gain: float  # its line's mean log-probability per token minus the original line's


def most_natural(
    context: SearchContext,
    scorer: InfillScorer,
    groups: Sequence[Sequence[Survivor]],
    evidence: Sequence[str],
) -> tuple[list[Scored], Scored | None]:
    """Every one-line survivor scored (at most MAX_SCORED), best first, and the chosen one: the
    best, when it gains over the line it replaces and beats every other behaviour's best by
    MARGIN."""
    target = context.target
    code_lines = target.code.splitlines()
    by_line: dict[int, list[tuple[int, Survivor, str]]] = {}
    for index, group in enumerate(groups):
        for survivor in group:
            new = _new_line(survivor, code_lines, target.start_line)
            if new is not None and sum(len(v) for v in by_line.values()) < MAX_SCORED:
                by_line.setdefault(survivor.edit.line, []).append((index, survivor, new))
    scored: list[Scored] = []
    for line, entries in by_line.items():
        holes = holes_at(target, [SuspiciousLine(line, 1.0, 1, 1, 0, 0)], top=1)
        hole = next((h for h in holes if h.kind == "line" and h.replaced == 1), None)
        if hole is None:
            continue
        remaining = time_left(context.deadline)
        if remaining is not None and remaining <= 1:  # the session's time budget is spent:
            return scored, None  # some lines unscored choose nothing
        prompt = build_prompt(context.source, target, hole, evidence)
        original = code_lines[hole.first - 1].strip()
        texts = [original, *[new for _, _, new in entries]]
        limit = DEADLINE_S if remaining is None else min(DEADLINE_S, remaining)
        scores = scorer.score_infill(prompt.prefix, prompt.suffix, texts, context.cancel, limit)
        scored += [
            Scored(survivor, index, score - scores[0])
            for (index, survivor, _), score in zip(entries, scores[1:], strict=True)
        ]
    scored.sort(key=lambda s: -s.gain)
    if not scored or scored[0].gain <= 0:
        return scored, None
    best = scored[0]
    others = [s.gain for s in scored if s.group != best.group]
    if others and best.gain - max(others) < MARGIN:
        return scored, None
    return scored, best


def _new_line(survivor: Survivor, code_lines: list[str], start_line: int) -> str | None:
    """The one line `survivor` changes, as it writes it (no indentation); None for an edit of
    several lines or one that adds or removes lines."""
    edit = survivor.edit
    new_lines = edit.code.splitlines()
    if len(edit.lines) != 1 or len(new_lines) != len(code_lines):
        return None
    index = edit.line - start_line - 1
    if not 0 <= index < len(code_lines) or new_lines[index] == code_lines[index]:
        return None
    return new_lines[index].strip()
