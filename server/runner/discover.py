"""Find the tests that exercise a function, statically: pytest collects, tree-sitter ranks.

pytest's own collection (in the shadow copy, with the project's interpreter) says which tests
exist, with their exact node ids (parametrized cases, classes, doctests). A static read of each
test file then keeps the tests with evidence of using the function: a call through any name that
reaches it (reach.py: the name it was imported as, `module.func`, an alias of its package
`p.func`, a re-export through `__init__.py`, `from pkg import *`), a method called on an
instance of its class (`x = Cls(); x.meth()`, `self.x` built in `setUp`, a fixture returning
one; a receiver known to be another class is not evidence), a helper or fixture in the same file
that does so, a public wrapper that calls it (`split` -> `split_iter`), its doctest when the
project runs them, or a bare mention. The strongest evidence ranks first. A test file that fails
to collect is reported, never a reason to drop the files that collect.

This is the fast first step; discover_exec.py confirms the candidates by running them.
"""

from __future__ import annotations

import configparser
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from selfdebug.instrument.definitions import Definition, definitions
from selfdebug.instrument.source import parser
from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.reach import (
    ImportBinding,
    Known,
    Reach,
    canonical_module,
    compute_reach,
    import_bindings,
    module_forms,
    resolve_dotted,
    text_of,
    walk,
)
from selfdebug.server.runner.results import CollectedItem, CollectError, CollectResult
from selfdebug.server.runner.runner import ProjectRunner
from selfdebug.server.runner.safe_read import UnreadableFile, read_regular, read_regular_text
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import is_skipped_dir
from selfdebug.server.runner.source_files import read_source_text

STRONG, HELPER, WEAK, HINT = 3.0, 2.0, 1.0, 0.5


class DiscoveryError(Exception):
    """No usable tests: the message names the file and line to look at."""


@dataclass
class TestCandidate:
    nodeid: str
    file: Path  # the user's test file
    line: int  # 1-based line of the test's def
    score: float  # 3 direct use, 2 via a helper/fixture/wrapper, 1 mention, 0.5 method name only
    reason: str


@dataclass(frozen=True)
class Target:
    """What to look for: a function, or a method of a class, defined in `modules`."""

    name: str  # the function, or the class for a method
    method: str | None  # the method name when the target is a method
    modules: frozenset[str]  # dotted names the defining file may be imported as
    file: Path
    names: frozenset[str] = frozenset()  # other names that reach it: re-export aliases, wrappers
    reach: Reach | None = field(default=None, compare=False, hash=False)


def module_names(project_root: Path, file: Path) -> frozenset[str]:
    """Every dotted name the file could be imported as: `src.pkg.mod`, `pkg.mod`, `mod`."""
    return frozenset(module_forms(canonical_module(project_root, file)))


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
    reach = compute_reach(project_root, file, top, wrappers=not is_class)
    names = reach.names - {top}
    return Target(top, method, module_names(project_root, file), file.resolve(), names, reach)


@dataclass
class _Evidence:
    score: float = 0.0
    reason: str = ""

    def offer(self, score: float, reason: str) -> None:
        if score > self.score:
            self.score, self.reason = score, reason


@dataclass
class _FileContext:
    """What a test file's names mean: its imports, star imports, and the target's reach."""

    reach: Reach
    target: Target
    bindings: dict[str, ImportBinding]
    stars: list[str]
    same_file: bool
    factories: dict[str, str] = field(default_factory=dict)  # helper/fixture -> class it builds
    other_factories: set[str] = field(default_factory=set)  # ... that return something else

    def resolve_name(self, name: str) -> tuple[Known, str] | None:
        """What a bare name denotes, and how it got here ("imported from pkg")."""
        binding = self.bindings.get(name)
        if binding is not None and binding.name is not None:
            module = self.reach.module(binding.module)
            known = self.reach.lookup(module, binding.name) if module else None
            if known is not None:
                return known, f"imported from {binding.module}"
            return None
        for source in self.stars:
            module = self.reach.module(source)
            known = self.reach.lookup(module, name) if module else None
            if known is not None:
                return known, f"from {source} *"
        if self.same_file:
            known = self.reach.lookup(self.reach.target[0], name)
            if known is not None:
                return known, "defined in the same file"
        return None

    def resolve(self, node: Node) -> tuple[Known, list[str], str] | None:
        """What an identifier or an attribute chain denotes: the known name, the attributes
        after it (`Cls.meth` -> ["meth"]) and how it was reached."""
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head not in self.bindings or self.bindings[head].name is not None:
            found = self.resolve_name(head)
            if found is not None:
                return found[0], rest.split(".") if rest else [], found[1]
        if rest:
            chained = resolve_dotted(self.reach, self.bindings, dotted)
            if chained is not None:
                return chained[0], chained[1], ""
        return None


