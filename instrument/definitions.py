"""Every `def` and `class` in a syntax tree, named by where it sits: the one walk that finds a
function or a test by name.

The instrumenter, the engine (through an `ast` adapter in `server/engine/target.py`) and test
discovery all ask "which definition is `Class.method`?"; answering it in one place keeps their
rules the same: definitions inside `if`/`try`/`with` blocks count, decorators belong to the
definition, and the first one in source order wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter

from .source import language

DEFINITION_TYPES = ("function_definition", "class_definition")


@dataclass(frozen=True)
class Definition:
    path: tuple[str, ...]  # ("Class", "method"), ("outer", "inner"); "?" for a name in error
    node: tree_sitter.Node  # the function_definition or class_definition
    outer: tree_sitter.Node  # the decorated_definition around it, else `node`
    enclosing: tuple[str, ...]  # node types of the enclosing definitions, outermost first

    @property
    def qualname(self) -> str:
        return ".".join(self.path)

    @property
    def is_function(self) -> bool:
        return self.node.type == "function_definition"

    @property
    def has_name(self) -> bool:
        return self.node.child_by_field_name("name") is not None

    @property
    def in_class(self) -> bool:
        """Defined directly in a class body (a method, or a nested class)."""
        return bool(self.enclosing) and self.enclosing[-1] == "class_definition"

    @property
    def in_function(self) -> bool:
        """Defined inside a function (a closure or a local class): pytest never collects it."""
        return "function_definition" in self.enclosing


@lru_cache(maxsize=1)
def _query() -> tree_sitter.Query:
    return tree_sitter.Query(language(), "[(function_definition) (class_definition)] @def")


def _name(node: tree_sitter.Node) -> str:
    name = node.child_by_field_name("name")
    return name.text.decode("utf-8", "replace") if name is not None and name.text else "?"


def definition_of(node: tree_sitter.Node) -> Definition:
    """`node` (a function_definition or class_definition) named as `definitions` names it."""
    names, kinds = [_name(node)], []
    current = node.parent
    while current is not None:
        if current.type in DEFINITION_TYPES:
            names.append(_name(current))
            kinds.append(current.type)
        current = current.parent
    parent = node.parent
    outer = parent if parent is not None and parent.type == "decorated_definition" else node
    return Definition(tuple(reversed(names)), node, outer, tuple(reversed(kinds)))


def definitions(root: tree_sitter.Node) -> list[Definition]:
    """Every def and class under `root` (nested ones and those in blocks too), in source order."""
    captures = tree_sitter.QueryCursor(_query()).captures(root)
    nodes = sorted(captures.get("def", []), key=lambda node: node.start_byte)
    return [definition_of(node) for node in nodes]


def find_definition(found: Sequence[Definition], path: Sequence[str]) -> Definition | None:
    """The first definition named `path` (["Class", "method"]) that a reader meets."""
    wanted = tuple(path)
    return next((d for d in found if d.path == wanted and d.has_name), None)
