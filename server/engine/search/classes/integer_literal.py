"""An integer literal +-1, never below 0 (a sign is its own edit): an off-by-one constant."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    # 0 -> 1: both the integer class and the function's-literal class make it
    example(
        "Kozea/WeasyPrint@2c7caf5fd2ed:weasyprint/css/validation/expanders.py::expand_flex",
        """\
def expand_flex():
    if keyword == 'none':
        yield 'flex-basis', 'auto'
    else:
        grow, shrink, basis = 0, 1, Dimension(0, 'px')
""",
        """\
def expand_flex():
    if keyword == 'none':
        yield 'flex-basis', 'auto'
    else:
        grow, shrink, basis = 1, 1, Dimension(0, 'px')
""",
        5,
    ),
    example(
        "Textualize/rich@73ee8232e7ea:rich/cells.py::get_character_cell_size",
        """\
def get_character_cell_size():
    return 0
""",
        """\
def get_character_cell_size():
    return 1
""",
        2,
    ),
    example(
        "boto/botocore@1c73a6fa3bc0:botocore/awsrequest.py::AWSConnection._is_100_continue_status",
        """\
def _is_100_continue_status(self):
    return (
        len(parts) >= 3
    )
""",
        """\
def _is_100_continue_status(self):
    return (
        len(parts) >= 2
    )
""",
        3,
    ),
    example(
        "buildbot/buildbot@6965c6f82681:master/buildbot/clients/tryclient.py::GitExtractor.parseTrackingBranch",
        """\
def parseTrackingBranch(self):
    remote_branch = ref.split("/", 3)[-1]
""",
        """\
def parseTrackingBranch(self):
    remote_branch = ref.split("/", 2)[-1]
""",
        2,
    ),
)


class IntegerLiteral(EditClass):
    name = "integer-literal"
    changes = "an integer literal +-1 (never below 0)"
    where = "an integer literal at a ranked line"
    size = 1
    order = 60
    found = (30, 18)
    examples = EXAMPLES
    nodes = (ast.Constant,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Constant)
        if type(node.value) is not int:
            return
        start, end = scope.text.span(node)
        parent = scope.parents.get(node)
        negative = isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)
        for delta in (1, -1):
            value = node.value + (-delta if negative else delta)
            if value >= 0:
                yield start, end, str(value)


EDIT_CLASS = IntegerLiteral()
