"""`C` -> `x is not None and C` and `x is None or C`: the check a value that may be None was
missing (it makes 19 fix commits in 11 projects of the mined pool). `x` is a name or attribute
chain the condition reads (not a called function, not one it already compares with None) or a
parameter of the function."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span, chain_root

EXAMPLES = (
    example(
        "tornadoweb/tornado@f0df94ca6b09:tornado/web.py::RequestHandler.get_cookie",
        """\
def get_cookie(self, name, default=None):
    if name in self.request.cookies:
        return self.request.cookies[name].value
    return default
""",
        """\
def get_cookie(self, name, default=None):
    if self.request.cookies is not None and name in self.request.cookies:
        return self.request.cookies[name].value
    return default
""",
        2,
    ),
    example(
        "pytest-dev/pytest@6fb7269979f8:src/_pytest/terminal.py::TerminalReporter.write_fspath_result",
        """\
def write_fspath_result(self, nodeid, res, **markup):
    fspath = self.config.rootdir.join(nodeid.split("::")[0])
    if fspath != self.currentfspath:
        self.currentfspath = fspath
""",
        """\
def write_fspath_result(self, nodeid, res, **markup):
    fspath = self.config.rootdir.join(nodeid.split("::")[0])
    if self.currentfspath is None or fspath != self.currentfspath:
        self.currentfspath = fspath
""",
        3,
    ),
    example(
        "pypa/pip@0a1571ba03d8:src/pip/_internal/models/link.py::Link.is_hash_allowed",
        """\
def is_hash_allowed(self, hashes):
    if not self.has_hash:
        return False
    return hashes.is_hash_allowed(self.hash_name, hex_digest=self.hash)
""",
        """\
def is_hash_allowed(self, hashes):
    if hashes is None or not self.has_hash:
        return False
    return hashes.is_hash_allowed(self.hash_name, hex_digest=self.hash)
""",
        2,
    ),
    example(
        "python/mypy@53d6e24f9b51:mypy/checkexpr.py::ExpressionChecker.try_infer_partial_type",
        """\
def try_infer_partial_type(self, e):
    partial_type = cast(PartialType, var.type)
    if partial_type.type is None:
        return
    typename = partial_type.type.fullname()
""",
        """\
def try_infer_partial_type(self, e):
    partial_type = cast(PartialType, var.type)
    if partial_type is None or partial_type.type is None:
        return
    typename = partial_type.type.fullname()
""",
        3,
    ),
    example(
        "spyder-ide/spyder@6fe04d458531:spyder/utils/conda.py::get_spyder_conda_channel",
        """\
def get_spyder_conda_channel():
    channel_url = package_info["base_url"]
    if "<develop>" in channel_url:
        channel_url = None
    return channel, channel_url
""",
        """\
def get_spyder_conda_channel():
    channel_url = package_info["base_url"]
    if channel_url is not None and "<develop>" in channel_url:
        channel_url = None
    return channel, channel_url
""",
        3,
    ),
)


class NoneCheck(EditClass):
    name = "none-check"
    changes = (
        "a missing None check: `C` -> `x is not None and C` or `x is None or C`, `x` a name "
        "the condition reads or a parameter"
    )
    where = "the test of an if, elif or while at a ranked line"
    size = 3
    order = 140
    found = (19, 11)
    examples = EXAMPLES
    nodes = (ast.If, ast.While)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.If | ast.While)
        test = node.test
        text = scope.text
        start, end = text.span(test)
        condition = text.of(test)
        checked = {
            text.of(side)
            for n in ast.walk(test)
            if isinstance(n, ast.Compare)
            for side in (n.left, *n.comparators)
            if any(
                isinstance(c, ast.Constant) and c.value is None for c in (n.left, *n.comparators)
            )
        }
        called = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}
        read = [
            text.of(n)
            for n in ast.walk(test)
            if isinstance(n, ast.Name | ast.Attribute)
            and isinstance(n.ctx, ast.Load)
            and id(n) not in called
            and chain_root(n) in (*scope.local_names, "self", "cls")
            and text.of(n) not in ("self", "cls")
        ]
        low = isinstance(test, ast.IfExp | ast.Lambda | ast.NamedExpr)
        in_and = (
            f"({condition})"
            if low or (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or))
            else condition
        )
        in_or = f"({condition})" if low else condition
        for value in dict.fromkeys([*read, *scope.parameters]):
            if value not in checked:
                yield start, end, f"{value} is not None and {in_and}"
                yield start, end, f"{value} is None or {in_or}"


EDIT_CLASS = NoneCheck()
