"""A method made its sibling of the same arguments: the one that works from the other end, or
with the other strictness (`split` -> `rsplit`, `match` -> `search`, `get` -> `pop`), the pairs
real fixes swap."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

SIBLINGS = (
    ("split", "rsplit"), ("partition", "rpartition"), ("find", "rfind"), ("index", "rindex"),
    ("strip", "lstrip", "rstrip"), ("match", "search", "fullmatch"), ("get", "pop"),
    ("pop", "popleft"), ("remove", "discard"), ("startswith", "endswith"), ("append", "extend"),
)  # fmt: skip

EXAMPLES = (
    example(
        "pallets/flask@ea7a1720779a:flask/wrappers.py::Request.blueprint",
        """\
def blueprint(self):
    if self.url_rule and '.' in self.url_rule.endpoint:
        return self.url_rule.endpoint.split('.', 1)[0]
""",
        """\
def blueprint(self):
    if self.url_rule and '.' in self.url_rule.endpoint:
        return self.url_rule.endpoint.rsplit('.', 1)[0]
""",
        3,
    ),
    example(
        "Textualize/rich@e1c105b8f0ab:rich/console.py::Console._detect_color_system",
        """\
def _detect_color_system(self):
    term = self._environ.get("TERM", "").strip().lower()
    _term_name, _hyphen, colors = term.partition("-")
    color_system = _TERM_COLORS.get(colors, ColorSystem.STANDARD)
    return color_system
""",
        """\
def _detect_color_system(self):
    term = self._environ.get("TERM", "").strip().lower()
    _term_name, _hyphen, colors = term.rpartition("-")
    color_system = _TERM_COLORS.get(colors, ColorSystem.STANDARD)
    return color_system
""",
        3,
    ),
    example(
        "tornadoweb/tornado@1ae91f6d58e6:tornado/web.py::RequestHandler._convert_header_value",
        """\
def _convert_header_value(self, value):
    if len(value) > 4000 or re.match(b(r"[\\x00-\\x1f]"), value):
        raise ValueError("Unsafe header value %r", value)
    return value
""",
        """\
def _convert_header_value(self, value):
    if len(value) > 4000 or re.search(b(r"[\\x00-\\x1f]"), value):
        raise ValueError("Unsafe header value %r", value)
    return value
""",
        2,
    ),
    example(
        "python/mypy@1b19e04d6cfb:mypy/checker.py::ConditionalTypeBinder.pop_frame",
        """\
def pop_frame(self, canskip=True, fallthrough=False):
    result = self.frames.pop()
    options = self.frames_on_escape.get(len(self.frames) - 1, [])
    if canskip:
        options.append(self.frames[-1])
    changed = self.update_from_options(options)
    return (changed, result)
""",
        """\
def pop_frame(self, canskip=True, fallthrough=False):
    result = self.frames.pop()
    options = self.frames_on_escape.pop(len(self.frames) - 1, [])
    if canskip:
        options.append(self.frames[-1])
    changed = self.update_from_options(options)
    return (changed, result)
""",
        3,
    ),
    example(
        "pypa/setuptools@5802fd80e413:setuptools/command/install_lib.py::install_lib._all_packages",
        """\
def _all_packages(pkg_name):
    while pkg_name:
        yield pkg_name
        pkg_name, sep, child = pkg_name.partition('.')
""",
        """\
def _all_packages(pkg_name):
    while pkg_name:
        yield pkg_name
        pkg_name, sep, child = pkg_name.rpartition('.')
""",
        4,
    ),
)


class SiblingMethod(EditClass):
    name = "sibling-method"
    changes = (
        "a method made its sibling of the same arguments: `split` <-> `rsplit`, `match` -> "
        "`search`, `get` -> `pop`, `strip` -> `lstrip`, ..."
    )
    where = "a method call at a ranked line"
    size = 2
    order = 180
    found = (13, 11)
    examples = EXAMPLES
    nodes = (ast.Call,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Call)
        if not isinstance(node.func, ast.Attribute):
            return
        name = node.func.attr
        end = scope.text.span(node.func)[1]
        for group in SIBLINGS:
            if name in group:
                for other in group:
                    if other != name:
                        yield end - len(name), end, other


EDIT_CLASS = SiblingMethod()
