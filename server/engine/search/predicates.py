"""The condition that let a failing run into the suspicious lines.

Spectra rank the lines a failing test runs and passing tests do not: the body of a branch the
failing run took. The condition that chose that branch is run by every test and ranks low, yet
it is often where the fix goes (a missing None check, a wrong comparison: the run should not
have entered the branch). Predicate switching (Zhang, Gupta & Gupta, ICSE'06) finds such
"critical predicates" by flipping them; here the innermost `if`/`elif`/`while` test around each
ranked line is edited too, one rank below the line it guards.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from selfdebug.server.engine.search.edits import own_nodes


def with_guarding_conditions(
    code: str, first_line: int, ranks: Mapping[int, int]
) -> dict[int, int]:
    """`ranks` (file line -> rank) with the line of the innermost if/elif/while test around
    each ranked line added at that line's rank + 1; a line already ranked keeps its rank.
    `code`: the function at column 0, its line 1 at file line `first_line`."""
    try:
        function = ast.parse(code).body[0]
    except (SyntaxError, IndexError):
        return dict(ranks)
    offset = first_line - 1
    guard_of: dict[int, int] = {}  # function line -> its innermost condition's line
    for node in own_nodes(function):
        if isinstance(node, ast.If | ast.While):
            for statement in [*node.body, *node.orelse]:
                for line in range(statement.lineno, (statement.end_lineno or 0) + 1):
                    # of the conditions around a line, the innermost starts last
                    guard_of[line] = max(guard_of.get(line, 0), node.test.lineno)
    result = dict(ranks)
    for line, rank in sorted(ranks.items(), key=lambda item: item[1]):
        guard = guard_of.get(line - offset)
        if guard is not None:
            result.setdefault(guard + offset, rank + 1)
    return result
