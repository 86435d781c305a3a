"""Pairs of single edits: a repair of two tokens (`range(n)` -> `range(1, n + 1)`, both sides of
a swapped comparison) that no single edit makes.

Only the first single edits (the most suspicious lines, the smallest edits: the order of
mutate.py) are paired, two that change different places, so the pairs stay few and come
after every single edit in the order; they take at most a sixth of the search's budget.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.engine.mutate import Edit

PAIRED = 12  # single edits paired (66 pairs at most)
MAX_PART_SIZE = 2  # operators, literals, bounds, names: not deletions or inserted statements


def budget(limit: int) -> int:
    """How many of `limit` candidates pairs may take."""
    return limit // 6


def pair_edits(singles: Sequence[Edit], code: str, limit: int) -> Iterator[Edit]:
    """Pairs of the first `PAIRED` small edits of `singles` (edits of `code`, in their order)
    that change different spans, best first: lower ranks, then smaller, then earlier."""
    from selfdebug.server.engine.mutate import Edit

    if limit <= 0:
        return
    chosen = [e for e in singles if e.size <= MAX_PART_SIZE and e.end >= e.start][:PAIRED]
    found = []
    for (i, a), (j, b) in combinations(enumerate(chosen), 2):
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
            kind="pair",
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
