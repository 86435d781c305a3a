"""`x` -> `x is not None` and `not x` -> `x is None` where a condition (or one operand of its
`and`/`or`) tests a stored value's truth (a name, attribute or item; no call's: a call's truth
is often its answer): a falsy value (0, "", an empty list) was taken for a missing one (24 fix
commits in 17 projects of the mined pool)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import STORED, Scope, Span

EXAMPLES = (
    example(
        "Pylons/webob@d33422d0ae99:webob/request.py::BaseRequest.copy_body",
        """\
def copy_body(self):
    length = self.content_length
    if length:
        self.body = self.body_file.read(length)
""",
        """\
def copy_body(self):
    length = self.content_length
    if length is not None:
        self.body = self.body_file.read(length)
""",
        3,
    ),
    example(
        "Python-Markdown/markdown@1337d0891757:markdown/extensions/admonition.py::AdmonitionProcessor.parse_content",
        """\
def parse_content(self, parent, block):
    last_child = self.lastChild(sibling)
    while last_child:
        sibling = last_child
        last_child = self.lastChild(sibling)
""",
        """\
def parse_content(self, parent, block):
    last_child = self.lastChild(sibling)
    while last_child is not None:
        sibling = last_child
        last_child = self.lastChild(sibling)
""",
        3,
    ),
    example(
        "joke2k/faker@eae0fb0a70f8:faker/providers/address/__init__.py::Provider.geo_coordinate",
        """\
def geo_coordinate(self, center=None, radius=0.001):
    if not center:
        return random.randint(-180000000, 180000000) / 1000000.0
    else:
        center = float(center)
""",
        """\
def geo_coordinate(self, center=None, radius=0.001):
    if center is None:
        return random.randint(-180000000, 180000000) / 1000000.0
    else:
        center = float(center)
""",
        2,
    ),
    example(
        "tornadoweb/tornado@95a25b197e82:tornado/gen.py::Multi.get_result",
        """\
def get_result(self):
    result = (i.get_result() for i in self.children)
    if self.keys:
        return dict(zip(self.keys, result))
    else:
        return list(result)
""",
        """\
def get_result(self):
    result = (i.get_result() for i in self.children)
    if self.keys is not None:
        return dict(zip(self.keys, result))
    else:
        return list(result)
""",
        3,
    ),
    example(
        "twisted/twisted@4d7733cd0d63:src/twisted/web/http.py::Request.loseConnection",
        """\
def loseConnection(self):
    if self.channel:
        self.channel.loseConnection()
""",
        """\
def loseConnection(self):
    if self.channel is not None:
        self.channel.loseConnection()
""",
        2,
    ),
)


class NoneTest(EditClass):
    name = "none-test"
    changes = "a truth test made a None test: `x` -> `x is not None`, `not x` -> `x is None`"
    where = "a condition, or an operand of its `and`/`or`"
    size = 2
    order = 120
    found = (24, 17)
    examples = EXAMPLES
    nodes = (ast.If, ast.While, ast.IfExp)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.If | ast.While | ast.IfExp)
        test = node.test
        operands = test.values if isinstance(test, ast.BoolOp) else [test]
        for operand in operands:
            negated = isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not)
            value = operand.operand if negated else operand  # type: ignore[attr-defined]
            if isinstance(value, STORED):
                start, end = scope.text.span(operand)
                is_ = "is" if negated else "is not"
                yield start, end, f"{scope.text.of(value)} {is_} None"


EDIT_CLASS = NoneTest()
