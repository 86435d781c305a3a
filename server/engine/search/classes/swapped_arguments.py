"""Two adjacent arguments of a call swapped (`re.search(text, pattern)` ->
`re.search(pattern, text)`); calls with a starred argument are left alone."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import pairwise

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "aio-libs/aiohttp@fdf69992c0e7:aiohttp/protocol.py::HttpPayloadParser.parse_length_payload",
        """\
def parse_length_payload(self, length):
    try:
        while required:
            required -= len(chunk)
    except aiohttp.EofStream:
        raise errors.IncompleteRead(required, length-required)
""",
        """\
def parse_length_payload(self, length):
    try:
        while required:
            required -= len(chunk)
    except aiohttp.EofStream:
        raise errors.IncompleteRead(length-required, required)
""",
        6,
    ),
    example(
        "buildbot/buildbot@34f327c05319:master/buildbot/monkeypatches/testcase_assert.py::_assertRegexpMatches",
        """\
def _assertRegexpMatches(self, text, regexp, msg):
    if not re.search(text, regexp):
        self.fail(msg)
""",
        """\
def _assertRegexpMatches(self, text, regexp, msg):
    if not re.search(regexp, text):
        self.fail(msg)
""",
        2,
    ),
    example(
        "celery/celery@b0f42919f173:celery/routes.py::Router.route",
        """\
def route(self, options):
    return merge(options, self.expand_destination(route))
""",
        """\
def route(self, options):
    return merge(self.expand_destination(route), options)
""",
        2,
    ),
    example(
        "httpie/cli@56d33a8e5120:httpie/models.py::Environment.__init__",
        """\
def __init__(self):
    if isinstance(AnsiToWin32, self.stdout):
        actual_stdout = self.stdout.wrapped
""",
        """\
def __init__(self):
    if isinstance(self.stdout, AnsiToWin32):
        actual_stdout = self.stdout.wrapped
""",
        2,
    ),
)


class SwappedArguments(EditClass):
    name = "swapped-arguments"
    changes = "two adjacent call arguments swapped"
    where = "a call"
    size = 2
    order = 210
    found = (16, 13)
    examples = EXAMPLES
    nodes = (ast.Call,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Call)
        text = scope.text
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        if not len(positional) == len(node.args) >= 2:
            return
        for first, second in pairwise(positional):
            a_start, a_end = text.span(first)
            b_start, b_end = text.span(second)
            middle = text.code[a_end:b_start]
            yield a_start, b_end, text.of(second) + middle + text.of(first)


EDIT_CLASS = SwappedArguments()
