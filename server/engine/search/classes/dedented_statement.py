"""The last statement of a block moved one level out, after the statement that owns the block:
a `return` written inside the loop (the loop ends after its first pass), a `raise` inside the
`if` that logs one case, a `return` inside the `else` that the `if` branch needed too."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfdebug.server.engine.search.edit_class import EditClass, LineSpan, example
from selfdebug.server.engine.search.scope import Scope, Text
from selfdebug.server.engine.search.statements import blocks, whole_lines

EXAMPLES = (
    example(
        "pytoolz/toolz@03cf714895ea:toolz/dicttoolz.py::dissoc",
        """\
def dissoc(d, *keys, **kwargs):
    factory = _get_factory(dissoc, kwargs)
    d2 = factory()
    if len(keys) < len(d) * .6:
        d2.update(d)
        for key in keys:
            if key in d2:
                del d2[key]
    else:
        remaining = set(d)
        remaining.difference_update(keys)
        for k in remaining:
            d2[k] = d[k]
        return d2
""",
        """\
def dissoc(d, *keys, **kwargs):
    factory = _get_factory(dissoc, kwargs)
    d2 = factory()
    if len(keys) < len(d) * .6:
        d2.update(d)
        for key in keys:
            if key in d2:
                del d2[key]
    else:
        remaining = set(d)
        remaining.difference_update(keys)
        for k in remaining:
            d2[k] = d[k]
    return d2
""",
        14,
    ),
    example(
        "dateutil/dateutil@e3e19b35a1ed:dateutil/zoneinfo/rebuild.py::rebuild",
        """\
def rebuild(filename, tag=None, format="gz", zonegroups=[], metadata=None):
    try:
        check_call(["zic", "-d", zonedir] + filepaths)
    except OSError as e:
        if e.errno == 2:
            logging.error("Could not find zic.")
            raise
    with open(os.path.join(zonedir, METADATA_FN), 'w') as f:
        json.dump(metadata, f, indent=4, sort_keys=True)
""",
        """\
def rebuild(filename, tag=None, format="gz", zonegroups=[], metadata=None):
    try:
        check_call(["zic", "-d", zonedir] + filepaths)
    except OSError as e:
        if e.errno == 2:
            logging.error("Could not find zic.")
        raise
    with open(os.path.join(zonedir, METADATA_FN), 'w') as f:
        json.dump(metadata, f, indent=4, sort_keys=True)
""",
        7,
    ),
    example(
        "autotest/virt-test@d9cb73ed02ba:virttest/remote.py::handle_prompts",
        """\
def handle_prompts(session, username, password, prompt, timeout=10, debug=False):
    output = ""
    while True:
        try:
            match, text = session.read_until_last_line_matches(prompts, timeout=timeout)
            output += text
            if match == 12:
                break
        except aexpect.ExpectTimeoutError as e:
            raise LoginTimeoutError(e.output)

        return output
""",
        """\
def handle_prompts(session, username, password, prompt, timeout=10, debug=False):
    output = ""
    while True:
        try:
            match, text = session.read_until_last_line_matches(prompts, timeout=timeout)
            output += text
            if match == 12:
                break
        except aexpect.ExpectTimeoutError as e:
            raise LoginTimeoutError(e.output)

    return output
""",
        12,
    ),
)
_OWNERS = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try,
           ast.ExceptHandler)  # fmt: skip


class DedentedStatement(EditClass):
    name = "dedented-statement"
    changes = "a block's last statement moved out of the block, after it"
    where = "the last statement of a loop's, an if's, a with's or a try's block"
    size = 3
    order = 295
    found = (3, 3)
    examples = EXAMPLES

    def in_function(self, scope: Scope, lines: set[int]) -> Iterator[LineSpan]:
        text = scope.text
        for owner, block in blocks(scope.function):
            if not isinstance(owner, _OWNERS) or len(block) < 2:
                continue  # alone in its block, it would leave the block empty
            last = block[-1]
            if last.lineno not in lines or isinstance(last, (ast.FunctionDef, ast.ClassDef)):
                continue
            outer = _outermost(scope.function, owner)  # an `except` moves after its `try`
            moved = _moved(text, last, outer)
            if moved is not None:
                yield last.lineno, *moved


def _outermost(function: ast.AST, owner: ast.AST) -> ast.AST:
    """The statement after which the moved one goes: the owner, or for an `except` block the
    `try` it belongs to (a statement between `except` clauses would not parse)."""
    if isinstance(owner, ast.ExceptHandler):
        for node in ast.walk(function):
            if isinstance(node, ast.Try) and owner in node.handlers:
                return node
    return owner


def _moved(text: Text, last: ast.stmt, outer: ast.AST) -> tuple[int, int, str] | None:
    """(start, end, new text): from `last`'s first line to the end of `outer`, the lines
    between them kept, then `last` at `outer`'s indentation."""
    own = whole_lines(text, last)
    if own is None or not isinstance(outer, ast.stmt):
        return None
    end_line = outer.end_lineno or outer.lineno
    end = text.starts[end_line] if end_line < len(text.starts) else len(text.code)
    between = text.code[own[1] : end]
    statement = text.code[own[0] : own[1]]
    shift = last.col_offset - outer.col_offset
    if shift <= 0:
        return None
    dedented = "".join(
        line[shift:] if line[:shift].strip() == "" else line
        for line in statement.splitlines(keepends=True)
    )
    if not dedented.endswith("\n"):
        dedented += "\n"
    if between and not between.endswith("\n"):
        between += "\n"
    return own[0], end, between + dedented


EDIT_CLASS = DedentedStatement()
