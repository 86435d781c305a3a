"""Statement-level candidate edits: a statement deleted, two adjacent statements swapped, a
guard or base case inserted, a missing `return` put back.

edits.py makes the expression-level edits; these change whole lines. Each comes as
(code line, size, kind, start, end, replacement) on the function text, like edits.py's, so they
are ordered, parsed, deduplicated and refused when degenerate by the same code. A guard is
`if not <name>:` then `return <value>` (or `break` in a loop), where the name is a parameter, a
loop variable or a name assigned before the loop, and the value is one the function returns
elsewhere (a constant, a parameter, such a name) or an empty value; guards go at the top of
the function, after each of its leading guards and leading assignments (a base case that
returns a value set up first), and at the top of each loop.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Protocol

Raw = tuple[int, str, int, int, str]  # (code line, edit class, start, end, replacement)
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.Expr, ast.AnnAssign)
_EMPTY = ("None", "0", "[]", "''")  # what a base case returns when nothing else is known
MAX_GUARD_NAMES = 6
MAX_GUARD_VALUES = 5


class Text(Protocol):
    """What these edits need of edits.py's `_Text`."""

    code: str
    starts: list[int]

    def span(self, node: ast.AST) -> tuple[int, int]: ...

    def of(self, node: ast.AST) -> str: ...


def _blocks(function: FunctionNode) -> Iterator[tuple[ast.AST, list[ast.stmt]]]:
    """(owner, statements) of every block of the function, nested ones (and nested
    functions') too."""
    todo: list[ast.AST] = [function]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or not block:
                continue
            if field in ("handlers", "cases"):
                todo.extend(block)
                continue
            statements = [s for s in block if isinstance(s, ast.stmt)]
            yield node, statements
            todo.extend(statements)


def _whole_lines(text: Text, stmt: ast.stmt) -> tuple[int, int] | None:
    """The span of the lines `stmt` fills alone (with their newline), or None when it shares a
    line with something else (`if x: y`)."""
    start, end = text.span(stmt)
    line_start = text.starts[stmt.lineno - 1]
    last = stmt.end_lineno or stmt.lineno
    line_end = text.starts[last] if last < len(text.starts) else len(text.code)
    if text.code[line_start:start].strip() or text.code[end:line_end].strip():
        return None
    return line_start, line_end


def deletions(function: FunctionNode, text: Text, lines: set[int]) -> Iterator[Raw]:
    """A simple statement deleted (its line gone, or `pass` where it was alone in a block)."""
    for _owner, block in _blocks(function):
        for stmt in block:
            if not isinstance(stmt, _SIMPLE_STATEMENTS) or stmt.lineno not in lines:
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # a docstring
            start, end = text.span(stmt)
            whole = _whole_lines(text, stmt)
            if len(block) > 1 and stmt.lineno == stmt.end_lineno and whole is not None:
                yield stmt.lineno, "deleted-statement", whole[0], whole[1], ""
                continue
            yield stmt.lineno, "deleted-statement", start, end, "pass"


def swaps(function: FunctionNode, text: Text, lines: set[int]) -> Iterator[Raw]:
    """Two adjacent one-line simple statements in the other order (`x = y` before `y = z`)."""
    for _owner, block in _blocks(function):
        for first, second in pairwise(block):
            if not (
                isinstance(first, _SIMPLE_STATEMENTS) and isinstance(second, _SIMPLE_STATEMENTS)
            ):
                continue
            if first.lineno not in lines and second.lineno not in lines:
                continue
            a, b = _whole_lines(text, first), _whole_lines(text, second)
            if a is None or b is None or a[1] != b[0] or first.end_lineno != first.lineno:
                continue
            if second.end_lineno != second.lineno:
                continue
            line = first.lineno if first.lineno in lines else second.lineno
            upper, lower = text.code[a[0] : a[1]], text.code[b[0] : b[1]]
            yield line, "swapped-statements", a[0], b[1], _ended(lower) + upper


def _ended(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


def missing_returns(
    function: FunctionNode, text: Text, lines: set[int], names: Sequence[str]
) -> Iterator[Raw]:
    """`f(x)` -> `return f(x)` for a plain call standing alone (a recursive call whose value is
    dropped), and `return <name>` appended when the function ends without a return."""
    if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(function)):
        return
    for _owner, block in _blocks(function):
        for stmt in block:
            value = stmt.value if isinstance(stmt, ast.Expr) else None
            plain_call = isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            if plain_call and stmt.lineno in lines:
                start = text.span(stmt)[0]
                yield stmt.lineno, "missing-return", start, start, "return "
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
    for name in names:
        yield wanted[0], "missing-return", end, end, f"{prefix}{indent}return {name}\n"


