"""Where a function can be reached from: the names that denote it and the functions that call it.

Why: tests rarely import a function from the file that defines it. They write `import pkg as p;
p.f()` (the package re-exports `f` from a submodule in its `__init__.py`), `from pkg import *`, or
call a public wrapper (`split`) that calls the function (`split_iter`). A static read of a test
can link it to the function only when it knows every such name. This module reads the project's
own (non-test) modules once per request, with tree-sitter, and answers: which `(module, name)`
pairs denote the target or one of its wrappers, and how the project's module names resolve.

Modules are named canonically by their path from the project root (`src.pkg.mod`); an import
written as `pkg.mod` resolves to the canonical name that ends with it. Bounded: only files whose
text names the target (or a wrapper found so far) are parsed, and wrappers are followed three
calls deep.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from selfdebug.instrument.source import parser
from selfdebug.server.runner.safe_read import read_regular
from selfdebug.server.runner.shadow import is_skipped_dir

MAX_SOURCE_FILES = 3000  # project modules looked at (a monorepo stays bounded)
WRAPPER_DEPTH = 3  # a test of `a` that calls `b` that calls `c` that calls the target


def text_of(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def walk(node: Node, prune: tuple[str, ...] = ()) -> Iterator[Node]:
    """Every node under `node` in source order; the subtrees of `prune` types are left out."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in prune:
            continue
        yield current
        stack.extend(reversed(current.children))


def is_test_file(name: str) -> bool:
    """pytest's default test file names, and conftest.py (never a module tests reach through)."""
    return name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    )


def canonical_module(project_root: Path, file: Path) -> str:
    """`src.pkg.mod` for `<root>/src/pkg/mod.py`, `src.pkg` for its `__init__.py`."""
    try:
        rel = file.resolve().relative_to(project_root.resolve())
    except ValueError:
        rel = Path(file.name)
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_forms(canonical: str) -> list[str]:
    """Every dotted name a module may be imported as: `src.pkg.mod`, `pkg.mod`, `mod`."""
    parts = canonical.split(".") if canonical else []
    return [".".join(parts[i:]) for i in range(len(parts))]


@dataclass(frozen=True)
class Known:
    """One name that reaches the target: the target itself, or a wrapper that calls it."""

    name: str  # the function's own name ("split")
    chain: str  # "" for the target; ", which calls split_iter" for a wrapper
    depth: int  # 0: the target; 1: calls it; 2: calls a function that calls it ...


@dataclass
class Reach:
    """What denotes the target (and its wrappers) in this project."""

    target: tuple[str, str]  # (canonical module, top-level name: the function or the class)
    wrappers: bool = True  # follow the functions that call it (not for a class)
    known: dict[tuple[str, str], Known] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)  # any form -> canonical module name

    def module(self, dotted: str) -> str | None:
        """The canonical name of the project module imported as `dotted` (None: not ours)."""
        return self.modules.get(dotted.lstrip("."))

    def lookup(self, module: str, name: str) -> Known | None:
        """What `name` in (canonical) `module` is, when it reaches the target."""
        return self.known.get((module, name))

    @property
    def wrapper_names(self) -> frozenset[str]:
        return frozenset(name for (_, name), k in self.known.items() if k.depth > 0)

    @property
    def names(self) -> frozenset[str]:
        """Every bare name that reaches the target (what a test file's text must contain)."""
        return frozenset(name for _, name in self.known)


def _source_files(project_root: Path) -> list[Path]:
    found: list[Path] = []
    for directory, dirs, files in os.walk(project_root):
        dirs[:] = sorted(d for d in dirs if not is_skipped_dir(os.path.join(directory, d)))
        for name in sorted(files):
            if name.endswith(".py") and not is_test_file(name):
                found.append(Path(directory) / name)
                if len(found) >= MAX_SOURCE_FILES:
                    return found
    return found