def _dotted(node: Node) -> str | None:
    """`a.b.c` for an attribute chain of plain names; None for anything else."""
    if node.type == "identifier":
        return text_of(node)
    if node.type == "attribute":
        inner = node.child_by_field_name("object")
        base = _dotted(inner) if inner is not None else None
        return f"{base}.{text_of(node.child_by_field_name('attribute'))}" if base else None
    return None


def _is_member(node: Node) -> bool:
    """`name` in `x.name`: read as part of the attribute, never alone."""
    parent = node.parent
    return (
        parent is not None
        and parent.type == "attribute"
        and parent.child_by_field_name("attribute") == node
    )


def _class_built(value: Node | None, ctx: _FileContext) -> str | None:
    """How the target's class is referred to when `value` builds an instance of it
    (`Cls(...)`, `pkg.Cls(...)`, `make_cls(...)` for a helper that returns one), else None."""
    if value is None or value.type != "call":
        return None
    callee = value.child_by_field_name("function")
    if callee is None:
        return None
    if callee.type == "identifier" and text_of(callee) in ctx.factories:
        return ctx.factories[text_of(callee)]
    found = ctx.resolve(callee)
    if found is not None and found[0].depth == 0 and not found[1]:
        how = f" ({found[2]})" if found[2] else ""
        return f"{text_of(callee)}{how}"
    return None


def _receivers(scope: Node, ctx: _FileContext) -> tuple[dict[str, str], set[str]]:
    """The names in `scope` bound to an instance of the target's class (`x = Cls()`,
    `self.x = Cls()`, `with Cls() as x`), and those bound to the result of any other call
    (their type is something else: `x.meth()` on them is not evidence)."""
    instances: dict[str, str] = {}
    others: set[str] = set()
    for node in walk(scope):
        if node.type == "assignment":
            left, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        elif node.type == "as_pattern":  # with Cls() as x
            left = node.child_by_field_name("alias")
            value = node.children[0] if node.children else None
            left = left.children[0] if left is not None and left.children else left
        else:
            continue
        name = _dotted(left) if left is not None else None
        if name is None or value is None:
            continue
        built = _class_built(value, ctx)
        if built is not None:
            instances[name] = built
        elif value.type == "call":
            others.add(name)
    return instances, others


def _returns_instance(function: Node, ctx: _FileContext) -> str | None:
    """How the class is named when `function` (a helper or fixture) returns or yields an
    instance of the target's class."""
    instances, _ = _receivers(function, ctx)
    for node in walk(function):
        if node.type not in ("return_statement", "yield"):
            continue
        value = next((c for c in node.children if c.is_named), None)
        if value is None:
            continue
        built = _class_built(value, ctx) or instances.get(_dotted(value) or "")
        if built:
            return built
    return None


def _returns_call(function: Node) -> bool:
    """Whether `function` returns or yields the result of a call (something built)."""
    for node in walk(function):
        if node.type in ("return_statement", "yield"):
            value = next((c for c in node.children if c.is_named), None)
            if value is not None and value.type == "call":
                return True
    return False


def _parameters(function: Node) -> list[str]:
    parameters = function.child_by_field_name("parameters")
    names = []
    for child in parameters.children if parameters is not None else []:
        node = child if child.type == "identifier" else child.child_by_field_name("name")
        if node is not None and node.type == "identifier":
            names.append(text_of(node))
    return names


