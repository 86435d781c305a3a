"""One edit made at every place the function writes the same text.

A value spelled at several places (a literal returned on two paths, a misspelled name used on
two lines, an unpacking order written twice) is wrong at each of them: the single edit at one
place leaves the others, and pairs across lines are not made (pairs.py). The same change at
every place the text occurs is one candidate; 197 fix commits in 52 projects of the mined pool
change one text at several lines of a function.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.engine.search.edits import Edit

SPREAD = 24  # single edits considered
# edits of a literal, a name or an order: a text that reads the same wherever it is written
SPREAD_CLASSES = (
    "other-literal", "integer-literal", "boolean-literal", "other-name", "other-attribute",
    "swapped-unpacking", "sibling-method", "own-class-name",
)  # fmt: skip


def budget(limit: int) -> int:
    """How many of `limit` candidates these may take."""
    return limit // 12


def everywhere_edits(
    singles: Sequence[Edit], code: str, body_start: int, limit: int
) -> Iterator[Edit]:
    """For each of the first `SPREAD` edits of a literal, name or order in `singles` (edits of
    `code`, best first) whose text occurs at other places of the body (from offset
    `body_start`: the header's parameters stay) too, the same change at every place; at most
    `limit`."""
    from selfdebug.server.engine.search.edits import Edit

    chosen = [e for e in singles if e.edit_class in SPREAD_CLASSES and not e.parts][:SPREAD]
    made = 0
    for edit in chosen:
        if made >= limit:
            return
        attribute = edit.start > 0 and code[edit.start - 1] == "."
        places = [p for p in _places(code, edit.before, attribute) if p[0] >= body_start]
        if len(places) < 2 or (edit.start, edit.end) not in places:
            continue
        text, parts = code, []
        first_line = edit.line - code.count("\n", 0, edit.start)
        for start, end in reversed(places):
            text = text[:start] + edit.after + text[end:]
        for start, end in places:
            line = first_line + code.count("\n", 0, start)
            parts.append(Edit(line, edit.rank, edit.size, edit.edit_class, edit.before,
                              edit.after, text, start, end))  # fmt: skip
        made += 1
        yield Edit(
            line=edit.line,
            rank=edit.rank,
            size=edit.size + 1,
            edit_class="same-edit-everywhere",
            before=edit.before,
            after=edit.after,
            code=text,
            start=places[0][0],
            end=places[-1][1],
            parts=tuple(parts),
        )


def _places(code: str, text: str, attribute: bool) -> list[tuple[int, int]]:
    """Where `text` occurs in `code` as whole tokens (a name is not matched inside another);
    `attribute`: only after a dot (`x.text`), else never after one."""
    if not text.strip():
        return []
    head = r"(?<=\.)" if attribute else r"(?<![\w.])" if re.match(r"\w", text) else ""
    tail = r"(?!\w)" if re.search(r"\w$", text) else ""
    return [(m.start(), m.end()) for m in re.finditer(head + re.escape(text) + tail, code)]
