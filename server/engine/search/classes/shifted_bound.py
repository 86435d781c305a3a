"""A bound moved by one (`x` -> `x + 1`, `x - 1`): a `range()` argument that is no literal, a
`len()`, a slice bound or an index. The off-by-one of loops and slices."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span, called_name, moved_bound

EXAMPLES = (
    example(
        "beetbox/beets@de213c2b966a:beets/ui/__init__.py::vararg_callback",
        """\
def vararg_callback(value, parser):
    del parser.rargs[:len(value)]
""",
        """\
def vararg_callback(value, parser):
    del parser.rargs[:len(value)-1]
""",
        2,
    ),
    example(
        "celery/celery@2f516fa1fa37:funtests/stress/stress/suite.py::Suite.run",
        """\
def run(self, repeat):
    it = count() if repeat == float('Inf') else range(int(repeat))
""",
        """\
def run(self, repeat):
    it = count() if repeat == float('Inf') else range(int(repeat) + 1)
""",
        2,
    ),
    example(
        "pyinstaller/pyinstaller@959624ca3f3b:PyInstaller/loader/pyimod03_importers.py::FrozenImporter.find_module",
        """\
def find_module(self, path):
    for p in path:
        p = p[SYS_PREFIXLEN:]
""",
        """\
def find_module(self, path):
    for p in path:
        p = p[SYS_PREFIXLEN+1:]
""",
        3,
    ),
    example(
        "pytest-dev/pytest@56e6ae567c85:_pytest/assertion/rewrite.py::_rewrite_test",
        """\
def _rewrite_test(state):
    if (cookie_re.match(source[end1:end2]) is None):
        state._indecode = True
""",
        """\
def _rewrite_test(state):
    if (cookie_re.match(source[end1 + 1:end2]) is None):
        state._indecode = True
""",
        2,
    ),
)


class ShiftedBound(EditClass):
    name = "shifted-bound"
    changes = "a range, slice or index bound, or a `len()`, moved by one"
    where = "bounds at a ranked line"
    size = 1
    order = 100
    found = (5, 4)
    examples = EXAMPLES
    nodes = (ast.Call, ast.Subscript)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        text = scope.text
        if isinstance(node, ast.Call):
            callee = called_name(node)
            if callee == "len":
                yield from moved_bound(node, text)
            elif callee == "range":
                for arg in node.args:
                    if isinstance(arg, ast.Starred):
                        continue
                    if not (isinstance(arg, ast.Constant) and type(arg.value) is int):
                        yield from moved_bound(arg, text)
            return
        assert isinstance(node, ast.Subscript)
        index = node.slice
        if isinstance(index, ast.Slice):
            for bound in (index.lower, index.upper):
                literal = isinstance(bound, ast.Constant) and type(bound.value) is int
                if bound is not None and not literal:
                    yield from moved_bound(bound, text)
        elif isinstance(index, ast.Tuple):
            for element in index.elts:
                if not isinstance(element, ast.Constant | ast.Slice):
                    yield from moved_bound(element, text)
        elif not isinstance(index, ast.Constant):
            yield from moved_bound(index, text)


EDIT_CLASS = ShiftedBound()
