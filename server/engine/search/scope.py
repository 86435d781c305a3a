"""What an edit class sees of the function it edits: the text with offsets from `ast`
positions, and the function's names, attributes, literals and calls that an edit may put in a
place (a slip writes one in-scope name for another, not an invented one).

Edits are changes of the text (found with `ast`, applied to the text), so the rest of the
function keeps its formatting and comments.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from selfdebug.server.engine.evidence import Expected
from selfdebug.server.engine.search.operators import TOKEN

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
Span = tuple[int, int, str]  # (start, end, replacement) of the function text
MAX_LITERALS = 8  # the function's literals tried in another literal's place
_SIMPLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
STORED = (ast.Name, ast.Attribute, ast.Subscript)  # values read from a place, not computed


class Text:
    """Offsets into the function text from ast positions (ast columns are UTF-8 bytes)."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.lines = code.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col_bytes: int) -> int:
        line = self.lines[lineno - 1] if lineno - 1 < len(self.lines) else ""
        chars = len(line.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))
        return self.starts[lineno - 1] + chars

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def of(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.code[start:end]

    def replace(self, start: int, end: int, text: str) -> str:
        return self.code[:start] + text + self.code[end:]

    def find_op(self, start: int, end: int, spelling: str) -> tuple[int, int] | None:
        """The operator token between two operands (parentheses and comments skipped)."""
        segment = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), self.code[start:end])
        for match in TOKEN.finditer(segment):
            if " ".join(match.group().split()) == spelling:
                return start + match.start(), start + match.end()
        return None


@dataclass(frozen=True)
class Scope:
    """What the edit classes may draw on besides the node: the text and the function's names."""

    function: FunctionNode
    text: Text
    local_names: Sequence[str]
    attributes: Sequence[str]
    parents: dict[ast.AST, ast.AST]
    sibling_args: dict[str, dict[int, list[str]]]  # function name -> position -> texts
    constants: Sequence[tuple[type, str]] = ()  # (int/float/str, text) of the function's literals
    parameters: Sequence[str] = ()  # the function's own, without self/cls
    failed_with: Collection[str] = ()  # what the failing tests raised (engine/evidence.py)
    failed_from: Collection[str] = ()  # ... dotted with their modules (`json.decoder.X`)
    raises: Sequence[str] = ()  # what the failing tests expect raised (engine/evidence.py)
    own_class: tuple[str, str] = ("", "")  # a method's class name and how it names its own
    # class at run time (`type(self)`, or `cls` in a classmethod); ("", "") elsewhere


def scope_of(function: FunctionNode, text: Text, expected: Expected, class_name: str) -> Scope:
    """The scope of `function` (its text `text`), `class_name` the class of a method ("" for
    a plain function)."""
    body_nodes = [n for stmt in function.body for n in ast.walk(stmt)]
    parents = {child: parent for parent in body_nodes for child in ast.iter_child_nodes(parent)}
    # the attributes read for their values; `self.total += x` reads `self.total` too
    attributes = list(
        dict.fromkeys(
            n.attr
            for n in body_nodes
            if isinstance(n, ast.Attribute)
            and (data_attribute(n, parents) or _augmented(n, parents))
        )
    )
    sibling_args: dict[str, dict[int, list[str]]] = {}
    for node in body_nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for index, arg in enumerate(node.args):
                texts = sibling_args.setdefault(node.func.id, {}).setdefault(index, [])
                if text.of(arg) not in texts:
                    texts.append(text.of(arg))
    return Scope(
        function, text, _local_names(function), attributes, parents, sibling_args,
        _function_literals(body_nodes, text), _parameters(function), expected.failed_with,
        expected.failed_from, expected.raises, _own_class(function, class_name),
    )  # fmt: skip


def wrap(text: str, node: ast.AST) -> str:
    """`text` (the source of `node`) parenthesized where an operator would bind into it."""
    return text if isinstance(node, _SIMPLE) else f"({text})"


def moved_bound(node: ast.expr, text: Text) -> Iterator[Span]:
    """`x` -> `x + 1`, `x - 1`."""
    start, end = text.span(node)
    wrapped = wrap(text.of(node), node)
    for sign in ("+", "-"):
        yield start, end, f"{wrapped} {sign} 1"


def data_attribute(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """An attribute read for its value (`node.successor`), not a method called (`.append(`)."""
    if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
        return False
    parent = parents.get(node)
    return not (isinstance(parent, ast.Call) and parent.func is node)


def _augmented(node: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> bool:
    """The target of an augmented assignment: read, then written."""
    parent = parents.get(node)
    return isinstance(parent, ast.AugAssign) and parent.target is node


def called_name(call: ast.Call) -> str:
    return call.func.id if isinstance(call.func, ast.Name) else ""


def chain_root(node: ast.expr) -> str:
    """`a` of `a.b.c`; "" when the chain starts at a call or a subscript."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _parameters(function: FunctionNode) -> list[str]:
    """The function's named parameters, without self/cls."""
    args = function.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return [n for n in names if n not in ("self", "cls")]


def _local_names(function: FunctionNode) -> list[str]:
    """Parameters and names the function assigns: the in-scope values a slip may confuse."""
    args = function.args
    names = _parameters(function)
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
    return [n for n in dict.fromkeys(names) if n not in ("self", "cls")]


def _function_literals(nodes: Sequence[ast.AST], text: Text) -> list[tuple[type, str]]:
    """The numbers and short strings the function's code uses (docstrings left out), each
    spelled as written, negative numbers with their sign."""
    parents = {child: parent for parent in nodes for child in ast.iter_child_nodes(parent)}
    found: dict[str, type] = {}
    for node in nodes:
        if not isinstance(node, ast.Constant) or type(node.value) not in (int, float, str):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Expr) or (isinstance(node.value, str) and len(node.value) > 20):
            continue
        kind = type(node.value)
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub):
            node = parent
        found.setdefault(text.of(node), kind)
    return [(kind, spelling) for spelling, kind in found.items()][:MAX_LITERALS]


def _own_class(function: FunctionNode, class_name: str) -> tuple[str, str]:
    """The method's class name and its run-time spelling: `type(self)` in a method, `cls` in
    a classmethod; ("", "") for a plain function or a staticmethod."""
    first = function.args.posonlyargs + function.args.args
    if not class_name or not first:
        return "", ""
    decorators = {d.id for d in function.decorator_list if isinstance(d, ast.Name)}
    if "staticmethod" in decorators:
        return "", ""
    runtime = "cls" if "classmethod" in decorators else f"type({first[0].arg})"
    return class_name.rsplit(".", 1)[-1], runtime
