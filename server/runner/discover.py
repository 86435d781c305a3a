"""Find the tests that exercise a function: pytest collects, tree-sitter ranks.

pytest's own collection (in the shadow copy, with the project's interpreter) says which tests
exist, with their exact node ids (parametrized cases, classes). A static read of each test file
then keeps the tests with evidence of using the function: a call through the name it was
imported as, `module.func`, `Class(...).method`, a helper or fixture in the same file that does
so, or a bare mention. The strongest evidence ranks first.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from selfdebug.instrument.definitions import definitions
from selfdebug.instrument.source import parser
from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.results import CollectedItem
from selfdebug.server.runner.runner import ProjectRunner
from selfdebug.server.runner.safe_read import UnreadableFile, read_regular, read_regular_text
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import is_skipped_dir

STRONG, HELPER, WEAK, HINT = 3.0, 2.0, 1.0, 0.5


class DiscoveryError(Exception):
    """No usable tests: the message names the file and line to look at."""


@dataclass
class TestCandidate:
    nodeid: str
    file: Path  # the user's test file
    line: int  # 1-based line of the test's def
    score: float  # 3 direct use, 2 via a helper/fixture, 1 mention, 0.5 method name only
    reason: str


@dataclass(frozen=True)
class Target:
    """What to look for: a function, or a method of a class, defined in `modules`."""

    name: str  # the function, or the class for a method
    method: str | None  # the method name when the target is a method
    modules: frozenset[str]  # dotted names the defining file may be imported as
    file: Path


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def module_names(project_root: Path, file: Path) -> frozenset[str]:
    """Every dotted name the file could be imported as: `src.pkg.mod`, `pkg.mod`, `mod`."""
    try:
        rel = file.resolve().relative_to(project_root.resolve())
    except ValueError:
        rel = Path(file.name)
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return frozenset(".".join(parts[i:]) for i in range(len(parts)) if parts[i:])


def make_target(project_root: Path, file: Path, qualname: str) -> Target:
    parts = qualname.split(".")
    top = parts[0]
    is_class = False
    try:
        root = parser().parse(read_regular(file)).root_node
        # The last definition of the name is the one the module binds.
        kinds = [d.node.type for d in definitions(root) if d.path == (top,)]
        is_class = bool(kinds) and kinds[-1] == "class_definition"
    except OSError:
        pass
    method = parts[-1] if is_class and len(parts) > 1 else None
    return Target(top, method, module_names(project_root, file), file.resolve())


@dataclass
class _Evidence:
    score: float = 0.0
    reason: str = ""

    def offer(self, score: float, reason: str) -> None:
        if score > self.score:
            self.score, self.reason = score, reason


@dataclass
class _FileBindings:
    """What the test file's imports bind: local names for the target and for its module."""

    symbols: dict[str, str] = field(default_factory=dict)  # local name -> "imported from X"
    modules: dict[str, str] = field(default_factory=dict)  # local dotted name -> module
    star: str = ""  # module imported with `*`
    same_file: bool = False


def _module_matches(name: str, target: Target) -> bool:
    return name.lstrip(".") in target.modules


def _bindings(root: Node, target: Target, same_file: bool) -> _FileBindings:
    bound = _FileBindings(same_file=same_file)
    for node in _walk(root):
        if node.type == "import_statement":
            for item in node.children_by_field_name("name"):
                if item.type == "aliased_import":
                    module = _text(item.child_by_field_name("name"))
                    if _module_matches(module, target):
                        bound.modules[_text(item.child_by_field_name("alias"))] = module
                elif _module_matches(_text(item), target):
                    bound.modules[_text(item)] = _text(item)
        elif node.type == "import_from_statement":
            source = _text(node.child_by_field_name("module_name"))
            for item in node.children_by_field_name("name"):
                name_node = (
                    item.child_by_field_name("name") if item.type == "aliased_import" else item
                )
                name = _text(name_node)
                local = (
                    _text(item.child_by_field_name("alias"))
                    if item.type == "aliased_import"
                    else name
                )
                if _module_matches(source, target) and name == target.name:
                    bound.symbols[local] = f"imported from {source.lstrip('.') or source}"
                elif _module_matches(f"{source.lstrip('.')}.{name}".lstrip("."), target):
                    bound.modules[local] = f"{source}.{name}"
            if any(c.type == "wildcard_import" for c in node.children) and _module_matches(
                source, target
            ):
                bound.star = source
    return bound


