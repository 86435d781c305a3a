"""Two adjacent names of an unpacking in the other order (`day, month = s.split("-")` ->
`month, day = ...`): a format read in the wrong order."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import pairwise

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

EXAMPLES = (
    example(
        "beetbox/beets@0bb395fa8c6c:beetsplug/mpdstats.py::MPDStats.on_play",
        """\
def on_play(self, status):
    duration, played = map(int, status['time'].split(':', 1))
""",
        """\
def on_play(self, status):
    played, duration = map(int, status['time'].split(':', 1))
""",
        2,
    ),
    example(
        "buildbot/buildbot@0512388cacc6:master/buildbot/sourcestamp.py::SourceStamp.getSourceStampId",
        """\
def getSourceStampId(self):
    patch_body, patch_level = self.patch
""",
        """\
def getSourceStampId(self):
    patch_level, patch_body = self.patch
""",
        2,
    ),
    example(
        "celery/celery@f2856773fd52:celery/task/trace.py::TraceInfo.handle_failure",
        """\
def handle_failure(self):
    _, type_, tb = sys.exc_info()
""",
        """\
def handle_failure(self):
    type_, _, tb = sys.exc_info()
""",
        2,
    ),
    example(
        "pallets/werkzeug@42aecfb6e1e5:werkzeug/serving.py::generate_adhoc_ssl_context",
        """\
def generate_adhoc_ssl_context():
    pkey, cert = generate_adhoc_ssl_pair()
""",
        """\
def generate_adhoc_ssl_context():
    cert, pkey = generate_adhoc_ssl_pair()
""",
        2,
    ),
)


class SwappedUnpacking(EditClass):
    name = "swapped-unpacking"
    changes = "two adjacent names of an unpacking swapped"
    where = "an assignment to a tuple"
    size = 2
    order = 230
    found = (6, 6)
    examples = EXAMPLES
    nodes = (ast.Assign,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Assign)
        text = scope.text
        for target in node.targets:
            if not isinstance(target, ast.Tuple | ast.List):
                continue
            for first, second in pairwise(target.elts):
                if isinstance(first, ast.Name) and isinstance(second, ast.Name):
                    a_start, a_end = text.span(first)
                    b_start, b_end = text.span(second)
                    middle = text.code[a_end:b_start]
                    yield a_start, b_end, text.of(second) + middle + text.of(first)


EDIT_CLASS = SwappedUnpacking()
