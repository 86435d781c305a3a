"""Another in-scope name returned (`return result` -> `return results`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "Pylons/webob@10a3e7313d4f:webob/__init__.py::Request.str_POST",
        """\
def str_POST(self):
    vars, body_file = env['paste.parsed_formvars']
    if body_file is self.body_file:
        return parsed
""",
        """\
def str_POST(self):
    vars, body_file = env['paste.parsed_formvars']
    if body_file is self.body_file:
        return vars
""",
        4,
    ),
    example(
        "buildbot/buildbot@63ed8a5f7fdf:master/buildbot/process/builder.py::Builder.canStartBuild.<locals>.setupPropsIfNeeded",
        """\
def setupPropsIfNeeded(props):
    return None
""",
        """\
def setupPropsIfNeeded(props):
    return props
""",
        2,
    ),
    example(
        "html5lib/html5lib-python@13f7c3738c8c:src/html5lib/inputstream.py::HTMLInputStream.seek.<locals>.BufferedStream.read",
        """\
def read(self, chars):
    if chars > len(self.data):
        self.data = ''
    else:
        result = self.data[:chars]
        return resutl
""",
        """\
def read(self, chars):
    if chars > len(self.data):
        self.data = ''
    else:
        result = self.data[:chars]
        return result
""",
        6,
    ),
    example(
        "joke2k/faker@a79e1d87d9f7:faker/providers/date_time/__init__.py::Provider._parse_date_time",
        """\
def _parse_date_time(cls, value):
    return datetime_to_timestamp(now + timedelta(value))
""",
        """\
def _parse_date_time(cls, value):
    return value
""",
        2,
    ),
)


class OtherReturnedName(EditClass):
    name = "other-returned-name"
    changes = "another in-scope name returned"
    where = "a return"
    size = 3
    order = 250
    found = (7, 7)
    examples = EXAMPLES
    nodes = (ast.Return,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Return)
        if node.value is None:
            return
        start, end = scope.text.span(node.value)
        current = scope.text.of(node.value)
        for name in scope.local_names:
            if name != current:
                yield start, end, name


EDIT_CLASS = OtherReturnedName()
