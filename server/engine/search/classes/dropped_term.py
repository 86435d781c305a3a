# ruff: noqa: E501 (the examples keep their code's own lines)
"""A term of `a + b`, `a - b`, `a * b` dropped: a term too many."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.operators import BINOP
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "PyCQA/pyflakes@6dce640d3b5a:pyflakes/reporter.py::Reporter.syntaxError",
        'def syntaxError(self, offset):\n    self._stderr.write(" " * (offset + 1) + "^\\n")\n',
        'def syntaxError(self, offset):\n    self._stderr.write(" " * offset + "^\\n")\n',
        2,
    ),
    example(
        "beetbox/beets@ce022a64f6fa:beets/library.py::PathQuery.col_clause",
        """\
def col_clause(self):
    file_blob = buffer(file_pattern + b'%')
""",
        """\
def col_clause(self):
    file_blob = buffer(file_pattern)
""",
        2,
    ),
    example(
        "buildbot/buildbot@2add1d92b064:master/buildbot/db/logs.py::LogsConnectorComponent.getLogLines.<locals>.thd",
        "def thd(conn):\n    for row in conn.execute(q):\n        for _ in xrange(count):\n            idx = content.rindex('\\n', 0, idx - 1)\n",
        "def thd(conn):\n    for row in conn.execute(q):\n        for _ in xrange(count):\n            idx = content.rindex('\\n', 0, idx)\n",
        4,
    ),
    example(
        "celery/celery@3268526a5edc:celery/utils/timeutils.py::utcoffset",
        """\
def utcoffset():
    return (__timezone__ + __altzone__) // 3600
""",
        """\
def utcoffset():
    return __altzone__ // 3600
""",
        2,
    ),
)


class DroppedTerm(EditClass):
    name = "dropped-term"
    changes = "a term of `a + b`, `a - b`, `a * b` dropped"
    where = "a binary operation"
    size = 2
    order = 240
    found = (26, 17)
    examples = EXAMPLES
    nodes = (ast.BinOp,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.BinOp)
        text = scope.text
        spelling = BINOP.get(type(node.op))
        if spelling not in ("+", "-", "*"):
            return
        if not text.find_op(text.span(node.left)[1], text.span(node.right)[0], spelling):
            return
        start, end = text.span(node)
        yield start, end, text.of(node.left)
        yield start, end, text.of(node.right)


EDIT_CLASS = DroppedTerm()
