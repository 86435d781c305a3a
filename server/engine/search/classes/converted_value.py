"""`x` -> `str(x)`, `list(x)`, `int(x)`, `float(x)` when a failing test ended in a TypeError:
a value of the wrong type (a path where a string is needed, a view where a list is): str 37 fix
commits in 21 projects of the mined pool, list 20 in 17, int 12 in 10, float 4 in 3. A value is
read, not stored, not a called function, not one whose attribute is taken, and not already
converted."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import STORED, Scope, Span, called_name

CONVERSIONS = ("str", "list", "int", "float")  # the mined pool's most frequent wrappers

EXAMPLES = (
    example(
        "joke2k/faker@8d1a2bd0159d:faker/utils/loading.py::get_path",
        """\
def get_path(module):
    path = Path(module.__file__).parent
    return path
""",
        """\
def get_path(module):
    path = Path(module.__file__).parent
    return str(path)
""",
        3,
        failed_with=("TypeError",),
    ),
    example(
        "pallets/werkzeug@a1717df563a9:werkzeug/debug/__init__.py::DebuggedApplication.check_pin_trust",
        """\
def check_pin_trust(self, environ):
    ts, pin_hash = val.split("|", 1)
    return (time.time() - PIN_TIME) < ts
""",
        """\
def check_pin_trust(self, environ):
    ts, pin_hash = val.split("|", 1)
    return (time.time() - PIN_TIME) < int(ts)
""",
        3,
        failed_with=("TypeError",),
    ),
    example(
        "networkx/networkx@f1cbc2079c98:networkx/algorithms/bipartite/projection.py::projected_graph",
        """\
def projected_graph(B, nodes, multigraph=False):
    nparallel = len(set(B[u]) & set(B[n])) / 2
    G.add_edges_from([(u, n)] * nparallel)
""",
        """\
def projected_graph(B, nodes, multigraph=False):
    nparallel = len(set(B[u]) & set(B[n])) / 2
    G.add_edges_from([(u, n)] * int(nparallel))
""",
        3,
        failed_with=("TypeError",),
    ),
    example(
        "scrapy/scrapy@65fb67f2dbdb:scrapy/crawler.py::CrawlerRunner.stop",
        """\
def stop(self):
    return defer.DeferredList([c.stop() for c in self.crawlers])
""",
        """\
def stop(self):
    return defer.DeferredList([c.stop() for c in list(self.crawlers)])
""",
        2,
        failed_with=("TypeError",),
    ),
    example(
        "celery/kombu@74fbe02a33e4:kombu/connection.py::Connection._init_params",
        """\
def _init_params(self, hostname, heartbeat):
    self.hostname = hostname
    self.heartbeat = heartbeat
""",
        """\
def _init_params(self, hostname, heartbeat):
    self.hostname = hostname
    self.heartbeat = float(heartbeat)
""",
        3,
        failed_with=("TypeError",),
    ),
)


class ConvertedValue(EditClass):
    name = "converted-value"
    changes = "a value converted: `x` -> `str(x)`, `list(x)`, `int(x)`, `float(x)`"
    where = "a value read at a ranked line"
    size = 2
    order = 220
    evidence = "a failing test's TypeError"
    found = (92, 36)
    examples = EXAMPLES
    nodes = (*STORED, ast.Call)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        if "TypeError" not in scope.failed_with:
            return
        parent = scope.parents.get(node)
        if isinstance(getattr(node, "ctx", None), ast.Store | ast.Del):
            return
        if isinstance(parent, ast.Call) and (
            parent.func is node or called_name(parent) in CONVERSIONS
        ):
            return
        if isinstance(node, ast.Call) and called_name(node) in CONVERSIONS:
            return
        if isinstance(parent, ast.Attribute) and not isinstance(node, ast.Call):
            return  # `str(path).parent`: an attribute of the converted value is no fix
        start, end = scope.text.span(node)
        for conversion in CONVERSIONS:
            yield start, end, f"{conversion}({scope.text.of(node)})"


EDIT_CLASS = ConvertedValue()
