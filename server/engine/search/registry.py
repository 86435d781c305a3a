"""Every edit class of the search, once: the modules of `classes/`, each one class (cosmic-ray's
operators, TBar's fix templates), found here and ordered by their `order`.

A class earns its place by recurring in real fixes: its `examples` are before/after pairs
reduced from fix commits of at least two projects (`owner/repo@commit:path::function`), and
tests/test_search_registry.py checks that the class makes each example's fix from its buggy
version and that docs/MODES.md's table of classes is this registry's (`markdown_table`).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from selfdebug.server.engine.search import classes
from selfdebug.server.engine.search.edit_class import EditClass

MIN_EXAMPLE_COMMITS = 3
MIN_EXAMPLE_PROJECTS = 2


def discover(package: ModuleType = classes) -> tuple[EditClass, ...]:
    """The `EDIT_CLASS` of every module of `package`, by `order`. A module without one, or two
    classes of one name or one order, is a bug of the package."""
    found: list[EditClass] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        edit_class = getattr(module, "EDIT_CLASS", None)
        if not isinstance(edit_class, EditClass):
            raise TypeError(f"{module.__name__} has no EDIT_CLASS (an EditClass)")
        found.append(edit_class)
    for attribute in ("name", "order"):
        values = [getattr(c, attribute) for c in found]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice or not all(values):
            raise ValueError(f"edit classes need a unique {attribute}: {twice or values}")
    return tuple(sorted(found, key=lambda c: c.order))


CLASSES = discover()
REGISTRY: dict[str, EditClass] = {c.name: c for c in CLASSES}


def size_of(name: str) -> int:
    """The size of class `name`; a change of no registered class is a bug."""
    return REGISTRY[name].size


def unproven() -> list[EditClass]:
    """Classes whose examples show fewer real fix commits or projects than a class needs."""
    return [
        c
        for c in CLASSES
        if (
            len({e.source for e in c.examples}) < MIN_EXAMPLE_COMMITS
            or len(c.projects()) < MIN_EXAMPLE_PROJECTS
        )
    ]


def markdown_table() -> str:
    """The classes as docs/MODES.md lists them."""
    rows = [
        "| class | what it changes | where | size | needs | fix commits it makes (projects) "
        "| examples kept |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in CLASSES:
        commits, projects = c.found
        needs = c.evidence or "-"
        size = "its parts'" if c.combines else str(c.size)
        rows.append(
            f"| `{c.name}` | {c.changes} | {c.where} | {size} | {needs} | {commits} ({projects}) "
            f"| {len(c.examples)} |"
        )
    return "\n".join(rows) + "\n"