def _evidence(
    scope: Node,
    ctx: _FileContext,
    carriers: dict[str, str],
    context: tuple[dict[str, str], set[str]] = ({}, set()),
) -> _Evidence:
    """How strongly the code in `scope` (a test, with its decorators) uses the target.
    `context`: receivers known from outside the scope (its class's setUp, fixture arguments)."""
    target = ctx.target
    evidence, helper = _Evidence(), _Evidence()
    class_reason = ""
    inside, other_calls = _receivers(scope, ctx)
    instances = {**context[0], **inside}
    others = (context[1] | other_calls) - set(inside)
    method_hits: list[str] = []
    unknown_receiver = False
    for node in walk(scope, prune=("import_statement", "import_from_statement")):
        if node.type == "identifier" and not _is_member(node):
            name = text_of(node)
            found = ctx.resolve(node)
            if found is not None:
                known, _rest, how = found
                if known.depth == 0:
                    class_reason = class_reason or f"uses {name} ({how})"
                    evidence.offer(STRONG, f"calls {name} ({how})")
                else:
                    helper.offer(HELPER, f"calls {name} ({how}){known.chain}")
            elif name == target.name:
                class_reason = class_reason or f"mentions {name} (not imported from its module)"
                evidence.offer(WEAK, f"mentions {name} (not imported from its module)")
            elif name in carriers:
                helper.offer(HELPER, f"via {name}, which {carriers[name]}")
        elif node.type == "attribute":
            attribute = text_of(node.child_by_field_name("attribute"))
            receiver = node.child_by_field_name("object")
            found = ctx.resolve(node) if _dotted(node) else None
            if found is not None and not (node.parent and node.parent.type == "attribute"):
                known, rest, _how = found
                dotted = _dotted(node) or ""
                if known.depth == 0 and not rest:
                    class_reason = class_reason or f"uses {dotted}"
                    evidence.offer(STRONG, f"calls {dotted}")
                elif known.depth == 0 and target.method and rest == [target.method]:
                    method_hits.append(f"calls {dotted}")
                elif known.depth == 0 and rest:
                    base = dotted[: -len(".".join(rest)) - 1]
                    class_reason = class_reason or f"uses {base}"
                elif known.depth > 0 and not rest:
                    helper.offer(HELPER, f"calls {dotted}{known.chain}")
            if target.method and attribute == target.method and receiver is not None:
                built = _class_built(receiver, ctx)
                held = instances.get(_dotted(receiver) or "")
                if built or held:
                    method_hits.append(f"uses {built or held} and calls .{target.method}")
                elif (_dotted(receiver) or "") not in others:
                    unknown_receiver = True
            if attribute in carriers:
                helper.offer(HELPER, f"via .{attribute}, which {carriers[attribute]}")
    if target.method is not None:
        # A method: a call on a receiver known to be the class, else weaker evidence.
        evidence = _Evidence()
        if method_hits:
            evidence.offer(STRONG, method_hits[0])
        elif class_reason and unknown_receiver:
            evidence.offer(WEAK, f"{class_reason} and calls .{target.method} (receiver unknown)")
        elif class_reason:
            evidence.offer(WEAK, class_reason)
        elif unknown_receiver and (ctx.bindings or ctx.stars or ctx.same_file):
            evidence.offer(HINT, f"calls .{target.method} (receiver type unknown)")
    evidence.offer(helper.score, helper.reason)
    return evidence


def _class_receivers(
    definition: Definition, by_path: dict[tuple[str, ...], Node], ctx: _FileContext
) -> tuple[dict[str, str], set[str]]:
    """What the methods of a test's class (setUp, fixtures) bind on `self`."""
    instances: dict[str, str] = {}
    others: set[str] = set()
    if len(definition.path) < 2:
        return instances, others
    class_node = by_path.get(definition.path[:-1])
    if class_node is None:
        return instances, others
    for node in walk(class_node):
        if node.type == "function_definition" and node != definition.node:
            found, other = _receivers(node, ctx)
            instances.update({k: v for k, v in found.items() if k.startswith(("self.", "cls."))})
            others |= {k for k in other if k.startswith(("self.", "cls."))}
    return instances, others - set(instances)