def absolute_import(module: str, source: str) -> str:
    """The absolute dotted name of `source` (`..x`, `.`, `pkg.x`) imported inside `module`
    (canonical; a package's own name for its `__init__.py`)."""
    level = len(source) - len(source.lstrip("."))
    rest = source.lstrip(".")
    if not level:
        return rest
    parts = module.split(".") if module else []
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, rest] if rest else base)


@dataclass
class ImportBinding:
    """What one local name of a module is bound to by an import."""

    module: str  # the dotted module as written (absolute); for `import a.b` the name is `a`
    name: str | None  # the imported object's name; None when the binding is the module itself


def import_bindings(root: Node, module: str) -> tuple[dict[str, ImportBinding], list[str]]:
    """The local names a module's imports bind (anywhere in the file: tests import inside
    functions too), and the modules it star-imports. `module` resolves relative imports."""
    bound: dict[str, ImportBinding] = {}
    stars: list[str] = []
    for node in walk(root):
        if node.type == "import_statement":
            for item in node.children_by_field_name("name"):
                if item.type == "aliased_import":
                    dotted = text_of(item.child_by_field_name("name"))
                    bound[text_of(item.child_by_field_name("alias"))] = ImportBinding(dotted, None)
                else:
                    dotted = text_of(item)
                    head = dotted.split(".", 1)[0]
                    bound[head] = ImportBinding(head, None)
        elif node.type == "import_from_statement":
            source = absolute_import(module, text_of(node.child_by_field_name("module_name")))
            if any(c.type == "wildcard_import" for c in node.children):
                stars.append(source)
            for item in node.children_by_field_name("name"):
                aliased = item.type == "aliased_import"
                name = text_of(item.child_by_field_name("name") if aliased else item)
                local = text_of(item.child_by_field_name("alias")) if aliased else name
                bound[local] = ImportBinding(source, name)
    return bound, stars


def _declared_all(root: Node) -> set[str] | None:
    """The names in a module's literal `__all__ = [...]`, None when it has none."""
    for node in root.children:
        statement = node.children[0] if node.type == "expression_statement" else None
        if statement is None or statement.type != "assignment":
            continue
        left, right = statement.child_by_field_name("left"), statement.child_by_field_name("right")
        if text_of(left) == "__all__" and right is not None and right.type in ("list", "tuple"):
            return {text_of(c).strip("\"'") for c in right.children if c.type == "string"}
    return None


@dataclass
class _Module:
    canonical: str
    root: Node
    bindings: dict[str, ImportBinding]
    stars: list[str]
    public: set[str] | None  # __all__


def compute_reach(project_root: Path, file: Path, name: str, *, wrappers: bool = True) -> Reach:
    """Every (module, name) in the project that denotes `name` of `file`, and (with `wrappers`;
    not for a class) the project's functions that call it."""
    project_root = project_root.resolve()
    reach = Reach((canonical_module(project_root, file), name), wrappers=wrappers)
    files = _source_files(project_root)
    target = file.resolve()
    if target not in [f.resolve() for f in files]:
        files.append(target)
    for path in files:
        canonical = canonical_module(project_root, path)
        for form in module_forms(canonical):
            reach.modules.setdefault(form, canonical)
    reach.known[reach.target] = Known(name, "", 0)
    texts: dict[Path, bytes] = {}
    for path in files:
        try:
            texts[path] = read_regular(path)
        except OSError:
            continue
    parsed: dict[Path, _Module] = {}

    def module_of(path: Path) -> _Module:
        if path not in parsed:
            canonical = canonical_module(project_root, path)
            root = parser().parse(texts[path]).root_node
            bindings, stars = import_bindings(root, canonical)
            parsed[path] = _Module(canonical, root, bindings, stars, _declared_all(root))
            publics[canonical] = parsed[path].public
        return parsed[path]

    publics: dict[str, set[str] | None] = {}
    for _round in range(WRAPPER_DEPTH + 2):
        needles = {n.encode() for n in reach.names}
        grew = False
        for path, text in texts.items():
            if not any(needle in text for needle in needles):
                continue
            grew |= _absorb(reach, module_of(path), publics)
        if not grew:
            break
    return reach


