"""An arithmetic or bitwise operator swapped within its class (`+` -> `-`, `&` -> `^`), in a
binary operation or an augmented assignment (`+=` -> `-=`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.operators import ARITHMETIC, BINOP, BITWISE, swaps_within
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "PyCQA/pycodestyle@86bc1fc34646:pep8.py::whitespace_around_named_parameter_equals",
        """\
def whitespace_around_named_parameter_equals(tokens):
    for token_type, text, start, end, line in tokens:
        parens += 1
""",
        """\
def whitespace_around_named_parameter_equals(tokens):
    for token_type, text, start, end, line in tokens:
        parens -= 1
""",
        3,
    ),
    example(
        "buildbot/buildbot@80417f2c39c7:master/buildbot/steps/python_twisted.py::Trial.setupEnvironment",
        """\
def setupEnvironment(self, cmd):
    if e is None:
        cmd.args['env'] = {'PYTHONPATH': self.testpath}
    else:
        pathset = set([self.testpath]) ^ set(ppath)
""",
        """\
def setupEnvironment(self, cmd):
    if e is None:
        cmd.args['env'] = {'PYTHONPATH': self.testpath}
    else:
        pathset = set([self.testpath]) | set(ppath)
""",
        5,
    ),
    example(
        "dask/dask@b3bdfaefd4d6:dask_expr/_collection.py::DataFrame.shape",
        """\
def shape(self):
    return self.size / max(len(self.columns), 1), len(self.columns)
""",
        """\
def shape(self):
    return self.size // max(len(self.columns), 1), len(self.columns)
""",
        2,
    ),
    example(
        "html5lib/html5lib-python@19686c8ca381:html5lib/html5parser.py::getPhases.<locals>.InForeignContentPhase.processStartTag",
        """\
def processStartTag(self, token):
    if (token["name"] in self.breakoutElements or
        (set(token["data"].keys()) | set(["size"]))):
        return token
""",
        """\
def processStartTag(self, token):
    if (token["name"] in self.breakoutElements or
        (set(token["data"].keys()) & set(["size"]))):
        return token
""",
        3,
    ),
)


class ArithmeticOperator(EditClass):
    name = "arithmetic-operator"
    changes = (
        "an arithmetic or bitwise operator swapped within its class (`+` -> `-`, `&` -> "
        "`^`), augmented assignments too"
    )
    where = "a binary operation or augmented assignment at a ranked line"
    size = 1
    order = 20
    found = (12, 9)
    examples = EXAMPLES
    nodes = (ast.BinOp, ast.AugAssign)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        text = scope.text
        if isinstance(node, ast.BinOp):
            spelling = BINOP.get(type(node.op))
            left_end, right_start = text.span(node.left)[1], text.span(node.right)[0]
            found = text.find_op(left_end, right_start, spelling or "")
            suffix = ""
        else:
            assert isinstance(node, ast.AugAssign)
            spelling = BINOP.get(type(node.op))
            target_end, value_start = text.span(node.target)[1], text.span(node.value)[0]
            found = text.find_op(target_end, value_start, f"{spelling}=")
            suffix = "="
        if spelling and found:
            for other in swaps_within(spelling, (ARITHMETIC, BITWISE)):
                yield found[0], found[1], other + suffix


EDIT_CLASS = ArithmeticOperator()
