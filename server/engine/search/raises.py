"""Raises a failing test expects: the `else: raise X` a case analysis lacks, or `X` raised in
place of the exception the function raises now.

A test that fails around `pytest.raises(TypeError)` (or `raises(...)`, `assertRaises(...)`)
names the exception the function should raise; a chain of `if`/`elif` without an `else` lets
the unexpected case fall through (dateutil's `_build_tzinfo` returned an unbound local where
its tests expect TypeError). The names come from the failing tests' failure text
(evidence.py); only those names are used, so the edits stay few, and none is made when no
failing test expects a raise.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from selfdebug.server.engine.search.statements import FunctionNode, Raw, Text, _whole_lines


def _chain_end(node: ast.If) -> ast.If:
    """The last `elif` of the chain that `node` starts."""
    while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        following = node.orelse[0]
        if following.col_offset != node.col_offset:  # `else:` then a nested `if`
            break
        node = following
    return node


def else_raises(
    function: FunctionNode, text: Text, lines: set[int], exceptions: Sequence[str]
) -> Iterator[Raw]:
    """`else: raise X` after a chain of `if`/`elif` that has no `else`, for each expected `X`,
    where a line of the chain is ranked."""
    if not exceptions:
        return
    starts = [n for n in ast.walk(function) if isinstance(n, ast.If)]
    inner = {id(n.orelse[0]) for n in starts if _chain_end(n) is not n}
    for first in (n for n in starts if id(n) not in inner):
        last = _chain_end(first)
        if last.orelse or not last.body:
            continue
        chain_lines = set(range(first.lineno, (last.end_lineno or last.lineno) + 1))
        ranked = sorted(chain_lines & lines)
        whole = _whole_lines(text, last.body[-1])
        if not ranked or whole is None:
            continue
        indent = " " * first.col_offset
        unit = " " * max(4, last.body[0].col_offset - first.col_offset)
        for name in exceptions:
            added = f"{indent}else:\n{indent}{unit}raise {name}\n"
            yield ranked[0], "else-raise", whole[1], whole[1], added


def raised_instead(function: FunctionNode, text: Text, lines: set[int],
                   exceptions: Sequence[str]) -> Iterator[Raw]:  # fmt: skip
    """`raise A(...)` -> `raise X(...)` for an expected `X` (size 2, as another name)."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Raise) or node.exc is None or node.lineno not in lines:
            continue
        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if not isinstance(raised, ast.Name):
            continue
        start, end = text.span(raised)
        for name in exceptions:
            if name != raised.id:
                yield node.lineno, "raised-exception", start, end, name
