"""Local names read where a path leaves them unassigned (search/unbound_reads.py), and the edits
that add one: neither the search nor the model's line edits offer them."""

from __future__ import annotations

import ast

from selfdebug.server.engine.answers.candidate import program_key
from selfdebug.server.engine.model_edits.holes import Hole
from selfdebug.server.engine.model_edits.samples import edits_from
from selfdebug.server.engine.search.edits import degenerate_count
from selfdebug.server.engine.search.unbound_reads import unbound_reads
from selfdebug.server.engine.target import locate


def _unbound(code: str) -> set[str]:
    function = ast.parse(code).body[0]
    assert isinstance(function, ast.FunctionDef)
    return unbound_reads(function)


RENEWAL = """def renewal_date(start, years=1):
    renewal = start
    try:
        start.replace(year=start.year + years)
    except ValueError:
        renewal = start.replace(year=start.year + years, day=28)
    return renewal
"""


def test_an_assignment_moved_under_a_condition_leaves_a_path_unassigned():
    assert _unbound(RENEWAL) == set()
    moved = RENEWAL.replace("    renewal = start\n", "    if years:\n        renewal = start\n")
    assert _unbound(moved) == {"renewal"}
    assert degenerate_count(ast.parse(moved)) > degenerate_count(ast.parse(RENEWAL))


def test_paths_that_bind_on_every_way_out_are_bound():
    code = """def f(xs, flag):
    if flag:
        a = 1
    else:
        a = 2
    if not xs:
        return None
    else:
        b = xs[0]
    try:
        c = int(b)
    except ValueError:
        raise
    while True:
        d = c + 1
        if d:
            break
    with open(b) as e:
        pass
    if (m := len(xs)) > 1:
        pass
    return a, b, c, d, e, m, flag
"""
    assert _unbound(code) == set()


def test_paths_that_may_skip_an_assignment_are_counted():
    code = """def f(xs, flag):
    for x in xs:
        last = x
    if flag:
        first = xs[0]
    try:
        n = int(flag)
    except ValueError:
        pass
    gone = 1
    del gone
    return last, first, n, gone
"""
    assert _unbound(code) == {"last", "first", "n", "gone"}


def test_other_scopes_globals_and_parameters_are_not_locals_read_early():
    code = """def f(x, *rest, key=None, **more):
    global total
    helper = lambda: late
    values = [y for y in rest if y]
    def inner():
        return late
    total = total + x
    late = 1
    return helper, values, inner, key, more
"""
    assert _unbound(code) == set()


def test_the_models_line_that_leaves_a_name_unassigned_is_refused():
    """A sample that puts the line's assignment under a condition (seen on an everyday case:
    the model's `if ...: renewal = ...` for `renewal = start`) is not an edit to try."""
    target = locate(RENEWAL, "renewal_date")
    at = target.code.splitlines().index("    renewal = start") + 1
    line = Hole(at, at, "line", 0, "    ")
    seen = {program_key(target.code)}
    texts = ["if years: renewal = start", "renewal = start.replace(day=1)"]
    edits = edits_from(target, line, texts, seen, total=8)
    assert [e.after.strip() for e in edits] == ["renewal = start.replace(day=1)"]
