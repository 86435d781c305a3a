"""`except A:` -> `except (A, E):` for the exception `E` a failing test ended with, at a
handler of the `try` around a ranked line: the handler meant for the failure catches too
little (Decimal raises InvalidOperation, not ValueError; a callable raises TypeError as well).
Only the failing tests' own exceptions are added, so the edits stay few, and none is made when
they all ended in a failed assertion. An exception of a library module is written as the
module may name it: bare (`from json import JSONDecodeError`), under its package
(`json.JSONDecodeError`) or its own module (`json.decoder.JSONDecodeError`); a spelling the
module does not define fails the tests like any wrong edit."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Iterator

from selfdebug.server.engine.search.edit_class import EditClass, LineSpan, example
from selfdebug.server.engine.search.scope import Scope

# What a test ends with when the function returned (or pytest stopped it): never the
# function's own exception to catch.
NOT_THE_FUNCTIONS = frozenset({"AssertionError", "Failed", "Skipped", "XFailed", "Exit"})

EXAMPLES = (
    example(
        "pallets/werkzeug@e550ef8b3133:src/werkzeug/datastructures/structures.py::MultiDict.getlist",
        """\
def getlist(self, key, type=None):
    result = []
    for item in rv:
        try:
            result.append(type(item))
        except ValueError:
            pass
    return result
""",
        """\
def getlist(self, key, type=None):
    result = []
    for item in rv:
        try:
            result.append(type(item))
        except (ValueError, TypeError):
            pass
    return result
""",
        5,
        failed_with=("TypeError",),
    ),
    example(
        "pytoolz/toolz@fce76a0db769:toolz/itertoolz.py::_get",
        """\
def _get(seq, ind, default=no_default):
    try:
        return seq[ind]
    except TypeError:
        try:
            return getattr(seq, ind)
        except AttributeError:
            if default == no_default:
                raise
            return default
""",
        """\
def _get(seq, ind, default=no_default):
    try:
        return seq[ind]
    except (TypeError, AttributeError):
        try:
            return getattr(seq, ind)
        except AttributeError:
            if default == no_default:
                raise
            return default
""",
        3,
        failed_with=("AttributeError",),
    ),
    example(
        "martinblech/xmltodict@7432c51effb6:xmltodict.py::parse",
        """\
def parse(xml_input, encoding='utf-8', *args, **kwargs):
    try:
        parser.ParseFile(xml_input)
    except TypeError:
        if isinstance(xml_input, _unicode):
            xml_input = xml_input.encode(encoding)
        parser.Parse(xml_input, True)
    return handler.item
""",
        """\
def parse(xml_input, encoding='utf-8', *args, **kwargs):
    try:
        parser.ParseFile(xml_input)
    except (TypeError, AttributeError):
        if isinstance(xml_input, _unicode):
            xml_input = xml_input.encode(encoding)
        parser.Parse(xml_input, True)
    return handler.item
""",
        3,
        failed_with=("AttributeError",),
    ),
    example(
        "bottlepy/bottle@28c6671064af:bottle.py::parse_date",
        """\
def parse_date(ims):
    try:
        ts = email.utils.parsedate_tz(ims)
        return time.mktime(ts[:8] + (0,)) - (ts[9] or 0) - time.timezone
    except (TypeError, ValueError, IndexError):
        return None
""",
        """\
def parse_date(ims):
    try:
        ts = email.utils.parsedate_tz(ims)
        return time.mktime(ts[:8] + (0,)) - (ts[9] or 0) - time.timezone
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
""",
        4,
        failed_with=("OverflowError",),
    ),
)


class CaughtException(EditClass):
    name = "caught-exception"
    changes = "`except A:` -> `except (A, E):`, `E` what a failing test ended with"
    where = "a handler of the `try` around a ranked line"
    size = 2
    order = 265
    evidence = "a failing test's exception"
    found = (54, 10)
    examples = EXAMPLES

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        names = [n for n in scope.failed_with if n not in NOT_THE_FUNCTIONS]
        if not names:
            return
        spellings = {name: _spellings(name, scope.failed_from) for name in names}
        for node in ast.walk(scope.function):
            if not isinstance(node, ast.Try):
                continue
            ranked = _ranked_line(node, lines)
            if ranked is None:
                continue
            caught = {n.rsplit(".", 1)[-1] for h in node.handlers for n in _names(h.type)}
            for handler in node.handlers:
                if handler.type is None or _catches_all(handler.type):
                    continue
                start, end = scope.text.span(handler.type)
                items = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                types = [scope.text.of(item) for item in items]
                for name in names:
                    if name in caught or _subclass_of_caught(name, caught):
                        continue
                    line = handler.lineno if handler.lineno in lines else ranked
                    for spelled in spellings[name]:
                        yield line, start, end, f"({', '.join([*types, spelled])})"


def _spellings(name: str, dotted: Iterable[str]) -> list[str]:
    """`name` as a module may write it: bare, then under its package and its module."""
    forms = [name]
    for full in dotted:
        module, _, last = full.rpartition(".")
        if last == name and module:
            forms += [f"{module.split('.')[0]}.{name}", full]
    return list(dict.fromkeys(forms))


def _ranked_line(node: ast.Try, lines: set[int]) -> int | None:
    """The first ranked line of the try's body or of its handlers' lines, None when none is."""
    body = set(range(node.body[0].lineno, (node.body[-1].end_lineno or 0) + 1))
    heads = {h.lineno for h in node.handlers}
    found = sorted((body | heads) & lines)
    return found[0] if found else None


def _names(node: ast.expr | None) -> list[str]:
    """The dotted names of an except clause's types (`(A, m.B)` -> ["A", "m.B"])."""
    items = node.elts if isinstance(node, ast.Tuple) else [node] if node is not None else []
    return [ast.unparse(n) for n in items if isinstance(n, ast.Name | ast.Attribute)]


def _catches_all(node: ast.expr) -> bool:
    return any(n in ("Exception", "BaseException") for n in _names(node))


def _subclass_of_caught(name: str, caught: set[str]) -> bool:
    """A builtin exception some handler's builtin type already catches (`KeyError` under
    `LookupError`): adding it changes nothing."""
    new = getattr(builtins, name, None)
    if not (isinstance(new, type) and issubclass(new, BaseException)):
        return False
    for other in caught:
        old = getattr(builtins, other, None)
        if isinstance(old, type) and issubclass(new, old):
            return True
    return False


EDIT_CLASS = CaughtException()
