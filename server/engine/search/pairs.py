"""Pairs of single edits: a repair of two tokens of one line (`range(n)` -> `range(1, n + 1)`,
`lo < v < hi` -> `lo <= v <= hi`) that no single edit makes.

Only the first small single edits of operators, literals and bounds (the most suspicious
lines, the smallest edits: the order of edits.py) are paired, two that change different
places of one line, so the pairs stay few and come after every single edit in the order; they
take at most a sixth of the search's budget. Pairs across lines, or with another name in a
name's place, are not made: on the dev sets' one or two visible tests they passed by luck (two
of two such fixes failed the hidden tests) and fixed nothing the hidden tests confirmed.

One multi-line edit is made: a literal changed the same way at every place the function
writes it (`return " "` twice -> `return ""` twice: a wrong sentinel is usually wrong
everywhere), right after the single edits.
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
    "boolean-literal", "blank-string", "other-literal", "shifted-bound", "dropped-slice-bound",
    "range-start", "shifted-argument",
)  # fmt: skip
LITERAL_CLASSES = ("integer-literal", "boolean-literal", "blank-string", "other-literal")


def budget(limit: int) -> int:
    """How many of `limit` candidates pairs may take."""
    return limit // 6


MAX_EVERYWHERE = 8


def everywhere_edits(singles: Sequence[Edit], code: str, spans: dict[str, list[tuple[int, int]]]
                     ) -> Iterator[Edit]:  # fmt: skip
    """For the first literal edits in `singles` whose literal the function writes more than
    once (`spans`: literal text -> its spans in `code`), the same change at every place."""
    from selfdebug.server.engine.search.edits import Edit

    made = 0
    for single in singles:
        places = spans.get(single.before, [])
        if (
            single.edit_class not in LITERAL_CLASSES
            or len(places) < 2
            or (single.start, single.end) not in places
        ):
            continue
        text, parts = code, []
        for start, end in sorted(places, reverse=True):
            text = text[:start] + single.after + text[end:]
        first_line = single.line - code.count("\n", 0, single.start)  # the file line of line 1
        for start, end in sorted(places):
            line = first_line + code.count("\n", 0, start)
            alone = code[:start] + single.after + code[end:]
            parts.append(Edit(line, single.rank, single.size, single.edit_class, single.before,
                              single.after, alone, start, end))  # fmt: skip
        yield Edit(parts[0].line, single.rank, single.size + 1, "literal-everywhere", single.before,
                   single.after, text, parts[0].start, parts[-1].end, tuple(parts))  # fmt: skip
        made += 1
        if made >= MAX_EVERYWHERE:
            return


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
