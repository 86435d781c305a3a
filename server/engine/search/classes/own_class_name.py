"""A method's own class, named, made the class it runs in (`Version(...)` ->
`type(self)(...)`, `cls(...)` in a classmethod): a subclass gets its own kind."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "html5lib/html5lib-python@b015d7a7befa:html5lib/treebuilders/etree.py::Element.cloneNode",
        """\
def cloneNode(self):
    element = Element(self.name, self.namespace)
    for name, value in self.attributes.iteritems():
        element.attributes[name] = value
    return element
""",
        """\
def cloneNode(self):
    element = type(self)(self.name, self.namespace)
    for name, value in self.attributes.iteritems():
        element.attributes[name] = value
    return element
""",
        2,
    ),
    example(
        "msiemens/tinydb@f3b18d2a36c0:tinydb/queries.py::Query.__getattr__",
        """\
def __getattr__(self, item):
    query = Query()
    query._path = self._path + (item, )
    query.hashval = ('path', query._path)
    return query
""",
        """\
def __getattr__(self, item):
    query = type(self)()
    query._path = self._path + (item, )
    query.hashval = ('path', query._path)
    return query
""",
        2,
    ),
    example(
        "pallets/werkzeug@426b98534fa6:werkzeug/routing.py::Rule.empty",
        """\
def empty(self):
    defaults = None
    if self.defaults:
        defaults = dict(self.defaults)
    return Rule(self.rule, defaults, self.subdomain, self.methods,
                self.build_only, self.endpoint, self.strict_slashes,
                self.redirect_to, self.alias, self.host)
""",
        """\
def empty(self):
    defaults = None
    if self.defaults:
        defaults = dict(self.defaults)
    return type(self)(self.rule, defaults, self.subdomain, self.methods,
                self.build_only, self.endpoint, self.strict_slashes,
                self.redirect_to, self.alias, self.host)
""",
        5,
    ),
)


class OwnClassName(EditClass):
    name = "own-class-name"
    changes = (
        "a method's own class, named, made the class it runs in: `C(...)` -> "
        "`type(self)(...)`, `cls(...)` in a classmethod"
    )
    where = "the class's name in one of its methods"
    size = 2
    order = 150
    found = (3, 3)
    examples = EXAMPLES
    nodes = (ast.Name,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Name)
        own, runtime = scope.own_class
        if isinstance(node.ctx, ast.Load) and own and node.id == own:
            start, end = scope.text.span(node)
            yield start, end, runtime


EDIT_CLASS = OwnClassName()