def guards(function: FunctionNode, text: Text, lines: set[int]) -> Iterator[Raw]:
    """`if not <name>: return <value>` (or `break`) at the top of the function (and of a
    nested one), after each of its leading guards and assignments, and at the top of each
    loop; see the module docstring."""
    for owner in _functions(function):
        if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(owner)):
            continue
        outer = _assigned_before(function, owner.lineno) if owner is not function else []
        params = [*_params(owner), *outer]
        returned = _returned_values(owner, text)
        points: list[tuple[ast.stmt, list[str], bool]] = []  # (statement, names, in a loop)
        for stmt in _entry_points(owner):
            points.append((stmt, [*params, *_assigned_before(owner, stmt.lineno)], False))
        for node in _own_nodes(owner):
            if isinstance(node, ast.For | ast.While) and node.body:
                read = node.target if isinstance(node, ast.For) else node.test
                used = [n.id for n in ast.walk(read) if isinstance(n, ast.Name)]
                before = _assigned_before(owner, node.lineno)
                points.append((node.body[0], [*used, *before, *params], True))
        unit = " " * (function.body[0].col_offset or 4)
        for stmt, names, in_loop in points:
            if stmt.lineno not in lines or _whole_lines(text, stmt) is None:
                continue
            line_start, indent = text.starts[stmt.lineno - 1], " " * stmt.col_offset
            visible = set(names)
            known = [v for v, uses in returned if uses <= visible]
            # an empty value nothing in the function returns is a larger guess: tried after
            guessed = "guard-returning-known" if known else "guard-returning-empty"
            values = (known or list(_EMPTY))[:MAX_GUARD_VALUES]
            actions = [(f"return {v}", guessed) for v in values]
            actions += [("break", "guard-breaking")] if in_loop else []
            for name in [n for n in dict.fromkeys(names) if n not in ("self", "cls")][
                :MAX_GUARD_NAMES
            ]:
                for action, edit_class in actions:
                    guard = f"{indent}if not {name}:\n{indent}{unit}{action}\n"
                    yield stmt.lineno, edit_class, line_start, line_start, guard


def _entry_points(function: FunctionNode) -> list[ast.stmt]:
    """The statements a guard may go before: the first, and each one after the function's
    leading guards and assignments."""
    points = []
    for index, stmt in enumerate(function.body):
        previous = function.body[index - 1] if index > 0 else None
        if previous is not None and not (_is_guard(previous) or _is_setup(previous)):
            break
        points.append(stmt)
    return points


def entry_lines(function: FunctionNode) -> set[int]:
    """The lines of the function's guard points. A missing base case has no line of its own
    for the coverage to rank, and the lines every test runs rank last: edits.py tries guards
    there after every ranked edit."""
    return {stmt.lineno for stmt in _entry_points(function)}


def _functions(function: FunctionNode) -> list[FunctionNode]:
    """The function and the functions defined in it."""
    return [n for n in ast.walk(function) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _own_nodes(function: FunctionNode) -> Iterator[ast.AST]:
    """The nodes of `function`'s body, not those of functions nested in it."""
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))


def _params(function: FunctionNode) -> list[str]:
    args = function.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return names + [a.arg for a in (args.vararg, args.kwarg) if a is not None]


def _is_guard(stmt: ast.stmt) -> bool:
    """`if ...: return/raise ...` with no else: a base case or an argument check."""
    return (
        isinstance(stmt, ast.If)
        and not stmt.orelse
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], ast.Return | ast.Raise)
    )


def _is_setup(stmt: ast.stmt) -> bool:
    """`name = value`: a local set up before the base case that returns it."""
    return isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets)


def _returned_values(function: FunctionNode, text: Text) -> list[tuple[str, set[str]]]:
    """The simple values the function returns somewhere (constants, names, empty containers),
    each with the names it reads, in order; `None` when the function only returns bare."""
    found: dict[str, set[str]] = {}
    bare = False
    for node in _own_nodes(function):
        if not isinstance(node, ast.Return):
            continue
        value = node.value
        if value is None:
            bare = True
            continue
        if _simple_value(value):
            uses = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
            found.setdefault(text.of(value), uses)
    if bare and not found:
        found["None"] = set()
    return list(found.items())


def _simple_value(value: ast.expr) -> bool:
    """A constant, a name, `-1`, or a container of those (`[]`, `(0, x)`)."""
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return all(isinstance(e, ast.Constant | ast.Name) for e in value.elts)
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Constant | ast.Name)


def _assigned_before(function: FunctionNode, line: int) -> list[str]:
    """Names the function assigns on lines before `line` (in scope at a loop's top)."""
    names = []
    for node in _own_nodes(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.lineno < line:
            names.append(node.id)
    return list(dict.fromkeys(names))
