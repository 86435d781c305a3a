"""The places outside a function's body where its real fix may go: the module-level constants
and tables it reads, the attributes of its own class it reads (`self.X`, `cls.X`, `C.X`, set
in the class body), and the default values of its own parameters.

Why: a wrong constant is fixed where it is written, not by a workaround at the line that
reads it (`LIMIT + 1`); a fix that changes `LIMIT` tells the reader what was wrong and keeps
every other reader of it right. Only what the function reads directly is a place (no helper it
calls, no name it rebinds), and only a value made of literals, containers and operators: a
statement the search's literal and operator classes can edit by one token.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from selfdebug.server.engine.target import TargetFunction

PlaceKind = Literal["constant", "class attribute", "default"]
MAX_STATEMENT_LINES = 20  # a bigger table is data, not a constant a slip is made in
# what a constant's value may be made of: literals, containers, operators, names, and the
# containers' own constructors (`frozenset({...})`)
_VALUE_NODES = (
    ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp, ast.Name,
    ast.Attribute, ast.Call, ast.keyword, ast.Load, ast.operator, ast.unaryop,
)  # fmt: skip
_CONSTRUCTORS = ("frozenset", "set", "tuple", "list", "dict")


@dataclass(frozen=True)
class Place:
    """One place: what it is, its lines of the function's file and its text as written."""

    kind: PlaceKind
    name: str  # the constant, the attribute or the parameter
    line: int  # 1-based file lines: the statement's (a default: its value's)
    end_line: int
    text: str  # the statement (a default: its value), as the file writes it
    namespace: str = ""  # a class attribute's class (`Outer.Inner`); "" otherwise
    node: ast.AST = field(default=ast.Pass(), repr=False, compare=False)  # see `places_of`

    def describe(self) -> str:
        return f"default of {self.name}" if self.kind == "default" else f"{self.kind} {self.name}"


def places_of(source: str, target: TargetFunction) -> list[Place]:
    """The places of `target` (found in `source`), in the order the function reads them; its
    defaults last. A constant's and an attribute's `node` is its statement in `ast.parse(source)`
    (positions in `source`), a default's its value in `ast.parse(target.code)`."""
    try:
        module = ast.parse(source)
        function = _function(ast.parse(target.code))
    except SyntaxError:
        return []
    if function is None:
        return []
    places = list(_constants(module, function, source))
    owner = _owner(module, target)
    if owner is not None:
        places += _class_attributes(owner, function, source, target)
    return places + list(_defaults(function, target))


def _function(tree: ast.Module) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
                None)  # fmt: skip


def _owner(module: ast.Module, target: TargetFunction) -> ast.ClassDef | None:
    """The class whose body defines the method (`target.class_name`), else None."""
    if not target.class_name:
        return None
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef) and node.name == target.class_name.rsplit(".", 1)[-1]:
            for statement in node.body:
                if (
                    isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
                    and statement.lineno == target.def_line + 1
                ):
                    return node
    return None


def _body_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """What the function's body runs (its defaults and decorators are read at def time)."""
    return [n for statement in function.body for n in ast.walk(statement)]


