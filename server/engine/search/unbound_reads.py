"""Local names a function reads where some path to the read leaves them unassigned.

Why: an edit that moves an assignment under a condition (`renewal = start` made
`if leap: renewal = ...`) passes the tests whose inputs take the branch and raises
UnboundLocalError on the others; pylint reports the construct as possibly-used-before-assignment
(E0606). Counted among the degenerate constructs (edits.py): an edit or a model's line that
adds one is not tried. The original's own are not held against an edit (they are counted on
both sides), since the code around them may rule the bad path out.

The analysis is the simple, conservative one: statements in order, a name bound on every path
that falls through an `if`/`try` is bound after it, a loop's body may not run. Comprehensions,
lambdas and nested functions are their own scopes and are not looked into.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # statements that bind a name
_SCOPES = (*_DEFS, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_TRIES = (ast.Try, getattr(ast, "TryStar", ast.Try))  # try/except* from Python 3.11


def unbound_reads(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names `function` assigns and reads somewhere no assignment is sure to precede."""
    names = _assigned(function.body) - _declared_outside(function.body)
    args = function.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    flow = _Flow(names)
    flow.block(function.body, {a.arg for a in params if a is not None})
    return flow.unbound


class _Flow:
    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.unbound: set[str] = set()
        self.breaks: list[list[set[str]]] = []  # per loop being walked: the bound at its breaks

    def block(self, body: list[ast.stmt], bound: set[str]) -> set[str] | None:
        """The names bound after `body` runs from `bound`; None when it never falls through."""
        current: set[str] | None = set(bound)
        for statement in body:
            if current is None:
                return None  # the rest is never reached
            current = self.statement(statement, current)
        return current

    def statement(self, node: ast.stmt, bound: set[str]) -> set[str] | None:
        if isinstance(node, ast.If):
            self.reads(node.test, bound)
            bound = bound | _walrus(node.test)
            return _join(self.block(node.body, bound), self.block(node.orelse, bound))
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            head = node.test if isinstance(node, ast.While) else node.iter
            self.reads(head, bound)
            bound = bound | _walrus(head)
            inside = bound | (_targets(node.target) if not isinstance(node, ast.While) else set())
            self.breaks.append([])
            self.block(node.body, inside)
            breaks = self.breaks.pop()
            if _forever(node):  # `while True:` runs its body; it is left by a break only
                return _join_all(breaks)
            after = self.block(node.orelse, bound) if node.orelse else bound
            return bound if after is None else after
        if isinstance(node, _TRIES):
            body = self.block(node.body, bound)
            done = self.block(node.orelse, body) if body is not None else None
            for handler in node.handlers:
                named = {handler.name} if handler.name else set()
                done = _join(done, self.block(handler.body, bound | named))
            if node.finalbody:
                self.block(node.finalbody, bound)
            return done
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.reads(item.context_expr, bound)
                named = _targets(item.optional_vars) if item.optional_vars else set()
                bound = bound | _walrus(item.context_expr) | named
            return self.block(node.body, bound)
        if isinstance(node, ast.Match):
            self.reads(node.subject, bound)
            bound = bound | _walrus(node.subject)
            for case in node.cases:
                self.block(case.body, bound | _targets(case.pattern))
            return bound
        if isinstance(node, _DEFS):
            return bound | {node.name}
        if isinstance(node, ast.Delete):
            return bound - {t.id for t in node.targets if isinstance(t, ast.Name)}
        self.reads(node, bound)
        if isinstance(node, ast.Break) and self.breaks:
            self.breaks[-1].append(bound)
        if isinstance(node, _EXITS):
            return None
        return bound | _assigned([node])

    def reads(self, node: ast.AST, bound: set[str]) -> None:
        """`node`'s reads (a name it binds with `:=` may be read in it: not counted)."""
        for name in set(_loads(node)) - _walrus(node):
            if name in self.names and name not in bound:
                self.unbound.add(name)


def _forever(loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    return (
        isinstance(loop, ast.While)
        and isinstance(loop.test, ast.Constant)
        and bool(loop.test.value)
    )


def _join_all(states: list[set[str]]) -> set[str] | None:
    return set.intersection(*states) if states else None


def _join(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    if a is None:
        return b
    return a if b is None else a & b


def _own_nodes(node: ast.AST) -> Iterable[ast.AST]:
    """`node` and what it holds, not looking into other scopes or comprehensions."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (*_SCOPES, *_COMPREHENSIONS)):
                stack.append(child)


def _loads(node: ast.AST) -> list[str]:
    return [n.id for n in _own_nodes(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)]  # fmt: skip


def _walrus(node: ast.AST) -> set[str]:
    return {n.target.id for n in _own_nodes(node) if isinstance(n, ast.NamedExpr)}


def _targets(node: ast.AST) -> set[str]:
    """The names a target or a match pattern binds."""
    found = set()
    for n in _own_nodes(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            found.add(n.id)
        elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
            found.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            found.add(n.rest)
    return found


def _assigned(body: list[ast.stmt]) -> set[str]:
    """Every name the statements bind, their nested blocks included (not other scopes)."""
    found: set[str] = set()
    for statement in body:
        for n in _own_nodes(statement):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
                found.add(n.id)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                found.add(n.name)
            elif isinstance(n, ast.alias):
                found.add((n.asname or n.name).split(".")[0])
            elif isinstance(n, _DEFS):  # the statement itself: nested scopes are not walked
                found.add(n.name)
    return found


def _declared_outside(body: list[ast.stmt]) -> set[str]:
    """Names declared `global` or `nonlocal`: not this function's locals."""
    return {name for statement in body for n in _own_nodes(statement)
            if isinstance(n, ast.Global | ast.Nonlocal) for name in n.names}  # fmt: skip
