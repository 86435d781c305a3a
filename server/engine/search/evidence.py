"""What the failing tests say the function should do, read from their failure text: the
exceptions they expect raised (pytest shows the test's source around the failure, so
`pytest.raises(X)`, `raises(X, ...)` and `assertRaises(X, ...)` name them).

The edit search uses them for the one class no rule of the function's own code suggests:
`X` raised in place of the exception the function raises now (raises.py); and the exceptions
the failing tests ended with, for the class a TypeError calls for (a value converted, edits.py).
`parse_literal`
reads the values pytest shows of a failing comparison (overfitting.py).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.runner.results import RunResult

_EXPECTS = re.compile(
    r"\b(?:pytest\.raises|raises|assertRaises|assertRaisesRegex)\(\s*(?:\(\s*)?([A-Za-z_][\w.]*)"
)
MAX_EXCEPTIONS = 3


@dataclass(frozen=True)
class Expected:
    raises: tuple[str, ...] = ()  # exception names (last dotted part), first mentioned first
    failed_with: tuple[str, ...] = ()  # what the failing tests themselves raised (`TypeError`)


NOTHING_EXPECTED = Expected()


def expected_from(run: RunResult | None) -> Expected:
    """What the failing tests of `run` expect (nothing when `run` is None or all pass)."""
    if run is None:
        return NOTHING_EXPECTED
    raises: list[str] = []
    failed_with: list[str] = []
    for test in run.tests:
        if test.ok:
            continue
        kind = test.exc_type.rsplit(".", 1)[-1]
        if kind and kind not in failed_with:
            failed_with.append(kind)
        for match in _EXPECTS.finditer(test.longrepr):
            name = match.group(1).rsplit(".", 1)[-1]
            if name[:1].isupper() and name not in raises:
                raises.append(name)
    return Expected(tuple(raises[:MAX_EXCEPTIONS]), tuple(failed_with))


def parse_literal(spelled: str | None) -> object | None:
    """The value a repr spells (a string, number, container of them), or None (not a
    literal, or cut short)."""
    if not spelled:
        return None
    try:
        return ast.literal_eval(spelled)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
