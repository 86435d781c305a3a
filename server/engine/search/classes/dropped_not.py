"""`not x` -> `x`: a condition negated by mistake."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "buildbot/buildbot@18170a4b825a:master/buildbot/steps/source/svn.py::SVN.purge.<locals>.parseAndRemove",
        """\
def parseAndRemove():
    if len(files) == 0:
        d = defer.succeed(0)
    else:
        if not self.slaveVersionIsOlderThan('rmdir', '2.14'):
            d = self.removeFiles(files)
""",
        """\
def parseAndRemove():
    if len(files) == 0:
        d = defer.succeed(0)
    else:
        if self.slaveVersionIsOlderThan('rmdir', '2.14'):
            d = self.removeFiles(files)
""",
        5,
    ),
    example(
        "pallets/jinja@bec76c789fa8:ext/djangojinja2.py::create_env",
        """\
def create_env():
    return Environment(auto_reload=not settings.TEMPLATE_DEBUG)
""",
        """\
def create_env():
    return Environment(auto_reload=settings.TEMPLATE_DEBUG)
""",
        2,
    ),
    example(
        "pyinstaller/pyinstaller@11287882a250:PyInstaller/hooks/hook-_tkinter.py::hook",
        """\
def hook():
    if is_win:
        tcl_tk = find_tk_win(binaries)
    elif is_darwin:
        tcl_tk = find_tk_darwin(binaries)
    elif not is_unix:
        tcl_tk = find_tk_unix(binaries)
""",
        """\
def hook():
    if is_win:
        tcl_tk = find_tk_win(binaries)
    elif is_darwin:
        tcl_tk = find_tk_darwin(binaries)
    elif is_unix:
        tcl_tk = find_tk_unix(binaries)
""",
        6,
    ),
    example(
        "pypa/setuptools@4d38fb9841d2:setuptools/command/easy_install.py::easy_install.write_script",
        """\
def write_script(self):
    if not self.dry_run:
        return
""",
        """\
def write_script(self):
    if self.dry_run:
        return
""",
        2,
    ),
)


class DroppedNot(EditClass):
    name = "dropped-not"
    changes = "`not x` -> `x`"
    where = "a `not` at a ranked line"
    size = 1
    order = 50
    found = (7, 6)
    examples = EXAMPLES
    nodes = (ast.UnaryOp,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.UnaryOp)
        if isinstance(node.op, ast.Not):
            start, end = scope.text.span(node)
            yield start, end, scope.text.of(node.operand)


EDIT_CLASS = DroppedNot()
