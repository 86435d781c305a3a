"""Candidates that write a failing test's expected value into the code are refused.

A patch that returns the output the test wants (`return out or 'J.D.'`, a number copied from
the expected string) passes that test and is the textbook overfitting patch of program repair
(Smith et al., "Is the cure worse than the disease?", FSE'15). Whichever source made it, the
edit search or the model, such a candidate is refused with the value named.

A literal counts as the test's when the candidate adds it (the original function does not
write it), a failing test's compared values hold it (the value itself, an element of a
container, a piece of an expected string of two or more characters, a number shown in an
expected string), and nothing legitimate holds it: neither the module (the original file) nor
a passing test's source (the inputs the function is called with). The constants every program
writes (-1, 0, 1, True, False, None, the empty string and a space) are never counted: refusing
them would refuse boundary fixes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    from pathlib import Path

    from selfdebug.server.engine.evidence import Evidence
    from selfdebug.server.runner.results import RunResult

Literal = str | int | float
MAX_LEAVES = 200  # values read from one compared value
_STRUCTURAL: tuple[Literal, ...] = (-1, 0, 1, "", " ")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\d)")


@dataclass(frozen=True)
class ExpectedValues:
    """What the failing tests compared the function's results with, and the literals that
    may appear in a fix all the same (the module's and the passing tests' own)."""

    compared: tuple[Literal, ...] = ()
    known_numbers: frozenset[float] = frozenset()
    known_strings: tuple[str, ...] = ()
    _compared_strings: tuple[str, ...] = field(default=(), repr=False)

    def refusal(self, code: str, original: str) -> str:
        """Why `code` (the function after the change) writes a test's expected value, or ""."""
        if not self.compared:
            return ""
        before = _written(original)  # the same original for every edit of a search
        for value in _literals(code):
            if value in before or _structural(value) or self._known(value):
                continue
            if self._compared(value):
                kind = "text" if isinstance(value, str) else "value"
                return f"writes the test's expected {kind} {value!r} into the code"
        return ""

    def _known(self, value: Literal) -> bool:
        if isinstance(value, str):
            return any(value == s or (len(value) >= 2 and value in s) for s in self.known_strings)
        return float(value) in self.known_numbers

    def _compared(self, value: Literal) -> bool:
        if isinstance(value, str):
            return any(
                value == s or (len(value) >= 2 and value in s) for s in self._compared_strings
            )
        numbers = [v for v in self.compared if not isinstance(v, str)]
        if any(float(value) == float(n) for n in numbers):
            return True
        spelled = {m.group() for s in self._compared_strings for m in _NUMBER.finditer(s)}
        return any(float(s) == float(value) for s in spelled)


NO_EXPECTED_VALUES = ExpectedValues()


def expected_values(
    evidence: Evidence, module_source: str, passing_sources: Iterable[str] = ()
) -> ExpectedValues:
    """The values the failing tests compared with (`FailingTest.compared_values`: both sides
    of `==`, the searched-for side of `in`, both sides of unittest's `a != b`), and the
    literals of the module and of the passing tests' sources."""
    compared: list[Literal] = []
    for test in evidence.failing:
        for value in test.compared_values:
            compared += _leaves(value)
    compared = [v for v in dict.fromkeys(compared) if not _structural(v)]
    known = [*_literals(module_source)]
    for source in passing_sources:
        known += _literals(source)
    return ExpectedValues(
        compared=tuple(compared),
        known_numbers=frozenset(float(v) for v in known if not isinstance(v, str)),
        known_strings=tuple(dict.fromkeys(v for v in known if isinstance(v, str))),
        _compared_strings=tuple(v for v in compared if isinstance(v, str)),
    )


def passing_test_sources(project_root: Path, *runs: RunResult | None) -> list[str]:
    """The sources of the passing tests of `runs`, less any a failing test shares (the cases of
    one parametrized test share a source: its expected values are the failing case's too)."""
    from selfdebug.server.engine.feedback import source_of_test

    tests = [t for run in runs if run is not None for t in run.tests]
    failing = {source_of_test(project_root, t.nodeid) for t in tests if not t.ok}
    sources = {source_of_test(project_root, t.nodeid) for t in tests if t.ok}
    return [s for s in sources if s.strip() and s not in failing]


def _leaves(value: object, depth: int = 0) -> list[Literal]:
    """The strings and numbers a compared value holds (booleans are no data)."""
    if isinstance(value, bool) or depth > 4:
        return []
    if isinstance(value, str | int | float):
        return [value]
    items: Iterable[object] = ()
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple | set | frozenset):
        items = value
    found: list[Literal] = []
    for item in items:
        found += _leaves(item, depth + 1)
        if len(found) >= MAX_LEAVES:
            break
    return found[:MAX_LEAVES]


@lru_cache(maxsize=8)
def _written(code: str) -> frozenset[Literal]:
    return frozenset(_literals(code))


def _literals(code: str) -> Iterator[Literal]:
    """The string and number literals of `code` (docstrings left out), negative numbers with
    their sign; nothing when it does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = node.operand
            if isinstance(operand, ast.Constant) and _number(operand.value):
                yield -operand.value
        if not isinstance(node, ast.Constant) or id(node) in docstrings:
            continue
        value = node.value
        if isinstance(value, str) or _number(value):
            yield value


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _structural(value: Literal) -> bool:
    return any(type(value) is type(s) and value == s for s in _STRUCTURAL) or (
        not isinstance(value, str) and value in (-1, 0, 1)
    )
