"""`True` <-> `False`."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "aio-libs/aiohttp@27b586b3cb5f:aiohttp/streams.py::EmptyStreamReader.readchunk",
        """\
async def readchunk(self):
    return (b'', False)
""",
        """\
async def readchunk(self):
    return (b'', True)
""",
        2,
    ),
    example(
        "buildbot/buildbot@21e2388fc059:master/buildbot/process/builder.py::Builder.getNewestCompleteTime",
        """\
def getNewestCompleteTime(self):
    completed = yield self.master.data.get(
        ('builders', bldrid, 'buildrequests'),
        [resultspec.Filter('complete', 'eq', [False])])
""",
        """\
def getNewestCompleteTime(self):
    completed = yield self.master.data.get(
        ('builders', bldrid, 'buildrequests'),
        [resultspec.Filter('complete', 'eq', [True])])
""",
        4,
    ),
    example(
        "dask/dask@820d8c25d113:dask_expr/_groupby.py::GroupBy.__init__",
        """\
def __init__(self, observed):
    self.observed = (
        observed if observed is not None else True if not PANDAS_GE_300 else True
    )
""",
        """\
def __init__(self, observed):
    self.observed = (
        observed if observed is not None else False if not PANDAS_GE_300 else True
    )
""",
        3,
    ),
    example(
        "ipython/ipython@1284ba39b709:IPython/core/completer.py::IPCompleter._jedi_matches",
        """\
def _jedi_matches(self):
    try_jedi = False
""",
        """\
def _jedi_matches(self):
    try_jedi = True
""",
        2,
    ),
)


class BooleanLiteral(EditClass):
    name = "boolean-literal"
    changes = "`True` <-> `False`"
    where = "a boolean literal at a ranked line"
    size = 1
    order = 70
    found = (15, 11)
    examples = EXAMPLES
    nodes = (ast.Constant,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Constant)
        if type(node.value) is bool:
            start, end = scope.text.span(node)
            yield start, end, str(not node.value)


EDIT_CLASS = BooleanLiteral()
