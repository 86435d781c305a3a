"""Pairs of single edits: a repair of two tokens of one line (`range(n)` -> `range(1, n + 1)`,
`lo < v < hi` -> `lo <= v <= hi`) that no single edit makes.

Only the first small single edits of operators, literals and bounds (the most suspicious
lines, the smallest edits: the order of edits.py) are paired, two that change different
places of one line, so the pairs stay few and come after every single edit in the order; they
take at most a sixth of the search's budget. Pairs across lines, or with another name in a
name's place, are not made: on the dev sets' one or two visible tests they passed by luck (two
of two such fixes failed the hidden tests) and fixed nothing the hidden tests confirmed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.engine.search.edits import Edit

PAIRED = 24  # single edits considered for pairs
MAX_PART_SIZE = 2
# tokens: operators, literals and bounds (not names, deletions or inserted statements)
PAIRED_CLASSES = (
    "comparison-operator", "arithmetic-operator", "boolean-operator", "integer-literal",
    "boolean-literal", "other-literal", "shifted-bound", "shifted-argument",
)  # fmt: skip


def budget(limit: int) -> int:
    """How many of `limit` candidates pairs may take."""
    return limit // 6


def pair_edits(singles: Sequence[Edit], code: str, limit: int) -> Iterator[Edit]:
    """Pairs of the first `PAIRED` small edits of operators, literals and bounds in `singles`
    (edits of `code`, in their order) that change different spans of one line, best first:
    lower ranks, then smaller, then earlier."""
    from selfdebug.server.engine.search.edits import Edit

    if limit <= 0:
        return
    chosen = [e for e in singles if e.size <= MAX_PART_SIZE and e.edit_class in PAIRED_CLASSES][
        :PAIRED
    ]
    found = []
    for (i, a), (j, b) in combinations(enumerate(chosen), 2):
        if a.line != b.line:
            continue
        first, second = sorted((a, b), key=lambda e: e.start)
        if first.end > second.start or (first.start == second.start == first.end):
            continue  # overlapping, or two insertions at one place
        text = code[: second.start] + second.after + code[second.end :]
        text = text[: first.start] + first.after + text[first.end :]
        key = (a.rank + b.rank, a.size + b.size, i + j)
        found.append((key, Edit(
            line=first.line,
            rank=max(a.rank, b.rank),
            size=a.size + b.size,
            edit_class="pair",
            before=f"{first.before} ... {second.before}",
            after=f"{first.after} ... {second.after}",
            code=text,
            start=first.start,
            end=second.end,
            parts=(first, second),
        )))  # fmt: skip
    found.sort(key=lambda item: item[0])
    for _key, edit in found[:limit]:
        yield edit
