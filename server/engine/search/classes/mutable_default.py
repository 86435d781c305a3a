"""A mutable default made a fresh value per call: `def f(x=[]):` -> `def f(x=None):` and
`if x is None: x = []` first in the body. The default is made once, when the def runs, so a
function that stores or changes it shares one list between every call that leaves it out
(flake8-bugbear's B006, pylint's W0102). Tried for a parameter the function reads at a ranked
line; its `[]`, `{}`, `set()`, `list()` or `dict()` default is the only kind changed."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, LineSpan, example
from selfdebug.server.engine.search.scope import Scope

_EMPTY_CALLS = ("list", "dict", "set")

EXAMPLES = (
    example(
        "simonw/datasette@69002b12:datasette/filters.py::Filters.__init__",
        """\
def __init__(self, pairs, units={}, ureg=None):
    self.pairs = pairs
    self.units = units
    self.ureg = ureg
""",
        """\
def __init__(self, pairs, units=None, ureg=None):
    if units is None:
        units = {}
    self.pairs = pairs
    self.units = units
    self.ureg = ureg
""",
        3,
    ),
    example(
        "bottlepy/bottle@20fe9f2f62d6:bottle.py::Jinja2Template.prepare",
        """\
def prepare(self, filters=None, tests=None, globals={}, **kwargs):
    from jinja2 import Environment, FunctionLoader
    self.env = Environment(loader=FunctionLoader(self.loader), **kwargs)
    if filters: self.env.filters.update(filters)
    if tests: self.env.tests.update(tests)
    if globals: self.env.globals.update(globals)
""",
        """\
def prepare(self, filters=None, tests=None, globals=None, **kwargs):
    if globals is None:
        globals = {}
    from jinja2 import Environment, FunctionLoader
    self.env = Environment(loader=FunctionLoader(self.loader), **kwargs)
    if filters: self.env.filters.update(filters)
    if tests: self.env.tests.update(tests)
    if globals: self.env.globals.update(globals)
""",
        6,
    ),
    example(
        # the commit changes two parameters the same way; reduced to the first
        "olivierfriard/BORIS@22113e15:boris/utilities.py::txt2np_array",
        '''\
def txt2np_array(file_name, columns_str, substract_first_value, converters={}):
    """
    read a txt file (tsv or csv) and return np array with passed columns
    """
    data = np.loadtxt(file_name, delimiter=dialect.delimiter, converters=converters)
    return True, "", data
''',
        '''\
def txt2np_array(file_name, columns_str, substract_first_value, converters=None):
    """
    read a txt file (tsv or csv) and return np array with passed columns
    """
    if converters is None:
        converters = {}
    data = np.loadtxt(file_name, delimiter=dialect.delimiter, converters=converters)
    return True, "", data
''',
        5,
    ),
)


class MutableDefault(EditClass):
    name = "mutable-default"
    changes = "`def f(x=[])` -> `def f(x=None)` and `if x is None: x = []` first in the body"
    where = "a parameter with a `[]`, `{}` or `set()` default, read at a ranked line"
    size = 3
    order = 285
    found = (3, 3)
    examples = EXAMPLES

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        function, text = scope.function, scope.text
        body = function.body
        first = body[1] if _docstring(body[0]) and len(body) > 1 else body[0]
        indent = " " * first.col_offset
        statement_start = text.offset(first.lineno, first.col_offset)
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        with_default = positional[len(positional) - len(arguments.defaults) :]
        pairs = list(zip(with_default, arguments.defaults, strict=True))
        keyword = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        pairs += [(a, d) for a, d in keyword if d is not None]
        for argument, default in pairs:
            if not _empty_mutable(default):
                continue
            read_at = sorted(_read_lines(function, argument.arg) & lines)
            if not read_at:
                continue
            start, end = text.span(default)
            between = text.code[end:statement_start]
            guard = f"if {argument.arg} is None:\n{indent}    {argument.arg} = {text.of(default)}\n"
            yield read_at[0], start, statement_start, f"None{between}{guard}{indent}"


def _docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _empty_mutable(node: ast.expr | None) -> bool:
    """`[]`, `{}`, `set()`, `list()`, `dict()`: a fresh empty container written as a default."""
    if isinstance(node, ast.List | ast.Dict | ast.Set):
        return not (node.keys if isinstance(node, ast.Dict) else node.elts)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _EMPTY_CALLS
        and not node.args
        and not node.keywords
    )


def _read_lines(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> set[int]:
    """The lines of the body that read `name`."""
    return {
        node.lineno
        for statement in function.body
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    }


EDIT_CLASS = MutableDefault()
