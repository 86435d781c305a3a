"""Another attribute the function reads in an attribute's place (`node.successor` ->
`node.value`); an attribute read for its value, not a method called."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span, data_attribute

EXAMPLES = (
    example(
        "aio-libs/aiohttp@319d07f89890:aiohttp/multipart.py::BodyPartReaderPayload.__init__",
        """\
def __init__(self, value):
    if value.filename is not None:
        params['filename'] = value.name
""",
        """\
def __init__(self, value):
    if value.filename is not None:
        params['filename'] = value.filename
""",
        3,
    ),
    example(
        "beetbox/beets@225c21b90fb9:beetsplug/thumbnails.py::GioURI.__init__",
        """\
def __init__(self):
    self.libgio.g_file_get_uri.argtypes = [ctypes.c_char_p]
    self.libgio.g_file_new_for_path.restype = ctypes.c_void_p
""",
        """\
def __init__(self):
    self.libgio.g_file_new_for_path.argtypes = [ctypes.c_char_p]
    self.libgio.g_file_new_for_path.restype = ctypes.c_void_p
""",
        2,
    ),
    example(
        "bottlepy/bottle@cb7a333fa7b3:bottle.py::Route.get_config",
        """\
def get_config(self, key):
    for conf in (self.config, self.app.conifg):
        if key in conf: return conf[key]
""",
        """\
def get_config(self, key):
    for conf in (self.config, self.app.config):
        if key in conf: return conf[key]
""",
        2,
    ),
    example(
        "buildbot/buildbot@a34f223f98bf:master/buildbot/schedulers/triggerable.py::Triggerable.stopService",
        """\
def stopService(self):
    if self._waiters:
        for d in self.waiters:
            d.errback(failure.Failure(RuntimeError(msg)))
""",
        """\
def stopService(self):
    if self._waiters:
        for d in self._waiters:
            d.errback(failure.Failure(RuntimeError(msg)))
""",
        3,
    ),
)


class OtherAttribute(EditClass):
    name = "other-attribute"
    changes = "another attribute the function reads"
    where = "an attribute read at a ranked line"
    size = 2
    order = 170
    found = (35, 21)
    examples = EXAMPLES
    nodes = (ast.Attribute,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Attribute)
        if not data_attribute(node, scope.parents):
            return
        end = scope.text.span(node)[1]
        for other in scope.attributes:
            if other != node.attr:
                yield end - len(node.attr), end, other


EDIT_CLASS = OtherAttribute()
