"""A comparison swapped within its class: the boundary (`<` <-> `<=`) or the negation (`==` <->
`!=`) first, then the others; `is` <-> `is not`, `in` <-> `not in`. TBar's "mutate operators"."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.operators import (
    CMPOP,
    COMPARISON,
    IDENTITY,
    MEMBERSHIP,
    swaps_within,
)
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "Kozea/WeasyPrint@c35b7070a9cc:weasyprint/css/validation/descriptors.py::src",
        """\
def src(tokens, base_url):
    if len(tokens) > 2:
        url = get_url(token, base_url)
""",
        """\
def src(tokens, base_url):
    if len(tokens) <= 2:
        url = get_url(token, base_url)
""",
        2,
    ),
    example(
        "Pylons/webob@b6766d737178:webob/__init__.py::Request.__init__",
        """\
def __init__(self, decode_param_names):
    if decode_param_names is NoDefault:
        self.__dict__['decode_param_names'] = decode_param_names
""",
        """\
def __init__(self, decode_param_names):
    if decode_param_names is not NoDefault:
        self.__dict__['decode_param_names'] = decode_param_names
""",
        2,
    ),
    example(
        "Textualize/rich@932e26b6508c:rich/_windows.py::get_windows_console_features",
        """\
def get_windows_console_features():
    truecolor = win_version.major > 10 or (
        win_version.build > 15063
    )
""",
        """\
def get_windows_console_features():
    truecolor = win_version.major > 10 or (
        win_version.build >= 15063
    )
""",
        3,
    ),
    example(
        "aio-libs/aiohttp@5afac5580cd4:aiohttp/web_protocol.py::RequestHandler._process_keepalive",
        """\
def _process_keepalive(self):
    if now <= close_time:
        return
""",
        """\
def _process_keepalive(self):
    if now < close_time:
        return
""",
        2,
    ),
)


class ComparisonOperator(EditClass):
    name = "comparison-operator"
    changes = (
        "a comparison swapped within its class, the boundary (`<` <-> `<=`) or negation "
        "(`==` <-> `!=`) first; `is`/`is not`, `in`/`not in`"
    )
    where = "a comparison at a ranked line"
    size = 1
    order = 10
    found = (43, 26)
    examples = EXAMPLES
    nodes = (ast.Compare,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Compare)
        text = scope.text
        previous: ast.AST = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            spelling = CMPOP[type(op)]
            found = text.find_op(text.span(previous)[1], text.span(right)[0], spelling)
            if found:
                for other in swaps_within(spelling, (COMPARISON, IDENTITY, MEMBERSHIP)):
                    yield found[0], found[1], other
            previous = right


EDIT_CLASS = ComparisonOperator()
