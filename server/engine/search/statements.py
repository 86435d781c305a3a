"""The blocks and lines of a function's statements, for the classes that change whole lines
(a statement deleted, two swapped, a `return` put back): they give their changes as spans of
the function text like every class, so they are ordered, parsed, deduplicated and refused when
degenerate by the same code (edits.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.scope import FunctionNode, Text

SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.Expr, ast.AnnAssign)


def blocks(function: FunctionNode) -> Iterator[tuple[ast.AST, list[ast.stmt]]]:
    """(owner, statements) of every block of the function, nested ones (and nested
    functions') too."""
    todo: list[ast.AST] = [function]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or not block:
                continue
            if field in ("handlers", "cases"):
                todo.extend(block)
                continue
            statements = [s for s in block if isinstance(s, ast.stmt)]
            yield node, statements
            todo.extend(statements)


def whole_lines(text: Text, stmt: ast.stmt) -> tuple[int, int] | None:
    """The span of the lines `stmt` fills alone (with their newline), or None when it shares a
    line with something else (`if x: y`)."""
    start, end = text.span(stmt)
    line_start = text.starts[stmt.lineno - 1]
    last = stmt.end_lineno or stmt.lineno
    line_end = text.starts[last] if last < len(text.starts) else len(text.code)
    if text.code[line_start:start].strip() or text.code[end:line_end].strip():
        return None
    return line_start, line_end
