# ruff: noqa: E501 (the examples keep their code's own lines)
"""One side of `a and b` / `a or b` dropped: a condition too many (a larger change than a
name: a whole condition gone)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "PyCQA/isort@bb2dce7890ba:isort/isort.py::SortImports._import_type",
        """\
def _import_type(line):
    if "isort:skip" in line:
        return
    elif line.startswith('from ') and "import" in line:
        return "from"
""",
        """\
def _import_type(line):
    if "isort:skip" in line:
        return
    elif line.startswith('from '):
        return "from"
""",
        4,
    ),
    example(
        "Pylons/webob@00652b83bdb9:webob/request.py::LimitedLengthFile.readline",
        "def readline(self):\n    if not r or not r.endswith('\\n'):\n        self._check_disconnect()\n",
        """\
def readline(self):
    if not r:
        self._check_disconnect()
""",
        2,
    ),
    example(
        "Textualize/rich@6da3b2a45d2d:rich/live.py::Live.__init__",
        """\
def __init__(self, *, refresh_per_second):
    assert (
        refresh_per_second is None or refresh_per_second > 0
    ), "refresh_per_second must be > 0"
""",
        """\
def __init__(self, *, refresh_per_second):
    assert refresh_per_second > 0, "refresh_per_second must be > 0"
""",
        2,
        3,
        4,
    ),
    example(
        "dask/dask@c109b657f3b1:dask_expr/_merge.py::Merge._filter_passthrough_available",
        """\
def _filter_passthrough_available(self, parent, dependents):
    if is_filter_pushdown_available(self, parent, dependents) or isinstance(
        parent.predicate, And
    ):
        return True
""",
        """\
def _filter_passthrough_available(self, parent, dependents):
    if is_filter_pushdown_available(self, parent, dependents):
        return True
""",
        2,
        3,
        4,
    ),
)


class DroppedCondition(EditClass):
    name = "dropped-condition"
    changes = "one side of `a and b` / `a or b` dropped"
    where = "a two-part boolean operation"
    size = 3
    order = 110
    found = (23, 17)
    examples = EXAMPLES
    nodes = (ast.BoolOp,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.BoolOp)
        if len(node.values) != 2:
            return
        start, end = scope.text.span(node)
        for dropped in node.values:
            (kept,) = (v for v in node.values if v is not dropped)
            yield start, end, scope.text.of(kept)


EDIT_CLASS = DroppedCondition()
