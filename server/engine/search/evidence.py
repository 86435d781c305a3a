"""What the failing tests say the function should do, read from their failure text (pytest shows
the test's source and the values there): the exceptions they expect raised, the punctuation
their string arguments are made of, and the strings they got where they expected others.

The edit search uses them to make a few edits no rule of the function's own code suggests:
`else: raise X` where a test expects `X` (raises.py), a one-character literal that
the function compares with replaced by a character the tests' strings use and the function
never writes (`string[i] == '('` where every test passes brackets `[`/`]`), and the edits a
got/expected pair of strings points at (texts.py: text the output lacks, a wrapping
added twice, a copied line's name and number).
"""

from __future__ import annotations

import ast
import re
import string
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.runner.results import RunResult, TestResult

_EXPECTS = re.compile(
    r"\b(?:pytest\.raises|raises|assertRaises|assertRaisesRegex)\(\s*(?:\(\s*)?([A-Za-z_][\w.]*)"
)
_QUOTED = re.compile(r"'([^'\\\n]{1,60})'|\"([^\"\\\n]{1,60})\"")
_PUNCTUATION = set(string.punctuation) - {"'", '"', "\\"}
MAX_EXCEPTIONS = 3
MAX_CHARACTERS = 4
MAX_MISMATCHES = 6
_UNITTEST_PAIR = re.compile(
    r"^(?:AssertionError: )?(?P<first>'.*'|\".*\") != (?P<second>'.*'|\".*\")$"
)


@dataclass(frozen=True)
class Mismatch:
    """A failing comparison of two strings: what the function's output was, and what the test
    wanted. `inside`: the test wants `expected` somewhere in `got` (`assert text in got`),
    not all of it."""

    got: str
    expected: str
    inside: bool = False


@dataclass(frozen=True)
class Expected:
    raises: tuple[str, ...] = ()  # exception names (last dotted part), first mentioned first
    characters: tuple[str, ...] = ()  # punctuation of the tests' strings, commonest first
    mismatches: tuple[Mismatch, ...] = ()  # failing string comparisons, first test first


NOTHING_EXPECTED = Expected()


def expected_from(run: RunResult | None) -> Expected:
    """What the failing tests of `run` expect (nothing when `run` is None or all pass)."""
    if run is None:
        return NOTHING_EXPECTED
    raises: list[str] = []
    characters: Counter[str] = Counter()
    mismatches: list[Mismatch] = []
    for test in run.tests:
        if test.ok:
            continue
        mismatches.extend(m for m in _mismatches(test) if m not in mismatches)
        for match in _EXPECTS.finditer(test.longrepr):
            name = match.group(1).rsplit(".", 1)[-1]
            if name[:1].isupper() and name not in raises:
                raises.append(name)
        for match in _QUOTED.finditer(test.longrepr):
            characters.update(c for c in match.group(1) or match.group(2) if c in _PUNCTUATION)
    common = tuple(c for c, _count in characters.most_common(MAX_CHARACTERS))
    return Expected(tuple(raises[:MAX_EXCEPTIONS]), common, tuple(mismatches[:MAX_MISMATCHES]))


def parse_literal(spelled: str | None) -> object | None:
    """The value a repr spells (a string, number, container of them), or None (not a
    literal, or cut short)."""
    if not spelled:
        return None
    try:
        return ast.literal_eval(spelled)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _string(spelled: str | None) -> str | None:
    """The string a repr spells, or None (not a string literal, or cut short)."""
    value = parse_literal(spelled)
    return value if isinstance(value, str) else None


def _mismatches(test: TestResult) -> list[Mismatch]:
    """The string comparison a failing test made: pytest's `assert got == expected` (the
    actual value on the left, as pytest's own diff reads it) and `assert text in got`; or
    unittest's `'a' != 'b'`, whose order (assertEqual(first, second)) says nothing, so both."""
    left, right = _string(test.assert_left), _string(test.assert_right)
    if left is not None and right is not None and left != right:
        if test.assert_op == "==":
            return [Mismatch(left, right)]
        if test.assert_op == "in":
            return [Mismatch(right, left, inside=True)]
        return []
    first_line = test.message.split("\n", 1)[0].strip()
    pair = _UNITTEST_PAIR.match(first_line) if test.assert_left is None else None
    if pair is None:
        return []
    first, second = _string(pair.group("first")), _string(pair.group("second"))
    if first is None or second is None or first == second:
        return []
    return [Mismatch(first, second), Mismatch(second, first)]