def _constants(
    module: ast.Module, function: ast.FunctionDef | ast.AsyncFunctionDef, source: str
) -> Iterator[Place]:
    nodes = _body_nodes(function)
    local = {a.arg for a in _arguments(function)}
    local |= {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for node in nodes:
        if isinstance(node, ast.Global | ast.Nonlocal):
            local |= set(node.names)  # rebound by the function: state, not a constant
    loads = [n for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    read = [n.id for n in sorted(loads, key=_position)]
    read = [n for n in dict.fromkeys(read) if n not in local]
    statements = _assignments(module.body)
    rebound = _rebound_anywhere(module)
    for name in read:
        statement = statements.get(name)
        if statement is not None and name not in rebound and _constant_value(statement):
            yield _place("constant", name, statement, source)


def _class_attributes(
    owner: ast.ClassDef,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    source: str,
    target: TargetFunction,
) -> Iterator[Place]:
    """`self.X` / `cls.X` / `type(self).X` / `C.X` read by the method, `X` set in `C`'s body."""
    first = [a.arg for a in function.args.posonlyargs + function.args.args][:1]
    owners = {owner.name, *first}
    read: list[str] = []
    written: set[str] = set()
    for node in sorted(_body_nodes(function), key=_position):
        if isinstance(node, ast.Attribute) and _receiver(node.value) in owners:
            if isinstance(node.ctx, ast.Load):
                read.append(node.attr)
            else:
                written.add(node.attr)
    statements = _assignments(owner.body)
    namespace = target.qualname.rsplit(".", 1)[0]
    for name in dict.fromkeys(read):
        statement = statements.get(name)
        if statement is not None and name not in written and _constant_value(statement):
            yield _place("class attribute", name, statement, source, namespace)


def _receiver(node: ast.expr) -> str:
    """`self` of `self.X`, `C` of `C.X`, `self` of `type(self).X`; "" otherwise."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type":
        node = node.args[0] if len(node.args) == 1 else node
    return node.id if isinstance(node, ast.Name) else ""


def _defaults(
    function: ast.FunctionDef | ast.AsyncFunctionDef, target: TargetFunction
) -> Iterator[Place]:
    """Each parameter's default value that holds a literal or an operator."""
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults,
                     strict=True))  # fmt: skip
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d]
    code = target.code
    for argument, value in pairs:
        if _editable(value) and _made_of_values(value):
            text = ast.get_source_segment(code, value) or ""
            line = target.start_line + value.lineno
            end = target.start_line + (value.end_lineno or value.lineno)
            yield Place("default", argument.arg, line, end, text, node=value)


def _arguments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    args = function.args
    found = args.posonlyargs + args.args + args.kwonlyargs
    return found + [a for a in (args.vararg, args.kwarg) if a is not None]


def _assignments(body: list[ast.stmt]) -> dict[str, ast.Assign | ast.AnnAssign]:
    """Each name's last simple assignment among `body`'s own statements (`X = ...`,
    `X: int = ...`, `A, B = ...`), and no name assigned twice: which one a reader sees then
    depends on the order the module runs."""
    found: dict[str, ast.Assign | ast.AnnAssign] = {}
    twice: set[str] = set()
    for statement in body:
        for name in _bound_names(statement):
            if name in found or not isinstance(statement, ast.Assign | ast.AnnAssign):
                twice.add(name)
            elif isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value:
                found[name] = statement
    return {n: s for n, s in found.items() if n not in twice}


def _bound_names(statement: ast.stmt) -> list[str]:
    """The plain names a top-level statement binds (a def's or an import's too)."""
    if isinstance(statement, ast.Assign):
        targets = [n for t in statement.targets for n in _target_names(t)]
        return targets
    if isinstance(statement, ast.AnnAssign | ast.AugAssign):
        return _target_names(statement.target)
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement.name]
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in statement.names]
    return []


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for e in target.elts for n in _target_names(e)]
    return ["\0"]  # a subscript or attribute target: not a plain binding


def _rebound_anywhere(module: ast.Module) -> set[str]:
    """Names some function of the module rebinds (`global X`): module state, not constants."""
    return {
        name for node in ast.walk(module) if isinstance(node, ast.Global) for name in node.names
    }


def _constant_value(statement: ast.Assign | ast.AnnAssign) -> bool:
    """A plain value of a few lines with something to edit (a literal, an operator)."""
    value = statement.value
    if value is None:
        return False
    lines = (statement.end_lineno or statement.lineno) - statement.lineno + 1
    return lines <= MAX_STATEMENT_LINES and _editable(value) and _made_of_values(value)


def _made_of_values(value: ast.expr) -> bool:
    return all(
        isinstance(n, _VALUE_NODES)
        and not (
            isinstance(n, ast.Call)
            and not (isinstance(n.func, ast.Name) and n.func.id in _CONSTRUCTORS)
        )
        for n in ast.walk(value)
    )


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _editable(value: ast.expr) -> bool:
    return any(
        isinstance(n, ast.BinOp)
        or (isinstance(n, ast.Constant) and isinstance(n.value, int | float | str))
        for n in ast.walk(value)
    )


def _place(
    kind: PlaceKind,
    name: str,
    statement: ast.Assign | ast.AnnAssign,
    source: str,
    namespace: str = "",
) -> Place:
    text = ast.get_source_segment(source, statement) or ""
    end = statement.end_lineno or statement.lineno
    return Place(kind, name, statement.lineno, end, text, namespace, statement)
