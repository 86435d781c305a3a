"""Statement-level candidate edits: a statement deleted, two adjacent statements swapped, a
missing `return` put back.

edits.py makes the expression-level edits; these change whole lines. Each comes as
(code line, edit class, start, end, replacement) on the function text, like edits.py's, so they
are ordered, parsed, deduplicated and refused when degenerate by the same code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Protocol

Raw = tuple[int, str, int, int, str]  # (code line, edit class, start, end, replacement)
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.Expr, ast.AnnAssign)


class Text(Protocol):
    """What these edits need of edits.py's `_Text`."""

    code: str
    starts: list[int]

    def span(self, node: ast.AST) -> tuple[int, int]: ...

    def of(self, node: ast.AST) -> str: ...


def _blocks(function: FunctionNode) -> Iterator[tuple[ast.AST, list[ast.stmt]]]:
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


def _whole_lines(text: Text, stmt: ast.stmt) -> tuple[int, int] | None:
    """The span of the lines `stmt` fills alone (with their newline), or None when it shares a
    line with something else (`if x: y`)."""
    start, end = text.span(stmt)
    line_start = text.starts[stmt.lineno - 1]
    last = stmt.end_lineno or stmt.lineno
    line_end = text.starts[last] if last < len(text.starts) else len(text.code)
    if text.code[line_start:start].strip() or text.code[end:line_end].strip():
        return None
    return line_start, line_end


def deletions(function: FunctionNode, text: Text, lines: set[int]) -> Iterator[Raw]:
    """A simple statement deleted (its line gone, or `pass` where it was alone in a block)."""
    for _owner, block in _blocks(function):
        for stmt in block:
            if not isinstance(stmt, _SIMPLE_STATEMENTS) or stmt.lineno not in lines:
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # a docstring
            start, end = text.span(stmt)
            whole = _whole_lines(text, stmt)
            if len(block) > 1 and stmt.lineno == stmt.end_lineno and whole is not None:
                yield stmt.lineno, "deleted-statement", whole[0], whole[1], ""
                continue
            yield stmt.lineno, "deleted-statement", start, end, "pass"


def swaps(function: FunctionNode, text: Text, lines: set[int]) -> Iterator[Raw]:
    """Two adjacent one-line simple statements in the other order (`x = y` before `y = z`)."""
    for _owner, block in _blocks(function):
        for first, second in pairwise(block):
            if not (
                isinstance(first, _SIMPLE_STATEMENTS) and isinstance(second, _SIMPLE_STATEMENTS)
            ):
                continue
            if first.lineno not in lines and second.lineno not in lines:
                continue
            a, b = _whole_lines(text, first), _whole_lines(text, second)
            if a is None or b is None or a[1] != b[0] or first.end_lineno != first.lineno:
                continue
            if second.end_lineno != second.lineno:
                continue
            line = first.lineno if first.lineno in lines else second.lineno
            upper, lower = text.code[a[0] : a[1]], text.code[b[0] : b[1]]
            yield line, "swapped-statements", a[0], b[1], _ended(lower) + upper


def _ended(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


def missing_returns(
    function: FunctionNode, text: Text, lines: set[int], names: Sequence[str]
) -> Iterator[Raw]:
    """`f(x)` -> `return f(x)` for a plain call standing alone (a recursive call whose value is
    dropped), and `return <name>` appended when the function ends without a return."""
    if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(function)):
        return
    for _owner, block in _blocks(function):
        for stmt in block:
            value = stmt.value if isinstance(stmt, ast.Expr) else None
            plain_call = isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            if plain_call and stmt.lineno in lines:
                start = text.span(stmt)[0]
                yield stmt.lineno, "missing-return", start, start, "return "
    last = function.body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return
    span_lines = set(range(last.lineno, (last.end_lineno or last.lineno) + 1))
    wanted = sorted(span_lines & lines)
    if not wanted:
        return
    indent = " " * function.body[0].col_offset
    end = len(text.code)
    prefix = "" if text.code.endswith("\n") else "\n"
    for name in names:
        yield wanted[0], "missing-return", end, end, f"{prefix}{indent}return {name}\n"
