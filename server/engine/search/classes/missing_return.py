"""A `return` put back: `f(x)` -> `return f(x)` for a plain call standing alone (a recursive
call whose value is dropped), and `return <name>` appended when the function ends without a
return. Not in a generator."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, LineSpan, example
from selfdebug.server.engine.search.scope import Scope
from selfdebug.server.engine.search.statements import blocks

EXAMPLES = (
    example(
        "beetbox/beets@370df6253d4c:beets/autotag/hooks.py::TrackInfo.dup_trackinfo",
        """\
def dup_trackinfo(self):
    dupe = TrackInfo()
""",
        """\
def dup_trackinfo(self):
    dupe = TrackInfo()
    return dupe
""",
        2,
    ),
    example(
        "buildbot/buildbot@a8ff070eebb0:master/buildbot/schedulers/trysched.py::Try_Userpass.stopService",
        """\
def stopService(self):
    d = defer.maybeDeferred(TryBase.stopService, self)
""",
        """\
def stopService(self):
    d = defer.maybeDeferred(TryBase.stopService, self)
    return d
""",
        2,
    ),
    example(
        "celery/celery@4e8efe187f03:celery/messaging.py::TaskPublisher._delay_task",
        """\
def _delay_task(self):
    task_id = str(uuid.uuid4())
""",
        """\
def _delay_task(self):
    task_id = str(uuid.uuid4())
    return task_id
""",
        2,
    ),
    example(
        "mitmproxy/mitmproxy@9ee8f47cc67a:mitmproxy/io/db.py::DbHandler.load",
        """\
def load(self):
    flows = []
""",
        """\
def load(self):
    flows = []
    return flows
""",
        2,
    ),
)


class MissingReturn(EditClass):
    name = "missing-return"
    changes = "a `return` put back (a value computed, then dropped)"
    where = "an expression statement, or the function's end"
    size = 2
    order = 270
    found = (18, 11)
    examples = EXAMPLES

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        function, text = scope.function, scope.text
        if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(function)):
            return
        for _owner, block in blocks(function):
            for stmt in block:
                value = stmt.value if isinstance(stmt, ast.Expr) else None
                plain_call = isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                if plain_call and stmt.lineno in lines:
                    start = text.span(stmt)[0]
                    yield stmt.lineno, start, start, "return "
        last = function.body[-1]
        if isinstance(last, ast.Return | ast.Raise):
            return
        span_lines = set(range(last.lineno, (last.end_lineno or last.lineno) + 1))
        wanted = sorted(span_lines & lines)
        if not wanted:
            return
        indent = " " * function.body[0].col_offset
        end = len(text.code)
        prefix = "" if text.code.endswith("\n") else "\n"
        for name in scope.local_names:
            yield wanted[0], end, end, f"{prefix}{indent}return {name}\n"


EDIT_CLASS = MissingReturn()