def _dotted(node: Node) -> str | None:
    """`a.b.c` for an attribute chain of plain names; None for anything else."""
    if node.type == "identifier":
        return _text(node)
    if node.type == "attribute":
        inner = node.child_by_field_name("object")
        base = _dotted(inner) if inner is not None else None
        return f"{base}.{_text(node.child_by_field_name('attribute'))}" if base else None
    return None


def _evidence(
    scope: Node, target: Target, bound: _FileBindings, carriers: dict[str, str]
) -> _Evidence:
    """How strongly the code in `scope` (a test, with its decorators) uses the target."""
    evidence, helper = _Evidence(), _Evidence()
    uses_class = mentions_method = False
    class_reason = ""
    for node in _walk(scope):
        if node.type in ("import_statement", "import_from_statement"):
            continue
        if node.type == "identifier":
            name = _text(node)
            parent = node.parent
            if (
                parent is not None
                and parent.type == "attribute"
                and parent.child_by_field_name("attribute") == node
            ):
                continue  # `x.name` is handled as an attribute below
            if name in bound.symbols:
                uses_class, class_reason = True, f"uses {name} ({bound.symbols[name]})"
                evidence.offer(STRONG, f"calls {name} ({bound.symbols[name]})")
            elif name == target.name and (bound.star or bound.same_file):
                where = "defined in the same file" if bound.same_file else f"from {bound.star} *"
                uses_class, class_reason = True, f"uses {name} ({where})"
                evidence.offer(STRONG, f"calls {name} ({where})")
            elif name == target.name:
                uses_class, class_reason = True, f"mentions {name} (not imported from its module)"
                evidence.offer(WEAK, f"mentions {name} (not imported from its module)")
            elif name in carriers:
                helper.offer(HELPER, f"via {name}, which {carriers[name]}")
        elif node.type == "attribute":
            attribute = _text(node.child_by_field_name("attribute"))
            dotted = _dotted(node)
            if dotted:
                base = dotted.rsplit(".", 1)[0]
                if attribute == target.name and base in bound.modules:
                    uses_class, class_reason = True, f"uses {dotted}"
                    evidence.offer(STRONG, f"calls {dotted}")
            if target.method and attribute == target.method:
                mentions_method = True
            if attribute in carriers:
                helper.offer(HELPER, f"via .{attribute}, which {carriers[attribute]}")
    if target.method is not None:
        # A method: the class alone or the method name alone is weaker evidence than both.
        evidence = _Evidence()
        if uses_class and mentions_method:
            evidence.offer(STRONG, f"{class_reason} and calls .{target.method}")
        elif uses_class:
            evidence.offer(WEAK, class_reason)
        elif mentions_method and (bound.modules or bound.symbols or bound.same_file or bound.star):
            evidence.offer(HINT, f"calls .{target.method} (receiver type unknown)")
    evidence.offer(helper.score, helper.reason)
    return evidence


