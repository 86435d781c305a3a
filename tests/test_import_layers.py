"""Which of our modules import which (issue 50 item 4): the engine imports none of its front ends,
and no front end's module imports one that imports it back. Read from the source (every import
statement, in a function or under TYPE_CHECKING too), so a circle deferred into a function body
counts as one."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRONT_ENDS = ("selfdebug.commands", "selfdebug.bench", "selfdebug.server.lsp")


def _module(path: Path) -> str:
    """A file's one import path: `server/engine/x.py` is `selfdebug.server.engine.x`."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] != "selfdebug":
        parts.insert(0, "selfdebug")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module of ours that `path` names in an import (a `from m import n` names `m`, and
    `m.n` when that is a module)."""
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            named |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            named |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return {name for name in named if name.startswith("selfdebug.")}


def _graph() -> dict[str, set[str]]:
    files = [  # selfdebug/server and selfdebug/instrument are links to the top-level folders
        path
        for folder in ("selfdebug", "server", "instrument")
        for path in (ROOT / folder).rglob("*.py")
        if not any((ROOT / parent).is_symlink() for parent in path.relative_to(ROOT).parents)
    ]
    imports = {_module(path): _imports(path) for path in files}
    return {
        name: {m for m in named if m in imports and m != name} for name, named in imports.items()
    }


def test_the_engine_imports_none_of_its_front_ends():
    graph = _graph()
    assert "selfdebug.server.engine.from_failure" in graph
    reaching = {
        (module, imported)
        for module, named in graph.items()
        if module.startswith("selfdebug.server.engine")
        for imported in named
        if imported.startswith(FRONT_ENDS)
    }
    assert reaching == set()


def test_no_command_or_benchmark_module_imports_one_that_imports_it_back():
    graph = _graph()
    assert "selfdebug.commands.fix_failure" in graph["selfdebug.commands.fix"]
    circles = {
        tuple(sorted((module, imported)))
        for module, named in graph.items()
        if module.startswith(FRONT_ENDS[:2])
        for imported in named
        if module in graph[imported]
    }
    assert circles == set()
