"""A wrapping added twice: a test that got `[[a|b]]` where it wanted `[a|b]` (the got/expected
pair of a failing string comparison, evidence.py) says a wrapping was added to a value that had
it already; the wrapping assignment is guarded. It writes nothing of the test's into the code
(overfitting.py): the wrapping is the function's own text.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from selfdebug.server.engine.search.evidence import Mismatch
from selfdebug.server.engine.search.statements import (
    FunctionNode,
    Raw,
    Text,
    _whole_lines,
)


def _wrapping(value: ast.expr, name: str) -> tuple[str, str] | None:
    """(prefix, suffix) when `value` is `name` between constant strings: f"[{name}]" or
    "[" + name + "]" (one side may be missing, not both)."""
    parts: list[ast.expr]
    if isinstance(value, ast.JoinedStr):
        parts = list(value.values)
        if sum(isinstance(p, ast.FormattedValue) for p in parts) != 1:
            return None
    else:
        parts = []
        node: ast.expr = value
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts.insert(0, node.right)
            node = node.left
        parts.insert(0, node)
    names = [
        i
        for i, p in enumerate(parts)
        if (isinstance(p, ast.Name) and p.id == name)
        or (
            isinstance(p, ast.FormattedValue)
            and isinstance(p.value, ast.Name)
            and p.value.id == name
            and p.conversion == -1
            and p.format_spec is None
        )
    ]
    if len(names) != 1 or len(parts) > 3:
        return None
    before, after = parts[: names[0]], parts[names[0] + 1 :]
    if not all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in before + after):
        return None
    prefix = "".join(p.value for p in before)  # type: ignore[attr-defined]
    suffix = "".join(p.value for p in after)  # type: ignore[attr-defined]
    return (prefix, suffix) if prefix or suffix else None


def _doubled(piece: str, mismatches: Sequence[Mismatch]) -> bool:
    """A failing test got `piece` twice in a row where it expected it once at most there."""
    return bool(piece) and any(
        piece * 2 in m.got and piece * 2 not in m.expected and piece in m.expected
        for m in mismatches
    )


def wrap_guards(
    function: FunctionNode, text: Text, lines: set[int], mismatches: Sequence[Mismatch]
) -> Iterator[Raw]:
    """`x = f"[{x}]"` -> `if not (x.startswith("[") and x.endswith("]")): x = f"[{x}]"` at a
    ranked line, where a failing test got the wrapping twice (size 3)."""
    if not mismatches:
        return
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign) or node.lineno not in lines:
            continue
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        wrapping = _wrapping(node.value, name)
        whole = _whole_lines(text, node)
        if wrapping is None or whole is None:
            continue
        prefix, suffix = wrapping
        if not (_doubled(prefix, mismatches) or _doubled(suffix, mismatches)):
            continue
        checks = [f"{name}.startswith({prefix!r})"] if prefix else []
        checks += [f"{name}.endswith({suffix!r})"] if suffix else []
        condition = checks[0] if len(checks) == 1 else f"({' and '.join(checks)})"
        indent = " " * node.col_offset
        statement = text.code[whole[0] : whole[1]]
        body = "".join("    " + line for line in statement.splitlines(keepends=True))
        guarded = f"{indent}if not {condition}:\n{body}"
        yield node.lineno, "wrap-guard", whole[0], whole[1], guarded
