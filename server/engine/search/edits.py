"""Candidate edits at the suspicious lines: every edit class of registry.py asked where it
applies, its changes made, ordered and bounded.

Each edit is a small text change of the function (found with `ast`, applied to the text, so the
rest of the function keeps its formatting and comments). Edits come ordered by the rank of their
line, then by their class's size (1 a token, 2 a name or an order, 3 a statement, 4 a guessed
statement), then by where they were made (the function's nodes in order, each node's classes by
their `order`; the statement classes after every node), and are bounded in count; the
combinations of single edits (pairs, one edit everywhere) come last. Edits that make a
degenerate construct (a constant condition, `x < x`, `f(a, a)`) are not tried: they pass weak
tests by luck.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping

from selfdebug.server.engine.evidence import NOTHING_EXPECTED, Expected
from selfdebug.server.engine.search.edit_class import Edit, EditClass
from selfdebug.server.engine.search.once_loops import runs_once
from selfdebug.server.engine.search.registry import CLASSES
from selfdebug.server.engine.search.scope import Text, scope_of
from selfdebug.server.engine.search.unbound_reads import unbound_reads

__all__ = ["Edit", "degenerate_count", "generate_edits", "own_nodes"]

COMBINED_SHARE = 6  # the single edits leave a sixth of the budget to the combinations
_TYPE_CHECKS = ("isinstance", "issubclass", "callable", "type")


def _degenerate(tree: ast.AST) -> int:
    """Constructs no one writes on purpose: a constant loop or branch condition, an operand
    compared with or subtracted from itself, the same argument twice, a type check of
    arithmetic, a function whose every return gives the same constant (it no longer depends
    on its path: the "functionality deletion" that most plausible-but-wrong patches of
    generate-and-validate repair were, Qi et al. 2015), a statement after a return, raise,
    break or continue of its block (deleted in effect), a loop that runs at most once
    (once_loops.py), a local name read where a path leaves it unassigned (unbound_reads.py).
    An edit that adds one passes weak tests by luck (the anti-patterns of search-based repair),
    so it is not tried."""
    count = 0
    for node in ast.walk(tree):
        count += runs_once(node)
        for body in _bodies(node):
            ends = [i for i, s in enumerate(body) if isinstance(s, _TERMINAL)]
            count += len(body) - ends[0] - 1 if ends else 0  # the statements never reached
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            count += _constant_function(node) + len(unbound_reads(node))
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            test = node.test.operand if isinstance(node.test, ast.UnaryOp) else node.test
            count += isinstance(test, ast.Constant)
        elif isinstance(node, ast.Compare):
            operands = [ast.dump(o) for o in [node.left, *node.comparators]]
            count += len(set(operands)) < len(operands)
        elif isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Add | ast.Mult):
            count += ast.dump(node.left) == ast.dump(node.right)
        elif isinstance(node, ast.Call):
            arguments = [ast.dump(a) for a in node.args]
            count += len(set(arguments)) < len(arguments)
            # a type asked of arithmetic (`isinstance(x + 1, int)`): it "passes" by raising
            type_check = isinstance(node.func, ast.Name) and node.func.id in _TYPE_CHECKS
            count += type_check and bool(node.args) and isinstance(node.args[0], ast.BinOp)
    return count


_TERMINAL = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists a node holds (a body, an else, a finally, a handler's body)."""
    return [
        value
        for field in ("body", "orelse", "finalbody")
        if isinstance(value := getattr(node, field, None), list)
        and value
        and isinstance(value[0], ast.stmt)
    ]


def degenerate_count(tree: ast.AST) -> int:
    """How many degenerate constructs `tree` holds (see `_degenerate`): an edit or a model's
    answer that adds one is refused."""
    return _degenerate(tree)


