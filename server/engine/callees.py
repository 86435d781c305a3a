"""What a programmer reads beside a function before changing it: the signatures and first
docstring lines of what it calls in its own module (the module's functions and classes, its
class's other methods through `self.`/`cls.`), and the one-line module constants it reads.

Why: a line that calls `helper(x)` is written knowing what `helper` takes and returns; a model
shown only the function guesses at both (issue 53 item 3). Only the module the function lives
in is read: it is parsed already, and an import elsewhere is one name the model can read in
the imports. A stub is a header, its docstring's first line and `...`: the bodies would cost
prompt tokens on every call and are not what a caller reads.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Literal

from selfdebug.server.engine.target import TargetFunction

CalleeKind = Literal["function", "class", "method", "constant"]
MAX_CALLEES = 8  # a prompt's worth: the first ones the function uses
MAX_DOC = 100  # characters of a docstring's first line
MAX_CONSTANT = 120  # characters of a constant's one-line statement
MAX_FIELDS = 8  # a dataclass's fields shown


@dataclass(frozen=True)
class Callee:
    """One thing the function uses, as a stub written at column 0 (a method's too)."""

    kind: CalleeKind
    name: str
    line: int  # 1-based line of its definition in the file
    stub: str  # `def f(a, b):\n    """Doc."""\n    ...` or `LIMIT = 10`


def callees_of(source: str, target: TargetFunction) -> list[Callee]:
    """What `target` (found in `source`) calls or reads in its module, in file order: module
    functions and classes it calls by name, its class's methods it uses on `self`/`cls` (and
    the `__init__` lines that set the attributes it uses), and the module constants (one line
    each) it reads. Empty when the file does not parse."""
    try:
        module = ast.parse(source)
    except SyntaxError:
        return []
    function = _node_at(module, target.def_line + 1)
    if function is None:
        return []
    called, attributes, read = _uses(function)
    found: list[Callee] = []
    for node in module.body:
        if node is function:  # its own header is in the prompt: recursion needs no stub
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in called:
            found.append(Callee("function", node.name, node.lineno, _stub(node)))
        elif isinstance(node, ast.ClassDef) and node.name in called:
            found.append(Callee("class", node.name, node.lineno, _class_stub(node)))
        elif isinstance(node, ast.ClassDef) and node.name == target.class_name:
            found += _siblings(node, target.name, attributes, source)
        elif (constant := _constant(node, source, read)) is not None:
            found.append(constant)
    found.sort(key=lambda callee: callee.line)
    return found[:MAX_CALLEES]


def _node_at(module: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line:
            return node
    return None


def _uses(function: ast.AST) -> tuple[set[str], set[str], set[str]]:
    """Names called, attributes used on `self`/`cls`, and names read, in `function`."""
    called: set[str] = set()
    attributes: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(node.func.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            attributes.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.add(node.id)
    return called, attributes, read


def _siblings(owner: ast.ClassDef, name: str, attributes: set[str], source: str) -> list[Callee]:
    """The methods of the function's class it uses through `self`/`cls`, and the class's
    `__init__` with the one-line `self.X = ...` statements that set the attributes it uses
    (where an attribute's name and what it holds are read)."""
    methods = {
        item.name: item
        for item in owner.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name != name
    }
    found = [
        Callee("method", item.name, item.lineno, _stub(item))
        for item in methods.values()
        if item.name in attributes and item.name != "__init__"
    ]
    init = methods.get("__init__")
    if init is not None and attributes - set(methods):
        sets = [
            statement
            for statement in init.body
            if isinstance(statement, (ast.Assign, ast.AnnAssign))
            and statement.lineno == statement.end_lineno
            and any(
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                and t.attr in attributes
                for t in (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
            )
        ]
        lines = [ast.get_source_segment(source, statement) or "" for statement in sets]
        header = _stub(init).rsplit("\n    ...", 1)[0]
        body = "".join(f"\n    {line}" for line in lines[:MAX_FIELDS] if line) or "\n    ..."
        found.append(Callee("method", "__init__", init.lineno, header + body))
    return found


def _stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    decorators = "".join(
        f"@{ast.unparse(d)}\n"
        for d in node.decorator_list
        if ast.unparse(d) in ("staticmethod", "classmethod", "property")
    )
    header = f"{decorators}{keyword} {node.name}({ast.unparse(node.args)}){returns}:"
    return header + _doc_and_ellipsis(node)


def _class_stub(node: ast.ClassDef) -> str:
    """A class called by name: its header and its `__init__`'s signature, what a call takes
    (a dataclass's: its fields)."""
    bases = ", ".join(ast.unparse(base) for base in node.bases)
    header = f"class {node.name}({bases}):" if bases else f"class {node.name}:"
    init = next(
        (item for item in node.body
         if isinstance(item, ast.FunctionDef) and item.name == "__init__"),
        None,
    )  # fmt: skip
    body = _doc_line(node)
    if init is not None:
        return header + body + "\n" + _indented(_stub(init))
    fields = [ast.unparse(item) for item in node.body if isinstance(item, ast.AnnAssign)]
    return header + body + "".join(f"\n    {line}" for line in fields[:MAX_FIELDS] or ["..."])


def _doc_and_ellipsis(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    return _doc_line(node) + "\n    ..."


def _doc_line(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """The docstring's first sentence (of its first paragraph, cut at MAX_DOC), as a line."""
    doc = ast.get_docstring(node) or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    if not paragraph:
        return ""
    first = paragraph.split(". ")[0]
    first += "." if first != paragraph else ""
    if len(first) > MAX_DOC:
        first = first[: MAX_DOC - 3] + "..."
    first = first.replace("\\", "\\\\").replace('"""', "'''").rstrip('"')
    return f'\n    """{first}"""'


def _indented(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _constant(node: ast.stmt, source: str, read: set[str]) -> Callee | None:
    """A module-level one-line assignment to a name the function reads."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target = node.target
    else:
        return None
    if not isinstance(target, ast.Name) or target.id not in read:
        return None
    if node.end_lineno != node.lineno:
        return None
    text = ast.get_source_segment(source, node) or ""
    if not text or len(text) > MAX_CONSTANT:
        return None
    return Callee("constant", target.id, node.lineno, text)
