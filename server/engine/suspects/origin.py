"""Where a crash's bad value came from: the function that made it.

A crash is often seen far from its cause: a function returns a value it should have refused
(a NaN, a None, an empty list) and another one fails when it uses it. The crash site ranks
first (rank.py); this finds the next place to look by following the crashing line's operands
back through the failing run, as "origin tracking" does for null values (Bond et al., "Tracking
Bad Apples", OOPSLA 2007), here statically along the traceback: a name the line reads is
traced to its last assignment the failing tests ran, or, when it is a parameter, to the
argument the calling frame passed; the calls whose results became that value are its origins.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence

from selfdebug.server.runner.results import Frame

MAX_FRAMES = 3  # parameters followed up this many calling frames


def value_origins(
    traceback: Sequence[Frame],
    read: Callable[[str], str],
    ran: Mapping[str, frozenset[int]],
) -> set[str]:
    """The names of the functions whose results the crashing line of `traceback` (project
    frames, outermost first) read; `ran` is the lines the failing tests ran, per file."""
    if not traceback:
        return set()
    frames = list(traceback)
    crash = frames[-1]
    function = _function_at(read(crash.path), crash.line)
    if function is None:
        return set()
    statement = statement_at(function, crash.line)
    if statement is None or isinstance(statement, ast.Raise | ast.Assert):
        return set()  # a deliberate error: the value it is about may come from anywhere
    names = _names_read(_evaluated_part(statement))
    origins: set[str] = set()
    for name in names:
        origins |= _origin_of(name, function, crash, frames[:-1], read, ran, MAX_FRAMES)
    return origins


def _origin_of(
    name: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    frame: Frame,
    callers: Sequence[Frame],
    read: Callable[[str], str],
    ran: Mapping[str, frozenset[int]],
    hops: int,
) -> set[str]:
    assigned = _last_assignment(function, name, frame.line, ran.get(frame.path, frozenset()))
    if assigned is not None:
        return _result_calls(assigned)
    if hops <= 0 or not callers or name not in _parameters(function):
        return set()
    caller = callers[-1]
    outer = _function_at(read(caller.path), caller.line)
    if outer is None:
        return set()
    argument = _argument_for(outer, caller.line, function, name)
    if argument is None:
        return set()
    calls = _result_calls(argument)
    if calls or not isinstance(argument, ast.Name):
        return calls
    return _origin_of(argument.id, outer, caller, callers[:-1], read, ran, hops - 1)


def _function_at(source: str, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    holding = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(holding, key=lambda node: node.lineno, default=None)


def statement_at(tree: ast.AST, line: int) -> ast.stmt | None:
    """The innermost statement of `tree` that holds `line`, never a def or class (a line in
    a function is in one of its statements)."""
    holding = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(holding, key=lambda node: node.lineno, default=None)


def _evaluated_part(statement: ast.stmt) -> ast.AST:
    """What the statement's own line evaluates: a compound statement's header only."""
    if isinstance(statement, ast.If | ast.While):
        return statement.test
    if isinstance(statement, ast.For | ast.AsyncFor):
        return statement.iter
    if isinstance(statement, ast.With | ast.AsyncWith):
        return ast.Tuple(elts=[item.context_expr for item in statement.items], ctx=ast.Load())
    return statement


def _names_read(node: ast.AST) -> list[str]:
    loads = [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    names = [n.id for n in loads]
    return [name for name in dict.fromkeys(names) if name not in ("self", "cls")]


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = function.args
    return [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]


def _last_assignment(
    function: ast.AST, name: str, before: int, ran: frozenset[int]
) -> ast.expr | None:
    """The value of the last assignment to `name` above line `before` that the failing tests
    ran (a plain `name = value`, or an annotated one)."""
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if node.value is None or node.lineno >= before or node.lineno not in ran:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            found.append((node.lineno, node.value))
    return max(found, key=lambda pair: pair[0])[1] if found else None


def _result_calls(value: ast.expr) -> set[str]:
    """The names of the calls whose results make `value`: the outermost calls, not the calls
    that only compute their arguments."""
    names: set[str] = set()
    pending: list[ast.AST] = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Call):
            callee = node.func
            if isinstance(callee, ast.Attribute):
                names.add(callee.attr)
            elif isinstance(callee, ast.Name):
                names.add(callee.id)
            continue
        if isinstance(node, ast.Lambda | ast.comprehension):
            continue
        pending.extend(ast.iter_child_nodes(node))
    return names


def _argument_for(
    caller: ast.AST,
    line: int,
    callee: ast.FunctionDef | ast.AsyncFunctionDef,
    parameter: str,
) -> ast.expr | None:
    """The expression the call of `callee` at `line` in `caller` passes for `parameter`."""
    for node in ast.walk(caller):
        if not isinstance(node, ast.Call) or not node.lineno <= line <= (node.end_lineno or 0):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called != callee.name:
            continue
        for keyword in node.keywords:
            if keyword.arg == parameter:
                return keyword.value
        positional = [a.arg for a in [*callee.args.posonlyargs, *callee.args.args]]
        if parameter not in positional or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        bound = isinstance(func, ast.Attribute) and positional[:1] in (["self"], ["cls"])
        index = positional.index(parameter) - (1 if bound else 0)
        if 0 <= index < len(node.args):
            return node.args[index]
    return None
