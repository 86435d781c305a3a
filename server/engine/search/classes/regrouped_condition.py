# ruff: noqa: E501 (the examples keep their code's own lines)
"""The operands of a chain of `and`/`or` grouped another way: `a or b and c` ->
`(a or b) and c`, `(a and b) or c` -> `a and (b or c)`.

Python's `and` binds tighter than `or`, and a condition written without parentheses (or with
them around the wrong operands) tests something else than meant. The operands keep their
order and the operators theirs; one group boundary moves (a rotation of the expression tree:
a group takes in its neighbour, or gives its last or first operands to it). Found by mining
the histories of 20 public repositories for one-line conditions whose operands and operators
stay and whose grouping changes (httpie twice, sphinx once), and dateutil's multi-line one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from selfdebug.server.engine.search.edit_class import EditClass, example
from selfdebug.server.engine.search.scope import Scope, Span

MAX_OPERANDS = 12  # a longer chain is a table of cases, not a slip of grouping
MAX_REGROUPINGS = 12  # per chain
_NEEDS_PARENTHESES = (ast.IfExp, ast.Lambda, ast.NamedExpr)  # bind looser than `and`/`or`

EXAMPLES = (
    example(
        "httpie/cli@6fd0f23f399e:httpie/client.py::get_requests_kwargs",
        """\
def get_requests_kwargs(args, base_headers=None):
    data = args.data
    auto_json = data and not args.form
    if args.json or auto_json and isinstance(data, dict):
        data = json.dumps(data)
""",
        """\
def get_requests_kwargs(args, base_headers=None):
    data = args.data
    auto_json = data and not args.form
    if (args.json or auto_json) and isinstance(data, dict):
        data = json.dumps(data)
""",
        4,
    ),
    example(
        "httpie/cli@e4e40e5b06d5:httpie/client.py::make_request_kwargs",
        """\
def make_request_kwargs(args, base_headers=None):
    files = args.files
    data = args.data
    if args.form and (files or args.multipart):
        data = get_multipart_data_and_content_type(data=data)
""",
        """\
def make_request_kwargs(args, base_headers=None):
    files = args.files
    data = args.data
    if (args.form and files) or args.multipart:
        data = get_multipart_data_and_content_type(data=data)
""",
        4,
    ),
    example(
        "sphinx-doc/sphinx@b66f3e143e6b:sphinx/ext/napoleon/docstring.py::NumpyDocstring._escape_args_and_kwargs",
        """\
def _escape_args_and_kwargs(self, name):
    is_args = check_args(args)
    is_kwargs = check_kwargs(kwargs)
    if is_args or is_kwargs and not (is_args and is_kwargs):
        logger.warning(name)
""",
        """\
def _escape_args_and_kwargs(self, name):
    is_args = check_args(args)
    is_kwargs = check_kwargs(kwargs)
    if (is_args or is_kwargs) and not (is_args and is_kwargs):
        logger.warning(name)
""",
        4,
    ),
    example(
        "dateutil/dateutil@770054be7d52:dateutil/parser.py::parser.parse",
        """\
def parse(self, timestr, default=None, date_in_future=False):
    if ((res.month == default.month and res.day is not None and
         (res.day < default.day and date_in_future) or
         (res.day > default.day and not date_in_future)) or
        ((res.month < default.month and date_in_future) or
         (res.month > default.month and not date_in_future))):
        default = default.replace(year=next_year)
""",
        """\
def parse(self, timestr, default=None, date_in_future=False):
    if ((res.month == default.month and res.day is not None and
         ((res.day < default.day and date_in_future) or
          (res.day > default.day and not date_in_future))) or
        ((res.month < default.month and date_in_future) or
         (res.month > default.month and not date_in_future))):
        default = default.replace(year=next_year)
""",
        3,
    ),
)


@dataclass(frozen=True)
class Group:
    """Operands joined by one operator; an operand is a Group (of either operator, as written)
    or the text of an expression that is no `and`/`or`."""

    op: str  # "and" / "or"
    operands: tuple[Group | str, ...]


def _joined(op: str, operands: list[Group | str]) -> Group | str:
    """`operands` joined by `op`; one operand is itself."""
    return operands[0] if len(operands) == 1 else Group(op, tuple(operands))


def group_of(node: ast.expr, text_of: dict[int, str]) -> Group | str:
    """The chain `node` as groups, as written (`a or (b or c)` keeps its inner group); its
    operands' texts from `text_of` (id(node) -> text)."""
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return Group(op, tuple(group_of(v, text_of) for v in node.values))
    return text_of[id(node)]


