"""`[x]` -> `[x] if x else []`: a one-element list that should be empty when its element is
(an empty chunk, a missing name), the condition the element itself or a name it reads
(`[get(op)] if op else []`). A list that is stored to, or has a starred element, is no value to
guard."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

# where a conditional expression needs no parentheses: a whole value, not an operand
_WHOLE_VALUE = (ast.Assign, ast.AnnAssign, ast.Return, ast.keyword, ast.Call, ast.Dict, ast.Expr)

EXAMPLES = (
    example(
        "encode/httpx@420911bc693e:httpx/_decoders.py::ByteChunker.decode",
        """\
def decode(self, content):
    if self._chunk_size is None:
        return [content]
    self._buffer.write(content)
""",
        """\
def decode(self, content):
    if self._chunk_size is None:
        return [content] if content else []
    self._buffer.write(content)
""",
        3,
    ),
    example(
        "encode/httpx@1e110964736a:httpx/_decoders.py::TextChunker.decode",
        """\
def decode(self, content):
    if self._chunk_size is None:
        return [content]
    self._buffer.write(content)
""",
        """\
def decode(self, content):
    if self._chunk_size is None:
        return [content] if content else []
    self._buffer.write(content)
""",
        3,
    ),
    example(
        "davidhalter/jedi@a5cb308d1fc5:functions.py::get_definition",
        """\
def get_definition(source, line, column, source_path):
    op = f.get_operator_under_cursor()
    scopes = set([keywords.get_operator(op)])
""",
        """\
def get_definition(source, line, column, source_path):
    op = f.get_operator_under_cursor()
    scopes = set([keywords.get_operator(op)] if op else [])
""",
        3,
    ),
)


class EmptyGuardedList(EditClass):
    name = "empty-guarded-list"
    changes = (
        "a one-element list made empty when its element is: `[x]` -> `[x] if x else []`, or "
        "a name the element reads as the condition"
    )
    where = "a one-element list at a ranked line"
    size = 3
    order = 130
    found = (3, 2)  # a search of 90 repositories' histories for the pattern
    examples = EXAMPLES
    nodes = (ast.List,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.List)
        if not isinstance(node.ctx, ast.Load):
            return
        if len(node.elts) != 1 or isinstance(node.elts[0], ast.Starred):
            return
        element = node.elts[0]
        text = scope.text
        called = {id(n.func) for n in ast.walk(element) if isinstance(n, ast.Call)}
        names = [
            n.id
            for n in ast.walk(element)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called
            and n.id in scope.local_names
        ]  # fmt: skip
        start, end = text.span(node)
        parent = scope.parents.get(node)
        bare = isinstance(parent, _WHOLE_VALUE) and getattr(parent, "func", None) is not node
        for condition in dict.fromkeys([text.of(element), *names]):
            guarded = f"{text.of(node)} if {condition} else []"
            yield start, end, guarded if bare else f"({guarded})"


EDIT_CLASS = EmptyGuardedList()
