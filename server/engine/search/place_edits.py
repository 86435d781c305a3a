"""Edits at the places outside a function's body (places.py): the search's own literal and
operator classes (registry.py) asked about a constant's, a class attribute's or a default's
value, each edit one token, few in all.

A constant's or an attribute's edit changes the file outside the function (`Edit.outside`: the
token's span of the file, and the statement after the change, which the judge's test process
runs where it is defined); a default's edit changes the def line (`Edit.defaults`: the test
process takes the function's defaults from it). Whether the failing tests point at a place
(`points_at`: a value they compared is the place's value, or its length is) decides whether its
edits come before the function's own or after them (edit_search.py).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable, Sequence

from selfdebug.server.engine.evidence import NOTHING_EXPECTED, Evidence, Expected
from selfdebug.server.engine.search.edit_class import Edit, EditClass, Outside
from selfdebug.server.engine.search.places import Place
from selfdebug.server.engine.search.registry import REGISTRY
from selfdebug.server.engine.search.scope import Scope, Text, scope_of
from selfdebug.server.engine.target import TargetFunction

# The classes tried at a place: a value's own token nudged (a number by one, a flag flipped, an
# operator swapped), never its shape. Not `other-literal`: it puts one of the function's
# literals in the value's place, a slip within one piece of code that a module's table does not
# share with the function reading it; tried at tables, it made survivors that pass a test by
# coincidence (a tax rate of 0.2 written as the function's 2) more often than fixes.
PLACE_CLASSES = ("integer-literal", "boolean-literal", "arithmetic-operator")
MAX_PER_PLACE = 6
MAX_PLACE_EDITS = 16  # of the search's budget (SearchSettings.max_edits)
_STRUCTURAL = (-1, 0, 1)  # every program writes them: no evidence of a place


def place_edits(
    source: str,
    target: TargetFunction,
    places: Sequence[Place],
    *,
    rank: int,
    limit: int = MAX_PLACE_EDITS,
    expected: Expected = NOTHING_EXPECTED,
) -> list[Edit]:
    """At most `limit` edits of `places` (of `target`, found in `source`), each place's at most
    MAX_PER_PLACE: every place's one-token edits first (size 1), then the others; each a new
    program that parses. `rank` is their rank among the suspicious lines."""
    if not places or limit <= 0:
        return []
    try:
        function = next(
            n
            for n in ast.parse(target.code).body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        )
    except (SyntaxError, StopIteration):
        return []
    base = scope_of(function, Text(target.code), expected, target.class_name)
    file_text = Text(source)
    raw: list[tuple[int, int, int, Edit]] = []  # size, place, order, edit
    for index, place in enumerate(places):
        for edit in _edits_at(place, source, file_text, target, base, rank):
            raw.append((edit.size, index, len(raw), edit))
    raw.sort(key=lambda r: r[:3])
    seen = {target.code}
    per_place: dict[int, int] = {}
    edits: list[Edit] = []
    for _size, index, _order, edit in raw:
        if len(edits) >= limit or per_place.get(index, 0) >= MAX_PER_PLACE:
            continue
        if edit.program in seen:
            continue
        seen.add(edit.program)
        per_place[index] = per_place.get(index, 0) + 1
        edits.append(edit)
    return edits


def _classes() -> list[EditClass]:
    return [REGISTRY[name] for name in PLACE_CLASSES]


def _edits_at(
    place: Place, source: str, file_text: Text, target: TargetFunction, base: Scope, rank: int
) -> Iterable[Edit]:
    if place.kind == "default":
        yield from _default_edits(place, target, base, rank)
        return
    statement = place.node
    assert isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None
    first, last = file_text.span(statement)
    before = source[first:last]
    if before != place.text:  # the file's lines and ast's disagree (a form feed): left alone
        return
    scope = _scope_at(base, file_text, statement.value)
    for edit_class, node in _asked(statement.value):
        for start, end, replacement in edit_class.at(node, scope):
            if "\n" in replacement or "\n" in source[start:end] or not first <= start <= last:
                continue
            after = before[: start - first] + replacement + before[end - first :]
            if not _parses(after):
                continue
            outside = Outside(start, end, replacement, after, before, place.namespace)
            line = source.count("\n", 0, start) + 1
            yield Edit(line, rank, edit_class.size, edit_class.name, source[start:end],
                       replacement, target.code, outside=outside,
                       place=place.describe())  # fmt: skip


def _default_edits(place: Place, target: TargetFunction, base: Scope, rank: int) -> Iterable[Edit]:
    """A default value's edits, in the function's text (its def line)."""
    text = base.text
    value = place.node
    assert isinstance(value, ast.expr)
    scope = _scope_at(base, text, value)
    for edit_class, node in _asked(value):
        for start, end, replacement in edit_class.at(node, scope):
            if "\n" in replacement:
                continue
            code = text.replace(start, end, replacement)
            if not _parses(code):
                continue
            line = target.start_line + text.code.count("\n", 0, start) + 1
            yield Edit(line, rank, edit_class.size, edit_class.name, text.code[start:end],
                       replacement, code, start, end, defaults=True,
                       place=place.describe())  # fmt: skip


def _asked(value: ast.expr) -> Iterable[tuple[EditClass, ast.AST]]:
    """Each node of `value` with each place class that applies to its type, in order."""
    classes = _classes()
    for node in ast.walk(value):
        for edit_class in classes:
            if isinstance(node, edit_class.nodes):
                yield edit_class, node


def _scope_at(base: Scope, text: Text, value: ast.expr) -> Scope:
    """The function's scope, its text and parents those of the place's value."""
    nodes = list(ast.walk(value))
    parents = {child: parent for parent in nodes for child in ast.iter_child_nodes(parent)}
    return dataclasses.replace(base, text=text, parents=parents)


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


def points_at(place: Place, evidence: Evidence) -> bool:
    """Whether the failing tests' values point at the place: a number of its value (or the
    value itself) is one they compared, or the length of one (`s[:LIMIT]` returned 9
    characters), or a string of its value is in one they compared. -1, 0, 1 are no evidence."""
    numbers, strings = _values_of(place)
    if not numbers and not strings:
        return False
    seen_numbers: set[float] = set()
    seen_strings: list[str] = []
    for test in evidence.failing:
        values: list[object] = list(test.compared_values)
        values += [_literal(w.value) for w in test.where]
        for value in values:
            _collect(value, seen_numbers, seen_strings)
    return bool(numbers & seen_numbers) or any(s in t for s in strings for t in seen_strings)


def _values_of(place: Place) -> tuple[set[float], list[str]]:
    node = place.node
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else node
    if not isinstance(value, ast.expr):
        return set(), []
    numbers: set[float] = set()
    strings: list[str] = []
    try:
        whole = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        whole = None
    if isinstance(whole, int | float) and not isinstance(whole, bool):
        numbers.add(float(whole))
    for n in ast.walk(value):
        if isinstance(n, ast.Constant) and not isinstance(n.value, bool):
            if isinstance(n.value, int | float):
                numbers.add(float(n.value))
            elif isinstance(n.value, str) and n.value.strip():
                strings.append(n.value)
    return {v for v in numbers if v not in _STRUCTURAL}, strings


def _collect(value: object, numbers: set[float], strings: list[str], depth: int = 0) -> None:
    """The numbers, strings and lengths a compared value holds."""
    if value is None or isinstance(value, bool) or depth > 3:
        return
    if isinstance(value, int | float):
        numbers.add(float(value))
        return
    if isinstance(value, str):
        strings.append(value)
        numbers.add(float(len(value)))
        return
    if isinstance(value, list | tuple | set | frozenset | dict):
        numbers.add(float(len(value)))
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else list(value)
        for item in items[:50]:
            _collect(item, numbers, strings, depth + 1)


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