def canonical(group: Group | str) -> Group | str:
    """`group` with every inner group of its own operator flattened into it: one key for the
    groupings that mean the same (`a and (b and c)` is `a and b and c`)."""
    if isinstance(group, str):
        return group
    flat: list[Group | str] = []
    for operand in map(canonical, group.operands):
        if isinstance(operand, Group) and operand.op == group.op:
            flat.extend(operand.operands)
        else:
            flat.append(operand)
    return Group(group.op, tuple(flat))


def rotations(group: Group | str) -> Iterator[Group | str]:
    """Groupings one boundary away from `group`: in a group, an operand group of the other
    operator takes in its 1..k nearest neighbours with some of its own operands (`(a and b) or
    c` -> `a and (b or c)`, `a or (b and c)` -> `(a or b) and c`); and the same inside each
    operand. Groups left alone keep their parentheses as written."""
    if isinstance(group, str):
        return
    operands = list(group.operands)
    for i, inner in enumerate(operands):
        for changed in rotations(inner):
            # a new group of the parent's operator is the parent's: `a or (b or c)` as `a or b or c`
            same = isinstance(changed, Group) and changed.op == group.op
            spread = list(changed.operands) if isinstance(changed, Group) and same else [changed]
            yield _joined(group.op, [*operands[:i], *spread, *operands[i + 1 :]])
        if not isinstance(inner, Group) or inner.op == group.op:
            continue
        own = list(inner.operands)
        for k in range(1, len(operands) - i):  # neighbours to its right
            right = operands[i + 1 : i + 1 + k]
            for j in range(1, len(own)):  # own[j:] joins them
                moved = Group(group.op, (_joined(inner.op, own[j:]), *right))
                rotated = Group(inner.op, (*own[:j], moved))
                yield _joined(group.op, [*operands[:i], rotated, *operands[i + 1 + k :]])
        for k in range(1, i + 1):  # neighbours to its left
            left = operands[i - k : i]
            for j in range(1, len(own)):  # own[:j] joins them
                moved = Group(group.op, (*left, _joined(inner.op, own[:j])))
                rotated = Group(inner.op, (moved, *own[j:]))
                yield _joined(group.op, [*operands[: i - k], rotated, *operands[i + 1 :]])


def regroupings(original: Group | str) -> Iterator[Group | str]:
    """The groupings one boundary away from `original` (`rotations`), each meaning once and none
    meaning what `original` does, MAX_REGROUPINGS at most."""
    seen = {canonical(original)}
    for regrouped in rotations(original):
        if canonical(regrouped) in seen:
            continue
        seen.add(canonical(regrouped))
        yield regrouped
        if len(seen) > MAX_REGROUPINGS:
            return


def spelled(group: Group | str, top: bool = True) -> str:
    """`group` as Python, each inner group in parentheses."""
    if isinstance(group, str):
        return group
    text = f" {group.op} ".join(spelled(operand, top=False) for operand in group.operands)
    return text if top else f"({text})"


def _operands(node: ast.expr) -> Iterator[ast.expr]:
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _operands(value)
    else:
        yield node


class RegroupedCondition(EditClass):
    name = "regrouped-condition"
    changes = "the operands of an `and`/`or` chain grouped another way (`a or b and c` -> `(a or b) and c`)"
    where = "a chain of `and` and `or` at a ranked line"
    size = 2
    order = 35
    found = (4, 3)
    examples = EXAMPLES
    nodes = (ast.BoolOp,)

    def at(self, node: ast.AST, scope: Scope) -> Iterator[Span]:
        assert isinstance(node, ast.BoolOp)
        root: ast.AST = node
        while isinstance(parent := scope.parents.get(root), ast.BoolOp):
            if parent.lineno == node.lineno:
                return  # an outer operation of the chain on this line makes the same edits
            root = parent
        assert isinstance(root, ast.BoolOp)  # the whole chain, whichever of its lines ranks
        operands = list(_operands(root))
        if len(operands) > MAX_OPERANDS:
            return
        text = scope.text
        text_of = {}
        for operand in operands:
            written = text.of(operand)
            needs = isinstance(operand, _NEEDS_PARENTHESES)
            text_of[id(operand)] = f"({written})" if needs else written
        start, end = text.span(root)
        for regrouped in regroupings(group_of(root, text_of)):
            yield start, end, spelled(regrouped)


EDIT_CLASS = RegroupedCondition()
