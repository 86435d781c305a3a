"""Missing updates: the statement a loop or a collection needed and never got.

Two shapes, each found from what the function's code cannot do without it:

- a `while` loop whose condition reads names that nothing in its body changes (no assignment,
  no method call on them, no break or return): once entered it never ends, unless the body
  steps a counter. `n -= 1` and `n += 1` go at the end of its body. This is the likeliest
  repair of such a loop, so it is a size-1 edit (edits.py's order).
- a collection the function creates empty (`[]`, `set()`, `deque()`) and reads (`x in
  seen`, `stack.pop()`, `stack[-1]`), but never adds to: `seen.add(v)` / `stack.append(v)` goes
  before or after each statement where `v` is in scope, `v` a loop variable of an enclosing
  loop, else a parameter of the innermost function (size 3, as any inserted statement).

Edits come as mutate_statements.Raw, at the ranked lines only.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator

from selfdebug.server.engine.search.statements import (
    FunctionNode,
    Raw,
    Text,
    _blocks,
    _params,
    _whole_lines,
)

_ADDERS = {"list": "append", "deque": "append", "set": "add"}
_GROWING = frozenset({
    "append", "add", "extend", "insert", "update", "appendleft", "extendleft", "setdefault",
    "__setitem__", "push", "put",
})  # fmt: skip
MAX_VALUES = 3  # names tried as the added value
_ENDS_BLOCK = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _changed_in(body: list[ast.stmt]) -> set[str]:
    """Names the statements assign, or call a method on, or hand to a call (which may change
    them), or `del`; a `break`/`return` or a call of a function not built in counts as
    changing everything ("*")."""
    changed: set[str] = set()
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            changed.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            changed.add(node.value.id)  # `x.pop()`, `x.attr = ...`
        elif isinstance(node, ast.Call):
            changed.update(a.id for a in node.args if isinstance(a, ast.Name))
            if isinstance(node.func, ast.Name) and not hasattr(builtins, node.func.id):
                changed.add("*")  # a function of the project's may change anything
        elif isinstance(node, ast.Break | ast.Return | ast.Raise | ast.Yield | ast.Global):
            changed.add("*")
    return changed


def loop_counters(function: FunctionNode, text: Text, lines: set[int]) -> Iterator[Raw]:
    """`name -= 1` / `name += 1` at the end of a `while` body that changes nothing its
    condition reads (the module docstring)."""
    for node in ast.walk(function):
        if not isinstance(node, ast.While) or not node.body or node.lineno not in lines:
            continue
        read = [n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)]
        if not read or any(isinstance(n, ast.Call) for n in ast.walk(node.test)):
            continue  # `while True:`, or a call that may change with every pass
        changed = _changed_in(node.body)
        if "*" in changed or changed & set(read):
            continue
        last = node.body[-1]
        whole = _whole_lines(text, last)
        if whole is None:
            continue
        indent = " " * last.col_offset
        for name in dict.fromkeys(read):
            for step in ("-=", "+="):
                yield (
                    node.lineno,
                    "loop-counter-step",
                    whole[1],
                    whole[1],
                    f"{indent}{name} {step} 1\n",
                )


def _empty_collections(function: FunctionNode) -> dict[str, str]:
    """name -> its kind ("list", "set", "deque") for the names the function binds once only,
    to an empty collection."""
    stores: dict[str, int] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    kinds = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, kind = node.targets[0], _empty_kind(node.value)
            if isinstance(target, ast.Name) and kind and stores[target.id] == 1:
                kinds[target.id] = kind
    return kinds


def _empty_kind(value: ast.expr) -> str:
    """ "list" for `[]`, "set" for `set()`, "deque" for `deque()`; "" for anything else."""
    if isinstance(value, ast.List) and not value.elts:
        return "list"
    if not isinstance(value, ast.Call) or value.args or value.keywords:
        return ""
    called = value.func.id if isinstance(value.func, ast.Name) else ""
    return called if called in _ADDERS else ""


def _named(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _grown(function: FunctionNode, name: str) -> bool:
    """Whether anything adds to `name`: a growing method, an item or augmented assignment, or
    the name handed to a call (which may fill it)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and _named(node.value, name) and node.attr in _GROWING:
            return True
        stored = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
        if stored and _named(node.value, name):  # type: ignore[attr-defined]
            return True
        if isinstance(node, ast.AugAssign) and _named(node.target, name):
            return True
        if isinstance(node, ast.Call) and any(_named(a, name) for a in node.args):
            return True
    return False


def _read(function: FunctionNode, name: str) -> bool:
    """Whether the function reads `name` (membership, a method, an index)."""
    return any(
        _named(n, name) and isinstance(n.ctx, ast.Load)  # type: ignore[attr-defined]
        for n in ast.walk(function)
    )


def _values_in_scope(block_owner: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[str]:
    """The names an added value may be: the targets of the loops around `block_owner`
    (innermost first), else the parameters of the innermost function around it."""
    around = [block_owner]
    while around[-1] in parents:
        around.append(parents[around[-1]])
    loops = [n for n in around if isinstance(n, ast.For)]
    names = [n.id for loop in loops for n in ast.walk(loop.target) if isinstance(n, ast.Name)]
    if names:
        return list(dict.fromkeys(names))[:MAX_VALUES]
    owner = next(n for n in around if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return [p for p in _params(owner) if p not in ("self", "cls")][:MAX_VALUES]


def collection_adds(function: FunctionNode, text: Text, lines: set[int]) -> Iterator[Raw]:
    """`seen.add(v)` / `stack.append(v)` before or after a statement of a block, for a
    collection the function reads but never adds to (the module docstring)."""
    targets = {
        name: kind
        for name, kind in _empty_collections(function).items()
        if _read(function, name) and not _grown(function, name)
    }
    if not targets:
        return
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    for owner, block in _blocks(function):
        if not any(stmt.lineno in lines for stmt in block):
            continue
        values = _values_in_scope(owner, parents)
        for index, stmt in enumerate(block):
            if stmt.lineno not in lines:
                continue
            whole = _whole_lines(text, stmt)
            if whole is None:
                continue
            indent = " " * stmt.col_offset
            places = [whole[0]]
            if index == len(block) - 1 and not isinstance(stmt, _ENDS_BLOCK):
                places.append(whole[1])
            for name, kind in targets.items():
                for value in (v for v in values if v != name):
                    added = f"{indent}{name}.{_ADDERS[kind]}({value})\n"
                    for place in places:
                        yield stmt.lineno, "collection-add", place, place, added
