"""Loops that run at most once: the body's last statement, reached on every pass, is a
`return`, `break` or `raise`, and nothing in it continues the loop.

Why: no one writes a loop to run once (SonarQube's rule S1751, "loops with at most one
iteration"); a `return` indented into the loop is the classic slip (`return found` one level
too deep returns after the first element). An edit that writes such a loop is no fix (the
search does not try it: edits.py counts it among the degenerate constructs), and a survivor
that keeps the original's passes its tests by what the first pass happens to do; the judge
takes one that runs the loop over it (judge/verdicts.py). A loop whose body is the exit alone
(`for x in xs: return x`, the first item) is an idiom, not a slip, and is not counted.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_EXITS = (ast.Return, ast.Break, ast.Raise)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def once_loops(tree: ast.AST) -> Iterator[ast.AST]:
    """The loops of `tree` that run at most once."""
    return (node for node in ast.walk(tree) if runs_once(node))


def runs_once(node: ast.AST) -> bool:
    """Whether `node` is a loop that runs at most once (for a caller's own walk)."""
    return (
        isinstance(node, _LOOPS)
        and len(node.body) > 1
        and isinstance(node.body[-1], _EXITS)
        and not _continues(node)
    )


def loops_once(code: str) -> bool:
    """Whether `code` has a loop that runs at most once (False when it does not parse)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return next(once_loops(tree), None) is not None


def _continues(loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """A `continue` of this loop (not of a loop inside it) anywhere in its body."""
    stack: list[ast.AST] = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue):
            return True
        if isinstance(node, (*_LOOPS, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack += node.orelse if isinstance(node, _LOOPS) else []
            continue  # a continue in there is that loop's or function's
        stack += list(ast.iter_child_nodes(node))
    return False
