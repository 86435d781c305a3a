"""The `dedented-statement` class (search/classes/dedented_statement.py) beyond its examples:
where the moved statement lands, and where it is not moved."""

from __future__ import annotations

import ast

from selfdebug.server.engine.search.edits import generate_edits


def _codes(before: str, line: int) -> set[str]:
    edits = generate_edits(before, 1, {line: 0}, limit=3000, classes={"dedented-statement"})
    return {ast.unparse(ast.parse(e.code)) for e in edits}


def _same(code: str) -> str:
    return ast.unparse(ast.parse(code))


def test_a_return_inside_the_loop_goes_after_the_loop():
    before = (
        "def repeated(items):\n"
        "    seen, found = set(), []\n"
        "    for item in items:\n"
        "        if item in seen:\n"
        "            found.append(item)\n"
        "        seen.add(item)\n"
        "        return found\n"
    )
    after = (
        "def repeated(items):\n"
        "    seen, found = set(), []\n"
        "    for item in items:\n"
        "        if item in seen:\n"
        "            found.append(item)\n"
        "        seen.add(item)\n"
        "    return found\n"
    )
    assert _codes(before, 7) == {_same(after)}


def test_a_statement_of_an_except_block_goes_after_the_whole_try():
    """Between `except` clauses it would not parse: it lands after the last handler."""
    before = (
        "def load(path):\n"
        "    try:\n"
        "        data = read(path)\n"
        "    except OSError:\n"
        "        log(path)\n"
        "        data = None\n"
        "    except ValueError:\n"
        "        data = {}\n"
        "    return data\n"
    )
    (code,) = _codes(before, 6)
    assert code == _same(
        "def load(path):\n"
        "    try:\n"
        "        data = read(path)\n"
        "    except OSError:\n"
        "        log(path)\n"
        "    except ValueError:\n"
        "        data = {}\n"
        "    data = None\n"
        "    return data\n"
    )


def test_a_statement_alone_in_its_block_or_away_from_the_lines_is_not_moved():
    alone = "def first(items):\n    for item in items:\n        return item\n    return None\n"
    assert _codes(alone, 3) == set()
    not_last = "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n        t -= 0\n"
    not_last += "    return t\n"
    assert _codes(not_last, 4) == set()  # line 4 is not the block's last statement


def test_an_edit_that_makes_a_loop_run_once_is_not_tried():
    """`return t` moved into the loop's end would run it once: a degenerate construct
    (search/once_loops.py), never a candidate; moving the loop's own last line out is."""
    before = "def total(xs):\n    t = 0\n    for x in xs:\n        if x:\n            t += x\n"
    before += "            return t\n    return t\n"
    assert _codes(before, 6) == set()
