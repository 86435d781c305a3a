"""A call argument moved by one (`f(n)` -> `f(n + 1)`): the "+ 1 missing" of a count or an
index passed on. `range()` and `len()` are shifted-bound's."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span, called_name, moved_bound

EXAMPLES = (
    example(
        "joke2k/faker@cfffeb82086d:faker/providers/python/__init__.py::Provider.pyfloat",
        """\
def pyfloat(self, min_value, max_value):
    left_number = self.random_int(min_value, max_value)
""",
        """\
def pyfloat(self, min_value, max_value):
    left_number = self.random_int(min_value, max_value - 1)
""",
        2,
    ),
    example(
        "spyder-ide/spyder@ad999e9f88ac:spyderlib/widgets/pylintgui.py::PylintWidget.set_data",
        """\
def set_data(self):
    self.data.pop(index)
""",
        """\
def set_data(self):
    self.data.pop(index+1)
""",
        2,
    ),
    example(
        "spyder-ide/spyder@bd9abd3f2267:spyder/widgets/panels/codefolding.py::FoldingPanel.mouseMoveEvent",
        """\
def mouseMoveEvent(self):
    block = FoldScope.find_parent_scope(
        self.editor.document().findBlockByNumber(line))
""",
        """\
def mouseMoveEvent(self):
    block = FoldScope.find_parent_scope(
        self.editor.document().findBlockByNumber(line-1))
""",
        3,
    ),
)


class ShiftedArgument(EditClass):
    name = "shifted-argument"
    changes = "a call argument moved by one"
    where = "a call's argument"
    size = 2
    order = 200
    found = (3, 2)
    examples = EXAMPLES
    nodes = (ast.Call,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Call)
        if called_name(node) in ("range", "len"):
            return
        for arg in node.args:
            if isinstance(arg, ast.Name | ast.BinOp | ast.Subscript | ast.Attribute):
                yield from moved_bound(arg, scope.text)


EDIT_CLASS = ShiftedArgument()
