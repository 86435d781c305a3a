"""A module's top level read with `ast`: what each import binds a name to, the definitions by
shape (their program, docstrings and formatting aside), the names assigned, and the statements.

Why its own module: salvage.py reduces a reply to the target function by comparing the reply's
top level with the user's file's: an import the file already binds the same way, a helper the
file already has unchanged. Both sides are read here, one way.
"""

from __future__ import annotations

import ast
import copy
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

_STDLIB: frozenset[str] = frozenset(getattr(sys, "stdlib_module_names", ()))


def is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def shape(node: ast.AST) -> str:
    """A node's program, docstrings, comments and formatting aside (two equal shapes behave
    the same)."""
    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (
            isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and body
            and is_docstring(body[0])
        ):
            inner.body = body[1:] or [ast.Pass()]
    return ast.dump(node)


def names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


@dataclass(frozen=True)
class Binding:
    """What an import binds a name to: ("import", "os.path") or ("from", "math", "sqrt", 0)."""

    key: tuple[object, ...]
    text: str  # the import statement for this one name


def import_bindings(stmt: ast.Import | ast.ImportFrom) -> list[tuple[str, Binding, ast.alias]]:
    bound: list[tuple[str, Binding, ast.alias]] = []
    for alias in stmt.names:
        if isinstance(stmt, ast.Import):
            name = alias.asname or alias.name.split(".")[0]
            key: tuple[object, ...] = ("import", alias.name if alias.asname else name)
            text = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
        else:
            name = alias.asname or alias.name
            key = ("from", stmt.module or "", alias.name, stmt.level)
            module = "." * stmt.level + (stmt.module or "")
            text = f"from {module} import {alias.name}" + (
                f" as {alias.asname}" if alias.asname else ""
            )
        bound.append((name, Binding(key, text), alias))
    return bound


def is_stdlib(stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> bool:
    if isinstance(stmt, ast.ImportFrom):
        if stmt.level or not stmt.module:
            return False
        top = stmt.module.split(".")[0]
    else:
        top = alias.name.split(".")[0]
    return top in _STDLIB and top != "__future__"


def bound_names(stmt: ast.stmt) -> set[str]:
    """Names a module-level assignment binds."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        targets = [stmt.target]
    names: set[str] = set()
    for target in targets:
        names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


@dataclass
class ModuleLevel:
    """What the user's file already has at module level."""

    imports: dict[str, Binding] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)  # name -> shape
    assigned: set[str] = field(default_factory=set)
    statements: set[str] = field(default_factory=set)  # shapes of simple statements
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    future_annotations: bool = False

    @classmethod
    def read(cls, source: str) -> ModuleLevel:
        module = cls()
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return module
        for stmt in top_level_statements(tree.body):
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                module.imports.update((n, b) for n, b, _alias in import_bindings(stmt))
                if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                    module.future_annotations |= any(a.name == "annotations" for a in stmt.names)
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                module.definitions[stmt.name] = shape(stmt)
                if isinstance(stmt, ast.ClassDef):
                    module.classes[stmt.name] = stmt
            elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                module.assigned |= bound_names(stmt)
                module.statements.add(shape(stmt))
        return module


def top_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, looking into if/try blocks (conditional imports)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from top_level_statements(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            handlers = [s for h in stmt.handlers for s in h.body]
            yield from top_level_statements(stmt.body + handlers + stmt.orelse + stmt.finalbody)