def _absorb(reach: Reach, module: _Module, publics: dict[str, set[str] | None]) -> bool:
    """Add what `module` binds to known names (re-exports, star imports) and, unless the target
    is a class, its functions that call them (wrappers). True when something new was learnt."""
    before = len(reach.known)
    local: dict[str, Known] = {}
    for name, binding in module.bindings.items():
        found = _resolve_binding(reach, binding)
        if found is not None:
            local[name] = found
    for source in module.stars:
        star_module = reach.module(source)
        if star_module is None:
            continue
        public = publics.get(star_module)
        for (where, name), known in list(reach.known.items()):
            exported = name in public if public is not None else not name.startswith("_")
            if where == star_module and exported:
                local.setdefault(name, known)
    for (where, name), known in list(reach.known.items()):
        if where == module.canonical:
            local.setdefault(name, known)
    for name, known in local.items():  # `pkg.name` works for any name pkg binds
        reach.known.setdefault((module.canonical, name), known)
    if not reach.wrappers:
        return len(reach.known) > before
    # Wrappers: top-level functions of this module that call a known name.
    for node in module.root.children:
        function = (
            node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        )
        if function is None or function.type != "function_definition":
            continue
        fname = text_of(function.child_by_field_name("name"))
        if (module.canonical, fname) in reach.known:
            continue
        called = _calls_known(function, module, local, reach)
        if called is not None and called.depth < WRAPPER_DEPTH:
            chain = f", which calls {called.name}{called.chain}"
            reach.known[(module.canonical, fname)] = Known(fname, chain, called.depth + 1)
    return len(reach.known) > before


def _resolve_binding(reach: Reach, binding: ImportBinding) -> Known | None:
    if binding.name is None:
        return None
    module = reach.module(binding.module)
    if module is None:
        return None
    return reach.lookup(module, binding.name)


def _calls_known(
    function: Node, module: _Module, local: dict[str, Known], reach: Reach
) -> Known | None:
    """The first known name `function`'s body calls (`f(...)` or `mod.f(...)`), if any."""
    for node in walk(function):
        if node.type != "call":
            continue
        callee = node.child_by_field_name("function")
        if callee is None:
            continue
        if callee.type == "identifier" and text_of(callee) in local:
            return local[text_of(callee)]
        if callee.type == "attribute":
            resolved = resolve_dotted(reach, module.bindings, text_of(callee))
            if resolved is not None and not resolved[1]:
                return resolved[0]
    return None


def resolve_dotted(
    reach: Reach, bindings: dict[str, ImportBinding], dotted: str
) -> tuple[Known, list[str]] | None:
    """What `a.b.c` denotes when `a` is an imported module (or object) of the project: `pkg.sub.f`
    for `import pkg.sub`, `p.f` for `import pkg as p`, `m.f` for `from pkg import m`, with the
    attributes left after the known name (`Cls.meth` -> the class, ["meth"])."""
    head, _, rest = dotted.partition(".")
    binding = bindings.get(head)
    if binding is None:
        return None
    base = binding.module if binding.name is None else f"{binding.module}.{binding.name}"
    parts = rest.split(".") if rest else []
    # the longest prefix that names one of our modules, then the name in it
    for cut in range(len(parts) - 1, -1, -1):
        module = reach.module(".".join([base, *parts[:cut]]))
        if module is not None:
            known = reach.lookup(module, parts[cut])
            return (known, parts[cut + 1 :]) if known is not None else None
    if binding.name is not None:  # `from pkg import f` then `f.attr`
        module = reach.module(binding.module)
        known = reach.lookup(module, binding.name) if module is not None else None
        return (known, parts) if known is not None else None
    return None
