"""A string meant to be an f-string: `"Field {name} is missing"` where `name` is a value in
scope (ruff's RUF027, a common slip in error messages). The edit adds the `f` prefix to each
piece of the literal (implicit concatenations included) whose every `{field}` names an in-scope
value; a piece with any other brace, or a field naming something else, is left alone, since
adding the prefix there would change a template meant for `.format` or fail to compile. Only a
string used as a value: not a docstring or a `.format` template, nor a piece of an f-string."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Collection, Iterator

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

# `{name}`, `{name.attr}`, `{name[0]}`, with an optional `!r` and format spec
_FIELD = re.compile(
    r"\{([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*|\[[^\[\]{}]*\])*)(?:![rsa])?(?::[^{}]*)?\}"
)
_LAYOUT = {
    tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER, tokenize.INDENT,
    tokenize.DEDENT,
}  # fmt: skip

EXAMPLES = (
    example(
        "PyCQA/isort@b0c92df90f46:isort/identify.py::Import.statement",
        """\
def statement(self):
    full_path += " as {self.alias}"
""",
        """\
def statement(self):
    full_path += f" as {self.alias}"
""",
        2,
    ),
    example(
        "Textualize/rich@ccb49a279a6d:rich/pretty.py::_get_braces_for_array",
        """\
def _get_braces_for_array(_object):
    return (f"array({_object.typecode!r}, [", "])", "array({_object.typecode!r})")
""",
        """\
def _get_braces_for_array(_object):
    return (f"array({_object.typecode!r}, [", "])", f"array({_object.typecode!r})")
""",
        2,
    ),
    example(
        "joke2k/faker@3b1beb3b9c11:faker/providers/python/__init__.py::Provider.pyobject",
        """\
def pyobject(self, object_type):
    if object_type is None:
        return None
    else:
        raise ValueError("Object type `{object_type}` is not supported by `pyobject` function")
""",
        """\
def pyobject(self, object_type):
    if object_type is None:
        return None
    else:
        raise ValueError(f"Object type `{object_type}` is not supported by `pyobject` function")
""",
        5,
    ),
    example(
        "psf/black@72a84d4099f2:src/black/handle_ipynb_magics.py::MagicFinder.visit_Assign",
        """\
def visit_Assign(self, node):
    if node.value.func.attr == "getoutput":
        src = f"!{args[0]}"
    else:
        raise AssertionError(
            "Unexpected IPython magic {node.value.func.attr!r} found. "
            "Please report a bug on https://github.com/psf/black/issues."
        ) from None
""",
        """\
def visit_Assign(self, node):
    if node.value.func.attr == "getoutput":
        src = f"!{args[0]}"
    else:
        raise AssertionError(
            f"Unexpected IPython magic {node.value.func.attr!r} found. "
            "Please report a bug on https://github.com/psf/black/issues."
        ) from None
""",
        6,
    ),
)


class MissingFPrefix(EditClass):
    name = "missing-f-prefix"
    changes = "the `f` of a string that writes `{name}` of an in-scope name"
    where = "a string used as a value at a ranked line"
    size = 1
    order = 80
    found = (6, 6)
    examples = EXAMPLES
    nodes = (ast.Constant,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.Constant)
        parent = scope.parents.get(node)
        value = not isinstance(
            parent, ast.Expr | ast.Attribute | ast.JoinedStr | ast.FormattedValue
        )
        if isinstance(node.value, str) and value:
            names = [*scope.local_names, "self", "cls"]
            formatted = with_f_prefix(scope.text.of(node), names)
            if formatted is not None:
                start, end = scope.text.span(node)
                yield start, end, formatted


def with_f_prefix(literal: str, names: Collection[str]) -> str | None:
    """`literal` (the source of a str constant) with `f` added where its fields all name
    `names`; None when no piece qualifies."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(literal).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    starts = [0]
    for line in literal.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    changes: list[tuple[int, int, str]] = []
    for token in tokens:
        if token.type in _LAYOUT or (token.type == tokenize.OP and token.string in "()"):
            continue
        if token.type != tokenize.STRING:
            return None  # an f-string piece (Python 3.12 tokens) or anything else
        piece = _prefixed(token.string, names)
        if piece is not None:
            start = starts[token.start[0] - 1] + token.start[1]
            changes.append((start, start + len(token.string), piece))
    if not changes:
        return None
    for start, end, piece in reversed(changes):
        literal = literal[:start] + piece + literal[end:]
    return literal


def _prefixed(piece: str, names: Collection[str]) -> str | None:
    quote = min(i for i in (piece.find("'"), piece.find('"')) if i >= 0)
    prefix, body = piece[:quote], piece[quote:]
    if set(prefix.lower()) & {"b", "f"}:
        return None
    unescaped = body.replace("{{", "").replace("}}", "")
    fields = list(_FIELD.finditer(unescaped))
    rest = _FIELD.sub("", unescaped)
    if not fields or "{" in rest or "}" in rest:
        return None
    if any(field.group(1) not in names for field in fields):
        return None
    return prefix.replace("u", "").replace("U", "") + "f" + body


EDIT_CLASS = MissingFPrefix()
