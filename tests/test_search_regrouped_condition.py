"""The regrouped-condition class (search/classes/regrouped_condition.py): the operands of an
`and`/`or` chain grouped another way, one boundary moved, each meaning once, groups left
alone as written."""

from __future__ import annotations

import ast

from selfdebug.server.engine.search.classes.regrouped_condition import (
    group_of,
    regroupings,
    spelled,
)
from selfdebug.server.engine.search.edits import generate_edits


def _regroupings(condition: str) -> list[str]:
    node = ast.parse(condition, mode="eval").body
    texts = {id(n): ast.unparse(n) for n in ast.walk(node) if not isinstance(n, ast.BoolOp)}
    return [spelled(g) for g in regroupings(group_of(node, texts))]


def test_three_operands_have_one_other_grouping():
    assert _regroupings("a or b and c") == ["(a or b) and c"]
    assert _regroupings("(a and b) or c") == ["a and (b or c)"]
    assert _regroupings("a and b and c") == []  # one operator: every grouping means the same


def test_a_group_takes_in_its_neighbours_or_gives_them_its_operands():
    assert _regroupings("a or b or c and d") == ["a or ((b or c) and d)", "(a or b or c) and d"]
    assert _regroupings("(a and b and c) or d") == [
        "a and ((b and c) or d)",
        "a and b and (c or d)",
    ]


def test_the_edit_keeps_the_other_groups_as_written_and_parses():
    code = (
        "def due(task, today, strict):\n"
        "    if (task.done or task.day < today) and strict or (task.pinned or task.urgent):\n"
        "        return True\n"
        "    return False\n"
    )
    edits = generate_edits(code, 1, {2: 0}, classes={"regrouped-condition"})
    assert edits and all(ast.parse(e.code) for e in edits)
    afters = [e.after for e in edits]
    assert "task.done or (task.day < today and strict) or (task.pinned or task.urgent)" in afters
    assert all("(task.pinned or task.urgent)" in a for a in afters[:2])
    assert "(task.done or task.day < today) and strict" not in afters  # the original's meaning
