"""The mutable-default class (search/classes/mutable_default.py) beyond its examples: where
the guard goes, which defaults it changes, and that the test process gets the new default."""

from __future__ import annotations

from selfdebug.server.engine.search.edits import generate_edits

TALLY = '''def tally(items, counts={}):
    """Count each item."""
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts
'''


def _edits(code: str, lines: tuple[int, ...]):
    ranks = dict.fromkeys(lines, 0)
    return generate_edits(code, 1, ranks, limit=500, classes={"mutable-default"})


def test_the_guard_goes_after_the_docstring_and_the_def_line_gets_none() -> None:
    (edit,) = _edits(TALLY, (4,))
    assert edit.code == TALLY.replace("counts={}", "counts=None").replace(
        '"""Count each item."""\n',
        '"""Count each item."""\n    if counts is None:\n        counts = {}\n',
    )
    assert edit.defaults  # the test process takes the def line's new default
    assert edit.line == 1  # the change starts at the def line


def test_only_an_empty_container_read_at_a_ranked_line_is_changed() -> None:
    assert _edits(TALLY, (3,)) == []  # line 3 does not read `counts`
    assert _edits(TALLY.replace("counts={}", "counts=None"), (4,)) == []
    assert _edits(TALLY.replace("counts={}", "counts={'a': 0}"), (4,)) == []


def test_a_keyword_only_parameter_and_a_call_default() -> None:
    code = "def add(x, *, seen=set()):\n    seen.add(x)\n    return seen\n"
    (edit,) = _edits(code, (2,))
    assert edit.code == (
        "def add(x, *, seen=None):\n    if seen is None:\n        seen = set()\n"
        "    seen.add(x)\n    return seen\n"
    )
