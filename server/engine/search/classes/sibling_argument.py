"""What another call of the same function passes at that position (`visit(None, dirname,
file)` -> `files`, as the other call passes): one of two similar calls written wrong."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span, called_name

EXAMPLES = (
    example(
        "beetbox/beets@e3a9e04c0116:beets/dbcore/query.py::BytesQuery.__init__",
        """\
def __init__(self):
    if isinstance(self.pattern, bytes):
        self.buf_pattern = buffer(self.pattern)
    elif isinstance(self.battern, buffer):
        self.pattern = bytes(self.pattern)
""",
        """\
def __init__(self):
    if isinstance(self.pattern, bytes):
        self.buf_pattern = buffer(self.pattern)
    elif isinstance(self.pattern, buffer):
        self.pattern = bytes(self.pattern)
""",
        4,
    ),
    example(
        "networkx/networkx@b3592c7e4bd3:networkx/readwrite/gexf.py::GEXFWriter.add_viz",
        """\
def add_viz(self):
    if shape.startswith('http'):
        e=Element("{%s}shape"%self.NS_VIZ,
                  uri=str(shape))
    else:
        e=Element("{%s}shape"%self.NS_VIZ,value=str(shape.get))
""",
        """\
def add_viz(self):
    if shape.startswith('http'):
        e=Element("{%s}shape"%self.NS_VIZ,
                  uri=str(shape))
    else:
        e=Element("{%s}shape"%self.NS_VIZ,value=str(shape))
""",
        6,
    ),
    example(
        "pypa/setuptools@a6f96e770980:setuptools/command/bdist_egg.py::make_zipfile",
        """\
def make_zipfile(base_dir, dry_run):
    if not dry_run:
        for dirname, dirs, files in os.walk(base_dir):
            visit(z, dirname, files)
    else:
        for dirname, dirs, files in os.walk(base_dir):
            visit(None, dirname, file)
""",
        """\
def make_zipfile(base_dir, dry_run):
    if not dry_run:
        for dirname, dirs, files in os.walk(base_dir):
            visit(z, dirname, files)
    else:
        for dirname, dirs, files in os.walk(base_dir):
            visit(None, dirname, files)
""",
        7,
    ),
    example(
        "pytest-dev/pytest@21be7a259424:src/_pytest/python_api.py::_as_numpy_array",
        """\
def _as_numpy_array(obj):
    if np.isscalar(obj):
        return None
    elif hasattr(obj, "__array__") or hasattr("obj", "__array_interface__"):
        return np.asarray(obj)
""",
        """\
def _as_numpy_array(obj):
    if np.isscalar(obj):
        return None
    elif hasattr(obj, "__array__") or hasattr(obj, "__array_interface__"):
        return np.asarray(obj)
""",
        4,
    ),
)


class SiblingArgument(EditClass):
    name = "sibling-argument"
    changes = "what another call of the same function passes at that position"
    where = "a call's argument"
    size = 2
    order = 190
    found = (9, 8)
    examples = EXAMPLES
    nodes = (ast.Call,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Call)
        callee = called_name(node)
        if callee == "len" or callee not in scope.sibling_args:
            return
        text = scope.text
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        for position, arg in enumerate(positional):
            start, end = text.span(arg)
            for other in scope.sibling_args[callee].get(position, []):
                if other != text.of(arg):
                    yield start, end, other


EDIT_CLASS = SiblingArgument()
