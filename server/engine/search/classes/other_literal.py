# ruff: noqa: E501 (the examples keep their code's own lines)
"""Another literal of the same kind (a number for a number, a string for a string) that the
function writes elsewhere (`scope.constants`): a slip between two of its own values."""

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
    if codepoint > table[-1][1]:
        return 0
""",
        """\
def get_character_cell_size():
    if codepoint > table[-1][1]:
        return 1
""",
        3,
    ),
    example(
        "beetbox/beets@ee9e51d3cc6a:beetsplug/convert.py::ConvertPlugin.commands",
        """\
def commands(self):
    cmd.parser.add_option('-a', '--album', action='store_true')
    cmd.parser.add_option('-y', '--yes', action='store')
""",
        """\
def commands(self):
    cmd.parser.add_option('-a', '--album', action='store_true')
    cmd.parser.add_option('-y', '--yes', action='store_true')
""",
        3,
    ),
    example(
        "boto/botocore@1c73a6fa3bc0:botocore/awsrequest.py::AWSConnection._is_100_continue_status",
        "def _is_100_continue_status(self, maybe_status_line):\n    parts = maybe_status_line.split(None, 2)\n    # Check for HTTP/<version> 100 Continue\\r\\n\n    return (\n        len(parts) >= 3\n    )\n",
        "def _is_100_continue_status(self, maybe_status_line):\n    parts = maybe_status_line.split(None, 2)\n    # Check for HTTP/<version> 100 Continue\\r\\n or HTTP/<version> 100\\r\\n\n    return (\n        len(parts) >= 2\n    )\n",
        3,
        5,
    ),
)


class OtherLiteral(EditClass):
    name = "other-literal"
    changes = "another literal of the same type that the function writes"
    where = "a literal at a ranked line"
    size = 2
    order = 90
    found = (32, 18)
    examples = EXAMPLES
    nodes = (ast.Constant,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Constant)
        if type(node.value) is bool or not isinstance(node.value, str | int | float):
            return
        family = str if isinstance(node.value, str) else (int, float)
        start, end = scope.text.span(node)
        current = scope.text.of(node)
        for kind, other in scope.constants:
            if issubclass(kind, family) and other != current:
                yield start, end, other


EDIT_CLASS = OtherLiteral()
