"""Print mode: the model's debugging prints never reach a fix. A fix written in print mode may
keep the `print(...)` calls the model added to watch the run; they are removed (the function's
own prints stay), so the user accepts only the fix."""

from __future__ import annotations

import ast
import textwrap


def is_print_call(node: ast.AST) -> bool:
    """`print(...)`: how the model watches a value (the local edits leave such lines out too,
    model_edits/samples.py)."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    )


def _print_statements(tree: ast.AST) -> list[ast.Expr]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Expr) and is_print_call(n.value)]


def strip_added_prints(code: str, original: str) -> tuple[str, int]:
    """`code` without the `print(...)` statements the original function did not have, and how
    many were removed. A print that is alone in its block becomes `pass`."""
    try:
        tree = ast.parse(code)
        before = ast.parse(textwrap.dedent(original))
    except SyntaxError:
        return code, 0
    kept = [ast.dump(p) for p in _print_statements(before)]
    removed: list[ast.Expr] = []
    for statement in sorted(_print_statements(tree), key=lambda n: (n.lineno, n.col_offset)):
        shape_ = ast.dump(statement)
        if shape_ in kept:
            kept.remove(shape_)
        else:
            removed.append(statement)
    if not removed:
        return code, 0
    parents = {
        id(child): parent
        for parent in ast.walk(tree)
        for name, value in ast.iter_fields(parent)
        if isinstance(value, list)
        for child in value
        if isinstance(child, ast.stmt)
    }
    lines = code.splitlines(keepends=True)
    # Edit from the bottom so earlier positions stay valid.
    for statement in sorted(removed, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        first, last = statement.lineno - 1, (statement.end_lineno or statement.lineno) - 1
        end_col = statement.end_col_offset or 0
        head, tail = lines[first][: statement.col_offset], lines[last][end_col:]
        siblings = _siblings(parents.get(id(statement)), statement)
        # A block left empty keeps its first statement's place as `pass`.
        alone = all(s in removed for s in siblings) and statement is siblings[0]
        whole_lines = not head.strip() and (not tail.strip() or tail.lstrip().startswith("#"))
        if whole_lines and not alone:
            lines[first : last + 1] = []
        else:
            newline = "\n" if lines[last].endswith("\n") else ""
            lines[first : last + 1] = [head + "pass" + tail.rstrip("\n") + newline]
    return "".join(lines), len(removed)


def _siblings(parent: ast.AST | None, statement: ast.stmt) -> list[ast.stmt]:
    if parent is None:
        return [statement]
    for _name, value in ast.iter_fields(parent):
        if isinstance(value, list) and statement in value:
            return [s for s in value if isinstance(s, ast.stmt)]
    return [statement]
