"""A condition negated (`if x:` -> `if not x:`). A single comparison is left to
comparison-operator: `not (a < b)` is the swap `a >= b` (`is`/`is not`, `==`/`!=`,
`in`/`not in` alike), one program, tried and counted once."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span, wrap

EXAMPLES = (
    example(
        "beetbox/beets@af71cebeeb4c:beets/util/artresizer.py::ArtResizer.reformat",
        """\
def reformat(self, path_in):
    if self.local:
        return path_in
""",
        """\
def reformat(self, path_in):
    if not self.local:
        return path_in
""",
        2,
    ),
    example(
        "ipython/ipython@8f2d5982a48e:IPython/nbconvert/post_processors/pdf.py::PDFPostProcessor.call",
        """\
def call(self):
        stdout = null if self.verbose else None
""",
        """\
def call(self):
        stdout = null if not self.verbose else None
""",
        2,
    ),
    example(
        "pallets/werkzeug@ca8d0f44afbf:werkzeug/debug/__init__.py::DebuggedApplication.__init__",
        """\
def __init__(self, console_init_func):
    if console_init_func:
        console_init_func = dict
""",
        """\
def __init__(self, console_init_func):
    if not console_init_func:
        console_init_func = dict
""",
        2,
    ),
    example(
        "psf/requests@f1ba27faa2b9:requests/adapters.py::HTTPAdapter.cert_verify",
        """\
def cert_verify(self, conn, cert):
    if isinstance(cert, basestring):
        conn.key_file = cert[1]
""",
        """\
def cert_verify(self, conn, cert):
    if not isinstance(cert, basestring):
        conn.key_file = cert[1]
""",
        2,
    ),
)


class NegatedCondition(EditClass):
    name = "negated-condition"
    changes = "a condition negated (`if x:` -> `if not x:`)"
    where = "the test of an if, while, conditional expression or assert"
    size = 1
    order = 40
    found = (7, 7)
    examples = EXAMPLES
    nodes = (ast.If, ast.While, ast.IfExp, ast.Assert)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert)
        text = scope.text
        start, end = text.span(node.test)
        negated = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
        single_comparison = isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
        if not negated and not single_comparison and not isinstance(node.test, ast.Constant):
            yield start, end, f"not {wrap(text.of(node.test), node.test)}"


EDIT_CLASS = NegatedCondition()
