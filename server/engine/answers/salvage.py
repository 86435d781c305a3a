"""Salvage the target function from a reply that holds more than it.

Why: instruct models answer with the whole module, a helper next to the function, a usage line
(`print(f(3))`, `assert f(1) == 1`) or an `import` at the top. Refusing such a reply wastes a
turn although the fix is in it. Here the reply is read with `ast` and reduced to the one thing the
engine may change, the target function:

- the target's def is taken out (the last one, when the reply repeats it);
- top-level usage (calls, prints, asserts, loops, `if __name__ == "__main__":`), unused imports,
  unused functions and code the file already has, unchanged, are dropped;
- an import the function needs is kept when the file already binds that name the same way,
  moved into the function when it is in the standard library, and refused otherwise;
- a new helper the function calls becomes a nested function of the target;
- anything else that would change the module (another function or class changed, a module
  variable set) is refused with the reason, so the model can be told what to do instead.

The edit stays honest: what the user accepts is only the function's lines, and everything moved
into it (imports, helpers) shows in the diff. The LSP edit replaces the function's range alone, so
nothing may be placed outside it. The reply's and the file's top levels are read alike
(module_level.py).
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

from selfdebug.server.engine.answers.module_level import (
    Binding,
    ModuleLevel,
    bound_names,
    import_bindings,
    is_docstring,
    is_stdlib,
    names_used,
    shape,
)
from selfdebug.server.engine.target import FunctionNode, TargetFunction, first_line


@dataclass
class Salvaged:
    """The target function taken out of a reply (column 0), or why it cannot be."""

    code: str = ""
    problem: str = ""
    notes: list[str] = field(default_factory=list)  # what was dropped or moved, for the record


def _names_at_definition_time(function: FunctionNode, future_annotations: bool) -> set[str]:
    """Names evaluated when the `def` runs (decorators, defaults, annotations): a name that only
    exists inside the body is not bound yet there."""
    args = function.args
    parts: list[ast.AST] = [*function.decorator_list, *args.defaults]
    parts += [d for d in args.kw_defaults if d is not None]
    if not future_annotations:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        parts += [a.annotation for a in every if a is not None and a.annotation is not None]
        if function.returns is not None:
            parts.append(function.returns)
    return set().union(*(names_used(p) for p in parts)) if parts else set()


# -- the salvage -------------------------------------------------------------------------------


def _find_target(
    tree: ast.Module, target: TargetFunction, module: ModuleLevel
) -> tuple[FunctionNode | None, list[ast.stmt], str]:
    """The target's def in the reply, the other top-level statements to look at, and a problem
    ("" when none). A method may come inside its class; the class's other members must then be
    the file's, unchanged."""
    body = list(tree.body)
    if target.class_name:
        wrapper = next(
            (s for s in body if isinstance(s, ast.ClassDef) and s.name == target.class_name), None
        )
        if wrapper is not None:
            body.remove(wrapper)
            methods = [
                s
                for s in wrapper.body
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == target.name
            ]
            if not methods:
                return (
                    None,
                    body,
                    f"the class {target.class_name} in the answer has no `{target.name}`",
                )
            original = module.classes.get(target.class_name)
            known = {shape(s) for s in original.body} if original is not None else set()
            changed = [
                s
                for s in wrapper.body
                if s not in methods and not is_docstring(s) and shape(s) not in known
            ]
            if changed:
                what = ", ".join(sorted({_describe(s) for s in changed}))
                return (
                    None,
                    body,
                    f"the class {target.class_name} in the answer also changes {what}; "
                    f"give only the method `{target.name}`",
                )
            return methods[-1], body, ""
    defs = [
        s
        for s in body
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == target.name
    ]
    if not defs:
        found = [s.name for s in body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
        return (
            None,
            body,
            (
                f"the answer must define the function `{target.name}` "
                f"(found: {', '.join(found) or 'none'})"
            ),
        )
    chosen = defs[-1]
    return chosen, [s for s in body if s is not chosen and s not in defs[:-1]], ""


def _describe(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return f"`{stmt.name}`"
    return f"`{ast.unparse(stmt).splitlines()[0][:60]}`"


def salvage_function(code: str, tree: ast.Module, target: TargetFunction, source: str) -> Salvaged:
    """Reduce the reply's code (dedented, parsed as `tree`) to the target function."""
    module = ModuleLevel.read(source)
    function, others, problem = _find_target(tree, target, module)
    if function is None:
        return Salvaged(problem=problem)
    result = Salvaged()
    helpers: dict[str, FunctionNode] = {}
    imports: dict[str, tuple[ast.Import | ast.ImportFrom, ast.alias, Binding]] = {}
    assignments: list[ast.stmt] = []
    changed: list[FunctionNode | ast.ClassDef] = []  # the file's own, rewritten by the model
    for stmt in others:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            for name, binding, alias in import_bindings(stmt):
                imports[name] = (stmt, alias, binding)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if module.definitions.get(stmt.name) == shape(stmt):
                result.notes.append(f"dropped `{stmt.name}`: the file already has it")
            elif stmt.name in module.definitions:
                changed.append(stmt)
            elif isinstance(stmt, ast.ClassDef):
                assignments.append(stmt)  # a new class: refused below only if it is used
            else:
                helpers[stmt.name] = stmt
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            assignments.append(stmt)
        else:
            result.notes.append(f"dropped top-level {_describe(stmt)}")

    # What the kept code needs: the target, then every new helper it reaches.
    used = names_used(function)
    nested: list[FunctionNode] = []
    pending = [name for name in helpers if name in used]
    while pending:
        name = pending.pop(0)
        if any(h.name == name for h in nested):
            continue
        nested.append(helpers[name])
        new = names_used(helpers[name]) - used
        used |= new
        pending += [n for n in helpers if n in new]
    for name in helpers:
        if name not in {h.name for h in nested}:
            result.notes.append(f"dropped unused function `{name}`")
    nested.sort(key=lambda h: h.lineno)

    for definition in changed:
        kind = "class" if isinstance(definition, ast.ClassDef) else "function"
        if definition.name in used:
            return Salvaged(
                problem=f"the answer also changes the {kind} `{definition.name}`, which "
                f"`{target.name}` uses; only `{target.name}` may change (a helper it needs "
                "can go inside it)"
            )
        result.notes.append(f"dropped the changed {kind} `{definition.name}`: it is not used")

    for stmt in assignments:
        names = {stmt.name} if isinstance(stmt, ast.ClassDef) else bound_names(stmt)
        needed = names & used
        if not needed:
            result.notes.append(f"dropped top-level {_describe(stmt)}")
        elif shape(stmt) in module.statements:
            result.notes.append(f"dropped {_describe(stmt)}: the file already has it")
        else:
            what = "the class" if isinstance(stmt, ast.ClassDef) else "module-level"
            return Salvaged(
                problem=f"the answer adds {what} `{', '.join(sorted(needed))}`, which "
                f"`{target.name}` uses; only the function may change (define it inside "
                "the function)"
            )

    moved: list[str] = []
    imported_inside = {
        name
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name, _binding, _alias in import_bindings(node)
    }
    for name, (stmt, alias, binding) in imports.items():
        if name not in used or name in imported_inside:
            result.notes.append(f"dropped unused `{binding.text}`")
        elif module.imports.get(name) == binding:
            result.notes.append(f"dropped `{binding.text}`: the file already has it")
        elif name in module.imports or name in module.definitions or name in module.assigned:
            return Salvaged(
                problem=f"`{binding.text}` would rebind `{name}`, which the file already "
                "defines differently; use the file's own"
            )
        elif not is_stdlib(stmt, alias):
            return Salvaged(
                problem=f"`{binding.text}` is neither in the standard library nor imported by "
                "the file; use only what the file already imports"
            )
        else:
            moved.append(binding.text)

    early = _names_at_definition_time(function, module.future_annotations)
    late = (early & {h.name for h in nested}) | (early & {n for n in imports if n in used})
    late -= set(module.imports) | set(module.definitions) | module.assigned
    if late:
        return Salvaged(
            problem=f"`{', '.join(sorted(late))}` is used in the def line of `{target.name}`, "
            "which runs before the function body; leave it out of the signature"
        )
    result.code = _with_prelude(code, function, moved, nested)
    if moved:
        result.notes.append(f"moved into the function: {'; '.join(moved)}")
    if nested:
        result.notes.append(f"nested in the function: {', '.join(f'`{h.name}`' for h in nested)}")
    if not result.code:
        return Salvaged(
            problem=f"the helpers of `{target.name}` cannot be nested in a one-line def; "
            "write the body on its own lines"
        )
    return result


def _lines_of(code: str, node: FunctionNode) -> list[str]:
    lines = code.splitlines(keepends=True)
    return lines[first_line(node) : node.end_lineno]


def _with_prelude(
    code: str, function: FunctionNode, imports: list[str], helpers: list[FunctionNode]
) -> str:
    """The target's text with `imports` and `helpers` placed first in its body (after the
    docstring), dedented to column 0. "" when the body shares the def's line."""
    own = _lines_of(code, function)
    start = first_line(function)
    text = textwrap.dedent("".join(own))
    if not imports and not helpers:
        return text if text.endswith("\n") else text + "\n"
    body = function.body
    if body[0].lineno <= function.lineno:
        return ""  # `def f(x): return x`: no line to put anything on
    shifted = textwrap.dedent("".join(own)).splitlines(keepends=True)
    offset = len(own[0]) - len(own[0].lstrip()) if own else 0
    after_docstring = is_docstring(body[0]) and len(body) > 1
    anchor = body[1] if after_docstring else body[0]
    insert_at = (anchor.lineno - 1) - start
    indent = " " * max(anchor.col_offset - offset, 1)
    block: list[str] = [f"{indent}{line}\n" for line in imports]
    for helper in helpers:
        helper_text = textwrap.dedent("".join(_lines_of(code, helper)))
        block += [
            (indent + line if line.strip() else "\n")
            for line in helper_text.rstrip("\n").splitlines(keepends=True)
        ]
        block[-1] = block[-1].rstrip("\n") + "\n"
    if helpers:
        block.append("\n")
    joined = "".join(shifted[:insert_at] + block + shifted[insert_at:])
    return joined if joined.endswith("\n") else joined + "\n"