def _constant_function(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Two or more returns of its own, every one the same constant (`return True` twice)."""
    returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)]
    values = {ast.dump(r.value) if r.value else "None" for r in returns}
    constant = all(r.value is None or isinstance(r.value, ast.Constant) for r in returns)
    return len(returns) >= 2 and len(values) == 1 and constant


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, without those of the functions and classes in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def generate_edits(
    code: str,
    first_line: int,
    line_ranks: Mapping[int, int],
    limit: int = 300,
    expected: Expected = NOTHING_EXPECTED,
    classes: Collection[str] | None = None,
    class_name: str = "",
) -> list[Edit]:
    """Edits of the function text `code` (column 0; its line 1 is file line `first_line`) at the
    file lines of `line_ranks` (line -> rank, 0 most suspicious), lower rank first, then
    smaller edits first; at most `limit`, each distinct, each parsing. The combinations of the
    first single edits take the last part of the budget. `expected`: what the failing tests
    expect (engine/evidence.py). `classes`: only these edit classes (registry.py).
    `class_name`: the class of a method ("" for a plain function)."""
    tree = ast.parse(code)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    text = Text(code)
    offset = first_line - 1
    wanted = {line - offset: rank for line, rank in line_ranks.items()}
    scope = scope_of(function, text, expected, class_name)
    combinations = [c for c in CLASSES if c.combines and (classes is None or c.name in classes)]
    making = [
        c
        for c in CLASSES
        if not c.combines
        and (
            classes is None
            or c.name in classes
            or any(c.name in combination.combines for combination in combinations)
        )
    ]
    at_kind: dict[type, list[EditClass]] = {}  # node type -> the classes that apply there
    raw: list[tuple[int, int, str, int, int, str, int]] = []  # rank, size, class, span, text, #
    for node in (n for stmt in function.body for n in ast.walk(stmt)):
        lineno = getattr(node, "lineno", None)
        if lineno not in wanted:
            continue
        if isinstance(node, ast.stmt | ast.expr) and not isinstance(node, ast.FunctionDef):
            kind = type(node)
            if kind not in at_kind:
                at_kind[kind] = [c for c in making if issubclass(kind, c.nodes)]
            for at_node in at_kind[kind]:
                for start, end, replacement in at_node.at(node, scope):
                    raw.append((wanted[lineno], at_node.size, at_node.name, start, end,
                                replacement, len(raw)))  # fmt: skip
    for statements in making:
        for lineno, start, end, replacement in statements.in_function(scope, set(wanted)):
            raw.append((wanted[lineno], statements.size, statements.name, start, end,
                        replacement, len(raw)))  # fmt: skip
    raw.sort(key=lambda r: (r[0], r[1], r[6]))
    edits: list[Edit] = []
    seen = {ast.dump(tree)}
    degenerate = _degenerate(tree)

    def is_new(new_code: str) -> bool:
        """Parses, is no program already made, and is no more degenerate than the original."""
        new_tree = _parsed(new_code)
        if new_tree is None:
            return False
        key = ast.dump(new_tree)
        if key in seen or _degenerate(new_tree) > degenerate:
            return False
        seen.add(key)
        return True

    singles = limit - limit // COMBINED_SHARE
    body = text.offset(function.body[0].lineno, 0)  # before it: the header (the def line)
    for rank, size, edit_class, start, end, replacement, _order in raw:
        if len(edits) >= singles:
            break
        new_code = text.replace(start, end, replacement)
        if not is_new(new_code):
            continue
        line = offset + code.count("\n", 0, start) + 1
        before = text.code[start:end]
        edits.append(
            Edit(line, rank, size, edit_class, before, replacement, new_code, start, end,
                 defaults=start < body)
        )  # fmt: skip
    singles_made = list(edits)
    for combination in combinations:
        room = min(combination.most(limit), limit - len(edits))
        made = combination.combine(singles_made, code, body, room)
        edits.extend(e for e in made if is_new(e.code))
    return edits if classes is None else [e for e in edits if e.edit_class in classes]


def _parsed(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None