def _rank_file(
    project_root: Path, path: Path, items: list[CollectedItem], target: Target
) -> list[TestCandidate]:
    try:
        source = read_regular(path)
    except OSError:
        return []
    root = parser().parse(source).root_node
    reach = target.reach or compute_reach(project_root, target.file, target.name)
    bindings, stars = import_bindings(root, canonical_module(project_root, path))
    ctx = _FileContext(reach, target, bindings, stars, same_file=path.resolve() == target.file)
    # What pytest can collect: module-level definitions and those nested in classes.
    collectable = [d for d in definitions(root) if not d.in_function]
    if target.method is not None:  # helpers and fixtures that build an instance of the class
        for definition in collectable:
            if definition.is_function and not definition.path[-1].startswith("test"):
                built = _returns_instance(definition.node, ctx)
                if built:
                    ctx.factories[definition.path[-1]] = built
                elif _returns_call(definition.node):
                    ctx.other_factories.add(definition.path[-1])
    # Helpers and fixtures (non-test functions) that use the target carry evidence to the tests
    # that call them or take them as a fixture argument.
    carriers: dict[str, str] = {}
    for definition in collectable:
        name = definition.path[-1]
        if definition.is_function and not name.startswith("test"):
            found = _evidence(definition.outer, ctx, {})
            if found.score >= HELPER:
                carriers[name] = found.reason
    by_path = {d.path: d.outer for d in collectable}  # the last one is what pytest runs
    by_def = {d.path: d for d in collectable}
    candidates = []
    for item in items:
        key = tuple(item.domain.split("[", 1)[0].split("."))
        test_node = by_path.get(key)
        if test_node is None:
            continue
        own_carriers = {k: v for k, v in carriers.items() if k != key[-1]}
        instances, others = _class_receivers(by_def[key], by_path, ctx)
        for parameter in _parameters(by_def[key].node):  # fixtures that build the class
            if parameter in ctx.factories:
                instances[parameter] = ctx.factories[parameter]
            elif parameter in ctx.other_factories:
                others.add(parameter)
        found = _evidence(test_node, ctx, own_carriers, (instances, others))
        if found.score > 0:
            candidates.append(
                TestCandidate(item.nodeid, path, item.line, found.score, found.reason)
            )
    return candidates


def _rank_doctests(items: list[CollectedItem], qualname: str) -> list[TestCandidate]:
    """The doctests pytest collected from the target's own module (`--doctest-modules`): the
    function's own docstring examples are direct evidence; the others' are checked by running."""
    found = []
    for item in items:
        if not item.domain.startswith("[doctest] "):
            continue
        name = item.domain.removeprefix("[doctest] ")
        if name == qualname or name.endswith("." + qualname):
            found.append(TestCandidate(item.nodeid, item.path, item.line, STRONG, "its doctest"))
        else:
            found.append(
                TestCandidate(item.nodeid, item.path, item.line, HINT, "a doctest in its module")
            )
    return found


@dataclass
class StaticDiscovery:
    """What the static step found: the ranked candidates, and what pytest collected."""

    target: Target
    candidates: list[TestCandidate]
    items: list[CollectedItem]
    errors: list[CollectError]  # files that failed to collect (reported, never blocking)
    paths: list[str]  # what was collected (test files, and the module for its doctests)
    error: str = ""  # a run-level problem: nothing could be collected

    @property
    def warnings(self) -> list[str]:
        """One line per test file that failed to collect and may hold tests of the target."""
        return [
            f"a test file failed to collect: {e.describe()}"
            for e in self.errors
            if _mentions(e.path, self.target)
        ]


def static_plan(project_root: Path, file: Path, qualname: str) -> tuple[Target, list[str]]:
    """The target, and what to collect for it: the test files that name something that reaches
    it (imports run at collection, so a big suite costs seconds; none: pytest's own choice), and
    the target's module when the project runs its doctests. No test code runs here."""
    target = make_target(project_root, file, qualname)
    paths = likely_test_files(project_root, target)
    if runs_doctests(project_root):
        paths.append(file.relative_to(project_root).as_posix())
    return target, paths


def rank_collected(
    target: Target,
    qualname: str,
    project_root: Path,
    collected: CollectResult,
    paths: list[str],
) -> StaticDiscovery:
    """pytest's collection ranked by static evidence (the doctests of the target's module
    only when the project runs them)."""
    by_file: dict[Path, list[CollectedItem]] = {}
    for item in collected.items:
        by_file.setdefault(Path(item.path), []).append(item)
    doctests = runs_doctests(project_root)
    candidates = []
    for path, items in by_file.items():
        if path.resolve() == target.file:
            candidates.extend(_rank_doctests(items, qualname) if doctests else [])
        else:
            candidates.extend(_rank_file(project_root, path, items, target))
    order = {item.nodeid: index for index, item in enumerate(collected.items)}
    candidates.sort(key=lambda c: (-c.score, order.get(c.nodeid, 0)))
    error = collected.error if collected.error and not collected.items else ""
    return StaticDiscovery(target, candidates, collected.items, collected.errors, paths, error)