def _rank_file(path: Path, items: list[CollectedItem], target: Target) -> list[TestCandidate]:
    try:
        source = read_regular(path)
    except OSError:
        return []
    root = parser().parse(source).root_node
    bound = _bindings(root, target, same_file=path.resolve() == target.file)
    # What pytest can collect: module-level definitions and those nested in classes.
    collectable = [d for d in definitions(root) if not d.in_function]
    # Helpers and fixtures (non-test functions) that use the target carry evidence to the tests
    # that call them or take them as a fixture argument.
    carriers: dict[str, str] = {}
    for definition in collectable:
        name = definition.path[-1]
        if definition.is_function and not name.startswith("test"):
            found = _evidence(definition.outer, target, bound, {})
            if found.score >= STRONG:
                carriers[name] = found.reason
    by_path = {d.path: d.outer for d in collectable}  # the last one is what pytest runs
    candidates = []
    for item in items:
        key = tuple(item.domain.split("[", 1)[0].split("."))
        test_node = by_path.get(key)
        if test_node is None:
            continue
        own_carriers = {k: v for k, v in carriers.items() if k != key[-1]}
        found = _evidence(test_node, target, bound, own_carriers)
        if found.score > 0:
            candidates.append(
                TestCandidate(item.nodeid, path, item.line, found.score, found.reason)
            )
    return candidates


def find_tests(
    project_root: Path | str,
    file: Path | str,
    qualname: str,
    settings: RunnerSettings | None = None,
    *,
    runner: ProjectRunner | None = None,
    cancel: CancelToken | None = None,
    timeout_s: float | None = 120.0,
) -> list[TestCandidate]:
    """The tests of `qualname` in `file`, best evidence first. Raises DiscoveryError when there
    are none, naming the file and line of any collection error (syntax error, failing import)."""
    project_root = Path(project_root).resolve()
    file = Path(file).resolve()
    own = runner is None
    runner = runner or ProjectRunner(project_root, settings)
    target = make_target(project_root, file, qualname)
    # Collect only the test files that mention the function (imports run at collection, so a
    # big suite costs seconds); when none does, collect everything (custom test file patterns).
    paths = likely_test_files(project_root, target)
    try:
        collected = runner.collect(paths, cancel=cancel, timeout_s=timeout_s)
    finally:
        if own:
            runner.close()
    if collected.error and not collected.items:
        raise DiscoveryError(f"could not collect the tests of {project_root}: {collected.error}")
    by_file: dict[Path, list[CollectedItem]] = {}
    for item in collected.items:
        by_file.setdefault(Path(item.path), []).append(item)
    candidates = []
    for path, items in by_file.items():
        candidates.extend(_rank_file(path, items, target))
    order = {item.nodeid: index for index, item in enumerate(collected.items)}
    candidates.sort(key=lambda c: (-c.score, order.get(c.nodeid, 0)))
    relevant_errors = [e for e in collected.errors if _mentions(e.path, target)]
    if relevant_errors or (collected.errors and not candidates):
        errors = relevant_errors or collected.errors
        listing = "\n".join(f"  {e.describe()}" for e in errors)
        raise DiscoveryError(f"pytest could not collect test files:\n{listing}")
    if not candidates:
        searched = f"{len(collected.items)} tests in {len(by_file)} files"
        raise DiscoveryError(
            f"no tests found for {qualname} ({file}): none of the {searched} under "
            f"{project_root} calls it; name tests explicitly (--test NODEID) or write one"
        )
    return candidates


def likely_test_files(project_root: Path, target: Target) -> list[str]:
    """Test files (pytest's default test_*.py / *_test.py names) whose text names the target,
    relative to the project root."""
    needles = [target.name.encode()] + ([target.method.encode()] if target.method else [])
    found = []
    for directory, dirs, files in os.walk(project_root):
        dirs[:] = sorted(d for d in dirs if not is_skipped_dir(os.path.join(directory, d)))
        for name in sorted(files):
            if not (name.startswith("test_") or name.endswith("_test.py")) or not name.endswith(
                ".py"
            ):
                continue
            path = os.path.join(directory, name)
            try:
                text = read_regular(path)  # never a committed link to /dev/zero or a FIFO
            except OSError:
                continue
            if all(needle in text for needle in needles):
                found.append(os.path.relpath(path, project_root))
    return found


def _mentions(path: str, target: Target) -> bool:
    """Whether a file that failed to collect may hold tests of the target."""
    try:
        text = read_regular_text(path)
    except UnreadableFile:
        return False
    except OSError:
        return True
    return target.name in text or (target.method is not None and target.method in text)
