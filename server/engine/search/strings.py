"""A string meant to be an f-string: `"Field {name} is missing"` where `name` is a value in scope
(ruff's RUF027, a common slip in error messages). The edit adds the `f` prefix to each piece of
the literal (implicit concatenations included) whose every `{field}` names an in-scope value;
a piece with any other brace, or a field naming something else, is left alone, since adding the
prefix there would change a template meant for `.format` or fail to compile.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Collection

# `{name}`, `{name.attr}`, `{name[0]}`, with an optional `!r` and format spec
_FIELD = re.compile(
    r"\{([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*|\[[^\[\]{}]*\])*)(?:![rsa])?(?::[^{}]*)?\}"
)
_LAYOUT = {
    tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER, tokenize.INDENT,
    tokenize.DEDENT,
}  # fmt: skip


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