def static_discovery(
    project_root: Path,
    file: Path,
    qualname: str,
    runner: ProjectRunner,
    *,
    cancel: CancelToken | None = None,
    timeout_s: float | None = 120.0,
) -> StaticDiscovery:
    """pytest's collection of the likely test files, ranked by static evidence (never raises)."""
    target, paths = static_plan(project_root, file, qualname)
    collected = runner.collect(paths, cancel=cancel, timeout_s=timeout_s)
    return rank_collected(target, qualname, project_root, collected, paths)


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
    """The tests of `qualname` in `file` by static evidence, best first. A test file that fails
    to collect does not hide the others' tests (`static_discovery` reports it); DiscoveryError
    when there are none, naming the file and line of any collection error."""
    project_root = Path(project_root).resolve()
    file = Path(file).resolve()
    own = runner is None
    runner = runner or ProjectRunner(project_root, settings)
    try:
        found = static_discovery(
            project_root, file, qualname, runner, cancel=cancel, timeout_s=timeout_s
        )
    finally:
        if own:
            runner.close()
    if not found.candidates:
        raise DiscoveryError(no_tests_message(found, qualname, file, project_root))
    return found.candidates


def no_tests_message(found: StaticDiscovery, qualname: str, file: Path, project_root: Path) -> str:
    """Why static discovery found nothing: the run-level error, the files that failed to
    collect (file:line), or how many tests were read."""
    if found.error:
        return f"could not collect the tests of {project_root}: {found.error}"
    if found.errors:
        listing = "\n".join(f"  {e.describe()}" for e in found.errors)
        return f"pytest could not collect test files:\n{listing}"
    files = len({item.path for item in found.items})
    searched = f"{len(found.items)} tests in {files} files"
    return (
        f"no tests found for {qualname} ({file}): none of the {searched} under "
        f"{project_root} calls it; name tests explicitly (--test NODEID) or write one"
    )


def likely_test_files(project_root: Path, target: Target) -> list[str]:
    """Test files (pytest's default test_*.py / *_test.py names) whose text names the target
    (the class and the method, for a method) or another name that reaches it (a re-export
    alias, a wrapper), relative to the project root."""
    # a dunder method runs through syntax (`f(1)`, `a == b`), not its name: the class suffices
    method = target.method if target.method and not target.method.startswith("__") else None
    needles = [target.name.encode()] + ([method.encode()] if method else [])
    others = [name.encode() for name in sorted(target.names)]
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
            rel = os.path.relpath(path, project_root)
            if not in_testpaths(project_root, rel):
                continue
            if all(needle in text for needle in needles) or any(n in text for n in others):
                found.append(rel)
    return found


def pytest_option(project_root: Path, name: str) -> str:
    """An ini option of the project's pytest configuration, as pytest finds it (pytest.ini,
    pyproject.toml's [tool.pytest.ini_options], tox.ini, setup.cfg), list values joined by
    spaces; "" when unset. Read for discovery only (which files, whether doctests count)."""
    sections = {"pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}
    for file in ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
        try:
            text = read_regular_text(project_root / file)
        except OSError:
            continue
        if file == "pyproject.toml":
            try:
                import tomllib  # 3.11+
            except ImportError:  # 3.10: no TOML reader at hand; the option's line is enough
                line = re.search(rf"^\s*{re.escape(name)}\s*=\s*(.*)$", text, re.MULTILINE)
                return re.sub(r"[\[\]\"',]", " ", line.group(1)) if line else ""
            try:
                tool = tomllib.loads(text).get("tool", {})
            except ValueError:
                continue
            options = tool.get("pytest", {}).get("ini_options") if isinstance(tool, dict) else None
            if not isinstance(options, dict):
                continue
            value = options.get(name, "")
            return " ".join(map(str, value)) if isinstance(value, list) else str(value)
        config = configparser.ConfigParser(interpolation=None)
        try:
            config.read_string(text)
        except configparser.Error:
            continue
        if config.has_section(sections[file]):
            return config.get(sections[file], name, fallback="")
    return ""


def runs_doctests(project_root: Path) -> bool:
    """Whether the project's pytest configuration collects doctests from its modules
    (`--doctest-modules` in its `addopts`)."""
    return "--doctest-modules" in pytest_option(project_root, "addopts")


def in_testpaths(project_root: Path, rel: str) -> bool:
    """Whether a test file (relative) is under the project's `testpaths` (all are when unset):
    a `bench/test_x.py` outside them is a benchmark, not a test the project runs."""
    testpaths = pytest_option(project_root, "testpaths").split()
    if not testpaths:
        return True
    parts = Path(rel).parts
    return any(parts[: len(Path(t).parts)] == Path(t).parts for t in testpaths)


def _mentions(path: str, target: Target) -> bool:
    """Whether a file that failed to collect may hold tests of the target."""
    try:
        text = read_source_text(path)
    except UnreadableFile:
        return False
    except OSError:
        return True
    return target.name in text or (target.method is not None and target.method in text)
