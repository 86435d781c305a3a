"""`X` raised in place of the exception the function raises now, where a failing test expects
`X` (`pytest.raises(X)`, `raises(...)`, `assertRaises(...)` in its failure text, read by
engine/evidence.py): only those names are used, so the edits stay few, and none is made when no
failing test expects a raise.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from selfdebug.server.engine.search.statements import FunctionNode, Raw, Text


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
