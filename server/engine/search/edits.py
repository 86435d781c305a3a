"""Candidate edits at the suspicious lines: the edit classes of registry.py, made and ordered.

Each edit is a small text change of the function (found with `ast`, applied to the text, so the
rest of the function keeps its formatting and comments). This module makes the expression-level
classes (operators, literals, bounds, conditions, names and orders) and gathers the statement
classes of statements.py, updates.py, raises.py, strings.py and texts.py and the combinations of
pairs.py. Edits come ordered by the rank of their line, then by their class's size (registry.py:
1 a token, 2 a name or an order, 3 a statement, 4 a guessed statement), and are bounded in
count. Edits that make a degenerate construct (a constant condition, `x < x`, `f(a, a)`) are not
tried: they pass weak tests by luck.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from selfdebug.server.engine.evidence import NOTHING_EXPECTED, Expected
from selfdebug.server.engine.search import everywhere, pairs, statements, strings
from selfdebug.server.engine.search import raises as raising
from selfdebug.server.engine.search.registry import size_of

ARITHMETIC = ["+", "-", "*", "/", "//", "%"]
BITWISE = ["&", "|", "^", "<<", ">>"]
COMPARISON = ["<", "<=", ">", ">=", "==", "!="]
# the nearest comparisons first: the boundary (`<` <-> `<=`) or the negation (`==` <-> `!=`),
# the commonest slips, then the others (which replacement is tried first decides between two
# at one line that the tests cannot tell apart)
_NEAREST = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
IDENTITY = ["is", "is not"]
MEMBERSHIP = ["in", "not in"]
BOOLEAN = ["and", "or"]

_BINOP = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
    ast.Pow: "**",
}  # fmt: skip
_CMPOP = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip
_OP_TOKEN = re.compile(
    r"\*\*=?|//=?|<<=?|>>=?|<=|>=|==|!=|[-+*/%&|^@]=?|[<>]|\bnot\s+in\b|\bis\s+not\b"
    r"|\bin\b|\bis\b|\band\b|\bor\b"
)
MAX_LITERALS = 8  # the function's literals tried in another literal's place
_SIMPLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
_TYPE_CHECKS = ("isinstance", "issubclass", "callable", "type")


@dataclass(frozen=True)
class Edit:
    """One candidate: the whole function text after the change, and what changed where."""

    line: int  # 1-based file line of the change
    rank: int  # rank of that line among the suspicious lines (0 = most suspicious)
    size: int  # the class's size (registry.py); a combination: its parts' sizes added
    edit_class: str  # its class's name in registry.py
    before: str
    after: str
    code: str  # the function text (column 0) with the change
    start: int = 0  # the changed span of the original text (characters)
    end: int = 0
    parts: tuple[Edit, ...] = ()  # a pair: the single edits it combines
    origin: str = ""  # who wrote it when not a class: "the model at line 7 (sample 3 of 8)"

    def describe(self) -> str:
        if self.parts:
            return " and ".join(part.describe() for part in self.parts)
        if not self.before.strip():
            return f"line {self.line}: insert `{_short(self.after)}`"
        after = self.after.strip() or "(deleted)"
        return f"line {self.line}: `{_short(self.before)}` -> `{_short(after)}`"

    @property
    def lines(self) -> tuple[int, ...]:
        """The file lines it changes (two for a pair at two lines)."""
        return tuple(sorted({p.line for p in self.parts})) if self.parts else (self.line,)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Text:
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
        for match in _OP_TOKEN.finditer(segment):
            if " ".join(match.group().split()) == spelling:
                return start + match.start(), start + match.end()
        return None


def _wrap(text: str, node: ast.AST) -> str:
    return text if isinstance(node, _SIMPLE) else f"({text})"


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The function's named parameters, without self/cls."""
    args = function.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return [n for n in names if n not in ("self", "cls")]


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Parameters and names the function assigns: the in-scope values a slip may confuse."""
    args = function.args
    names = _parameters(function)
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
    return [n for n in dict.fromkeys(names) if n not in ("self", "cls")]


Change = tuple[str, int, int, str]  # (edit class, start, end, replacement)


@dataclass(frozen=True)
class _Scope:
    """What the edit generators may draw on besides the node: the text and the function's names."""

    text: _Text
    local_names: Sequence[str]
    attributes: Sequence[str]
    parents: dict[ast.AST, ast.AST]
    sibling_args: dict[str, dict[int, list[str]]]
    constants: Sequence[tuple[type, str]] = ()  # (int/float/str, text) of the function's literals
    parameters: Sequence[str] = ()  # the function's own, without self/cls
    failed_with: Collection[str] = ()  # what the failing tests raised (engine/evidence.py)
    own_class: tuple[str, str] = ("", "")  # a method's class name and how it names its own
    # class at run time (`type(self)`, or `cls` in a classmethod); ("", "") elsewhere


def _changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """Every candidate change of one node: by its kind, then the condition and return edits."""
    generator = _BY_KIND.get(type(node))
    if generator is not None:
        yield from generator(node, scope)
    elif _data_attribute(node, scope.parents):
        yield from _attribute_changes(node, scope)
    if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
        yield from _negated_condition(node, scope.text)
    if isinstance(node, ast.If | ast.While):
        yield from _none_checks(node.test, scope)
    if isinstance(node, ast.If | ast.While | ast.IfExp):
        yield from _explicit_none_tests(node.test, scope.text)
    if isinstance(node, ast.Return) and node.value is not None:
        yield from _other_return(node.value, scope)
    if "TypeError" in scope.failed_with and isinstance(node, (*_STORED, ast.Call)):
        yield from _converted_value(node, scope)


def _swaps_within(spelling: str, groups: Sequence[Sequence[str]]) -> Iterator[str]:
    """The other operators of the operator's own class (`<` -> `<=`, `>`, ...)."""
    for group in groups:
        if spelling in group:
            nearest = _NEAREST.get(spelling) if group is COMPARISON else None
            yield from [nearest] if nearest else []
            yield from (other for other in group if other not in (spelling, nearest))


def _binop_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    assert isinstance(node, ast.BinOp)
    text = scope.text
    spelling = _BINOP.get(type(node.op))
    left_end, right_start = text.span(node.left)[1], text.span(node.right)[0]
    found = text.find_op(left_end, right_start, spelling or "")
    if not (spelling and found):
        return
    for other in _swaps_within(spelling, (ARITHMETIC, BITWISE)):
        yield "arithmetic-operator", found[0], found[1], other
    start, end = text.span(node)
    if spelling in ("+", "-", "*"):  # a term too many
        yield "dropped-term", start, end, text.of(node.left)
        yield "dropped-term", start, end, text.of(node.right)


def _compare_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    assert isinstance(node, ast.Compare)
    text = scope.text
    previous: ast.AST = node.left
    for op, right in zip(node.ops, node.comparators, strict=True):
        spelling = _CMPOP[type(op)]
        found = text.find_op(text.span(previous)[1], text.span(right)[0], spelling)
        if found:
            for other in _swaps_within(spelling, (COMPARISON, IDENTITY, MEMBERSHIP)):
                yield "comparison-operator", found[0], found[1], other
        previous = right


def _boolop_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    assert isinstance(node, ast.BoolOp)
    text = scope.text
    spelling = "and" if isinstance(node.op, ast.And) else "or"
    other = "or" if spelling == "and" else "and"
    for before, after in pairwise(node.values):
        found = text.find_op(text.span(before)[1], text.span(after)[0], spelling)
        if found:
            yield "boolean-operator", found[0], found[1], other
    if len(node.values) == 2:  # a whole condition gone: a larger change than a name
        start, end = text.span(node)
        for dropped in node.values:
            (kept,) = (v for v in node.values if v is not dropped)
            yield "dropped-condition", start, end, text.of(kept)


def _augassign_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    assert isinstance(node, ast.AugAssign)
    text = scope.text
    spelling = _BINOP.get(type(node.op))
    found = text.find_op(text.span(node.target)[1], text.span(node.value)[0], f"{spelling}=")
    if spelling and found:
        for other in _swaps_within(spelling, (ARITHMETIC, BITWISE)):
            yield "arithmetic-operator", found[0], found[1], other + "="


def _unary_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """`not x` -> `x` (a negated condition)."""
    assert isinstance(node, ast.UnaryOp)
    if isinstance(node.op, ast.Not):
        start, end = scope.text.span(node)
        yield "dropped-not", start, end, scope.text.of(node.operand)


def _constant_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """+-1 on an integer literal (never below 0: a sign is its own edit), `True` <-> `False`,
    a blank string emptied (and the empty one given a space), another literal of the same kind
    that the function uses elsewhere, and a compared character replaced by one the failing
    tests' strings use (engine/evidence.py)."""
    assert isinstance(node, ast.Constant)
    start, end = scope.text.span(node)
    if type(node.value) is bool:
        yield "boolean-literal", start, end, str(not node.value)
        return
    if type(node.value) is int:
        parent = scope.parents.get(node)
        negative = isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)
        for delta in (1, -1):
            value = node.value + (-delta if negative else delta)
            if value >= 0:
                yield "integer-literal", start, end, str(value)
    family = str if isinstance(node.value, str) else (int, float)
    if not isinstance(node.value, str | int | float):
        return
    if isinstance(node.value, str) and _message(node, scope.parents):
        formatted = strings.with_f_prefix(scope.text.of(node), [*scope.local_names, "self", "cls"])
        if formatted is not None:
            yield "missing-f-prefix", start, end, formatted
    current = scope.text.of(node)
    for kind, other in scope.constants:
        if issubclass(kind, family) and other != current:
            yield "other-literal", start, end, other


def _message(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    """A string used as a value: not a docstring or a `.format` template, nor a piece of an
    f-string."""
    parent = parents.get(node)
    return not isinstance(parent, ast.Expr | ast.Attribute | ast.JoinedStr | ast.FormattedValue)


def _name_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """Another in-scope variable in a name's place; a method's own class, named, made the
    class it runs in (`Version(...)` -> `type(self)(...)`: a subclass gets its own kind)."""
    assert isinstance(node, ast.Name)
    if not isinstance(node.ctx, ast.Load):
        return
    start, end = scope.text.span(node)
    own, runtime = scope.own_class
    if own and node.id == own:
        yield "own-class-name", start, end, runtime
    if node.id in scope.local_names:
        for other in scope.local_names:
            if other != node.id:
                yield "other-name", start, end, other


def _attribute_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """Another attribute the function reads (`node.successor` -> `node.value`)."""
    assert isinstance(node, ast.Attribute)
    end = scope.text.span(node)[1]
    for other in scope.attributes:
        if other != node.attr:
            yield "other-attribute", end - len(node.attr), end, other


# Methods whose sibling takes the same arguments from the other end, or with the other
# strictness: the pairs real fixes swap (`split` -> `rsplit`, `match` -> `search`, `get` -> `pop`)
_SIBLING_METHODS = (
    ("split", "rsplit"), ("partition", "rpartition"), ("find", "rfind"), ("index", "rindex"),
    ("strip", "lstrip", "rstrip"), ("match", "search", "fullmatch"), ("get", "pop"),
    ("pop", "popleft"), ("remove", "discard"), ("startswith", "endswith"), ("append", "extend"),
)  # fmt: skip


def _sibling_methods(name: str) -> list[str]:
    groups = [group for group in _SIBLING_METHODS if name in group]
    return [other for group in groups for other in group if other != name]


def _call_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    assert isinstance(node, ast.Call)
    text = scope.text
    if isinstance(node.func, ast.Attribute):
        end = text.span(node.func)[1]
        for other in _sibling_methods(node.func.attr):
            yield "sibling-method", end - len(node.func.attr), end, other
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    callee = node.func.id if isinstance(node.func, ast.Name) else None
    if callee == "len":
        yield from _moved_bound(node, text)
    elif callee in scope.sibling_args:
        for position, arg in enumerate(positional):  # what another call passes there
            start, end = text.span(arg)
            for other in scope.sibling_args[callee].get(position, []):
                if other != text.of(arg):
                    yield "sibling-argument", start, end, other
    if callee not in ("range", "len"):
        for arg in positional:  # an argument off by one ("+ 1 missing")
            if isinstance(arg, ast.Name | ast.BinOp | ast.Subscript | ast.Attribute):
                for _class, start, end, moved in _moved_bound(arg, text):
                    yield "shifted-argument", start, end, moved
    if len(positional) == len(node.args) >= 2:
        for first, second in pairwise(positional):
            a_start, a_end = text.span(first)
            b_start, b_end = text.span(second)
            middle = text.code[a_end:b_start]
            yield "swapped-arguments", a_start, b_end, text.of(second) + middle + text.of(first)
    if callee == "range":
        for arg in positional:
            if not (isinstance(arg, ast.Constant) and type(arg.value) is int):
                yield from _moved_bound(arg, text)


def _subscript_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """Slice bounds and an index moved by one."""
    assert isinstance(node, ast.Subscript)
    text = scope.text
    index = node.slice
    if isinstance(index, ast.Slice):
        for bound in (index.lower, index.upper):
            literal = isinstance(bound, ast.Constant) and type(bound.value) is int
            if bound is not None and not literal:
                yield from _moved_bound(bound, text)
    elif isinstance(index, ast.Tuple):
        for element in index.elts:
            if not isinstance(element, ast.Constant | ast.Slice):
                yield from _moved_bound(element, text)
    elif not isinstance(index, ast.Constant):
        yield from _moved_bound(index, text)


def _unpacking_changes(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """Two adjacent names of an unpacking in the other order (`day, month = s.split("-")` ->
    `month, day = ...`): a format read in the wrong order."""
    assert isinstance(node, ast.Assign)
    text = scope.text
    for target in node.targets:
        if not isinstance(target, ast.Tuple | ast.List):
            continue
        for first, second in pairwise(target.elts):
            if isinstance(first, ast.Name) and isinstance(second, ast.Name):
                a_start, a_end = text.span(first)
                b_start, b_end = text.span(second)
                middle = text.code[a_end:b_start]
                yield "swapped-unpacking", a_start, b_end, text.of(second) + middle + text.of(first)


def _negated_condition(
    node: ast.If | ast.While | ast.IfExp | ast.Assert, text: _Text
) -> Iterator[Change]:
    start, end = text.span(node.test)
    negated = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
    # `not (a < b)` is the operator swap `a >= b` (`is`/`is not`, `==`/`!=`, `in`/`not in`
    # alike), which `_compare_changes` already makes: one program, tried and counted once.
    single_comparison = isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
    if not negated and not single_comparison and not isinstance(node.test, ast.Constant):
        yield "negated-condition", start, end, f"not {_wrap(text.of(node.test), node.test)}"


def _none_checks(test: ast.expr, scope: _Scope) -> Iterator[Change]:
    """`C` -> `x is not None and C` and `x is None or C`: the check a value that may be None
    was missing (it makes 19 fix commits in 11 projects of the mined pool). `x` is a name or
    attribute chain the condition reads (not a called function, not one it already compares
    with None) or a parameter of the function."""
    text = scope.text
    start, end = text.span(test)
    condition = text.of(test)
    checked = {
        text.of(side)
        for node in ast.walk(test)
        if isinstance(node, ast.Compare)
        for side in (node.left, *node.comparators)
        if any(
            isinstance(c, ast.Constant) and c.value is None for c in (node.left, *node.comparators)
        )
    }
    called = {id(node.func) for node in ast.walk(test) if isinstance(node, ast.Call)}
    read = [
        text.of(node)
        for node in ast.walk(test)
        if isinstance(node, ast.Name | ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and id(node) not in called
        and _chain_root(node) in (*scope.local_names, "self", "cls")
        and text.of(node) not in ("self", "cls")
    ]
    low = isinstance(test, ast.IfExp | ast.Lambda | ast.NamedExpr)
    in_and = (
        f"({condition})"
        if low or (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or))
        else condition
    )
    in_or = f"({condition})" if low else condition
    for value in dict.fromkeys([*read, *scope.parameters]):
        if value not in checked:
            yield "none-check", start, end, f"{value} is not None and {in_and}"
            yield "none-check", start, end, f"{value} is None or {in_or}"


_STORED = (ast.Name, ast.Attribute, ast.Subscript)  # a call's truth is often its answer


def _explicit_none_tests(test: ast.expr, text: _Text) -> Iterator[Change]:
    """`x` -> `x is not None` and `not x` -> `x is None` where a condition (or one operand of
    its `and`/`or`) tests a stored value's truth (a name, attribute or item; no call's): a
    falsy value (0, "", an empty list) was taken for a missing one (24 fix commits in 17
    projects of the mined pool)."""
    operands = test.values if isinstance(test, ast.BoolOp) else [test]
    for operand in operands:
        negated = isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not)
        value = operand.operand if negated else operand  # type: ignore[attr-defined]
        if isinstance(value, _STORED):
            start, end = text.span(operand)
            yield "none-test", start, end, f"{text.of(value)} is {'' if negated else 'not '}None"


CONVERSIONS = ("str", "list", "int", "float")  # the mined pool's most frequent wrappers


def _converted_value(node: ast.expr, scope: _Scope) -> Iterator[Change]:
    """`x` -> `str(x)`, `list(x)`, `int(x)`, `float(x)` when a failing test ended in a
    TypeError: a value of the wrong type (a path where a string is needed, a view where a list
    is): str 37 fix commits in 21 projects of the mined pool, list 20 in 17, int 12 in 10, float
    4 in 3. A value is read, not stored, not a called function, not one whose attribute is
    taken, and not already converted."""
    parent = scope.parents.get(node)
    if isinstance(getattr(node, "ctx", None), ast.Store | ast.Del):
        return
    if isinstance(parent, ast.Call) and (
        parent.func is node or _called_name(parent) in CONVERSIONS
    ):
        return
    if isinstance(node, ast.Call) and _called_name(node) in CONVERSIONS:
        return
    if isinstance(parent, ast.Attribute) and not isinstance(node, ast.Call):
        return  # `str(path).parent`: an attribute of the converted value is no fix
    start, end = scope.text.span(node)
    for conversion in CONVERSIONS:
        yield "converted-value", start, end, f"{conversion}({scope.text.of(node)})"


def _called_name(call: ast.Call) -> str:
    return call.func.id if isinstance(call.func, ast.Name) else ""


def _chain_root(node: ast.expr) -> str:
    """`a` of `a.b.c`; "" when the chain starts at a call or a subscript."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _other_return(value: ast.expr, scope: _Scope) -> Iterator[Change]:
    """Another in-scope name returned."""
    start, end = scope.text.span(value)
    current = scope.text.of(value)
    for name in scope.local_names:
        if name != current:
            yield "other-returned-name", start, end, name


def _emptied_list(node: ast.AST, scope: _Scope) -> Iterator[Change]:
    """`[x]` -> `[x] if x else []`: a one-element list that should be empty when its element
    is (an empty chunk, a missing name), the condition the element itself or a name it reads
    (`[get(op)] if op else []`). A list that is stored to, or has a starred element, is no
    value to guard."""
    if not isinstance(node, ast.List) or not isinstance(node.ctx, ast.Load):
        return
    if len(node.elts) != 1 or isinstance(node.elts[0], ast.Starred):
        return
    element = node.elts[0]
    text = scope.text
    called = {id(n.func) for n in ast.walk(element) if isinstance(n, ast.Call)}
    names = [
        n.id
        for n in ast.walk(element)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called
        and n.id in scope.local_names
    ]  # fmt: skip
    start, end = text.span(node)
    parent = scope.parents.get(node)
    bare = isinstance(parent, _WHOLE_VALUE) and getattr(parent, "func", None) is not node
    for condition in dict.fromkeys([text.of(element), *names]):
        guarded = f"{text.of(node)} if {condition} else []"
        yield "empty-guarded-list", start, end, guarded if bare else f"({guarded})"


# where a conditional expression needs no parentheses: a whole value, not an operand
_WHOLE_VALUE = (ast.Assign, ast.AnnAssign, ast.Return, ast.keyword, ast.Call, ast.Dict, ast.Expr)


_BY_KIND = {
    ast.BinOp: _binop_changes,
    ast.Compare: _compare_changes,
    ast.BoolOp: _boolop_changes,
    ast.AugAssign: _augassign_changes,
    ast.Constant: _constant_changes,
    ast.UnaryOp: _unary_changes,
    ast.Name: _name_changes,
    ast.Call: _call_changes,
    ast.Subscript: _subscript_changes,
    ast.Assign: _unpacking_changes,
    ast.List: _emptied_list,
}


def _function_literals(nodes: Sequence[ast.AST], text: _Text) -> list[tuple[type, str]]:
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


def _data_attribute(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """An attribute read for its value (`node.successor`), not a method called (`.append(`)."""
    if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
        return False
    parent = parents.get(node)
    return not (isinstance(parent, ast.Call) and parent.func is node)


def _moved_bound(node: ast.expr, text: _Text) -> Iterator[Change]:
    start, end = text.span(node)
    value = text.of(node)
    wrapped = _wrap(value, node)
    for sign in ("+", "-"):
        yield "shifted-bound", start, end, f"{wrapped} {sign} 1"


def _degenerate(tree: ast.AST) -> int:
    """Constructs no one writes on purpose: a constant loop or branch condition, an operand
    compared with or subtracted from itself, the same argument twice, a type check of
    arithmetic, a function whose every return gives the same constant (it no longer depends
    on its path: the "functionality deletion" that most plausible-but-wrong patches of
    generate-and-validate repair were, Qi et al. 2015), a statement after a return, raise,
    break or continue of its block (deleted in effect). An edit that adds one passes weak tests
    by luck (the anti-patterns of search-based repair), so it is not tried."""
    count = 0
    for node in ast.walk(tree):
        for body in _bodies(node):
            ends = [i for i, s in enumerate(body) if isinstance(s, _TERMINAL)]
            count += len(body) - ends[0] - 1 if ends else 0  # the statements never reached
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            count += _constant_function(node)
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            test = node.test.operand if isinstance(node.test, ast.UnaryOp) else node.test
            count += isinstance(test, ast.Constant)
        elif isinstance(node, ast.Compare):
            operands = [ast.dump(o) for o in [node.left, *node.comparators]]
            count += len(set(operands)) < len(operands)
        elif isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Add | ast.Mult):
            count += ast.dump(node.left) == ast.dump(node.right)
        elif isinstance(node, ast.Call):
            arguments = [ast.dump(a) for a in node.args]
            count += len(set(arguments)) < len(arguments)
            # a type asked of arithmetic (`isinstance(x + 1, int)`): it "passes" by raising
            type_check = isinstance(node.func, ast.Name) and node.func.id in _TYPE_CHECKS
            count += type_check and bool(node.args) and isinstance(node.args[0], ast.BinOp)
    return count


_TERMINAL = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists a node holds (a body, an else, a finally, a handler's body)."""
    return [
        value
        for field in ("body", "orelse", "finalbody")
        if isinstance(value := getattr(node, field, None), list)
        and value
        and isinstance(value[0], ast.stmt)
    ]


def degenerate_count(tree: ast.AST) -> int:
    """How many degenerate constructs `tree` holds (see `_degenerate`): an edit or a model's
    answer that adds one is refused."""
    return _degenerate(tree)


def _constant_function(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Two or more returns of its own, every one the same constant (`return True` twice)."""
    returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)]
    values = {ast.dump(r.value) if r.value else "None" for r in returns}
    constant = all(r.value is None or isinstance(r.value, ast.Constant) for r in returns)
    return len(returns) >= 2 and len(values) == 1 and constant


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, without those of the functions and classes in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def generate_edits(
    code: str,
    first_line: int,
    line_ranks: Mapping[int, int],
    limit: int = 300,
    expected: Expected = NOTHING_EXPECTED,
    classes: Collection[str] | None = None,
    class_name: str = "",
) -> list[Edit]:
    """Edits of the function text `code` (column 0; its line 1 is file line `first_line`) at the
    file lines of `line_ranks` (line -> rank, 0 most suspicious), lower rank first, then
    smaller edits first; at most `limit`, each distinct, each parsing. Pairs of the first
    single edits (pairs.py) take the last part of the budget. `expected`: what the
    failing tests expect (engine/evidence.py). `classes`: only these edit classes (registry.py).
    `class_name`: the class of a method ("" for a plain function)."""
    tree = ast.parse(code)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    text = _Text(code)
    local_names = _local_names(function)
    offset = first_line - 1
    wanted = {line - offset: rank for line, rank in line_ranks.items()}
    body_nodes = [n for stmt in function.body for n in ast.walk(stmt)]
    parents = {child: parent for parent in body_nodes for child in ast.iter_child_nodes(parent)}
    attributes = list(
        dict.fromkeys(
            n.attr
            for n in body_nodes
            if isinstance(n, ast.Attribute) and _data_attribute(n, parents)
        )
    )
    sibling_args: dict[str, dict[int, list[str]]] = {}  # function name -> position -> texts
    for node in body_nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for index, arg in enumerate(node.args):
                texts = sibling_args.setdefault(node.func.id, {}).setdefault(index, [])
                if text.of(arg) not in texts:
                    texts.append(text.of(arg))
    literals = _function_literals(body_nodes, text)
    scope = _Scope(
        text, local_names, attributes, parents, sibling_args, literals, _parameters(function),
        expected.failed_with, _own_class(function, class_name),
    )  # fmt: skip
    raw: list[tuple[int, int, str, int, int, str, int]] = []  # rank, size, class, span, text, #

    making = (
        None
        if classes is None
        else {
            *classes,
            *(pairs.PAIRED_CLASSES if "pair" in classes else ()),
            *(everywhere.SPREAD_CLASSES if "same-edit-everywhere" in classes else ()),
        }
    )

    def add(rank: int, edit_class: str, start: int, end: int, replacement: str) -> None:
        if making is None or edit_class in making:
            raw.append((rank, size_of(edit_class), edit_class, start, end, replacement, len(raw)))

    for node in body_nodes:
        lineno = getattr(node, "lineno", None)
        if lineno not in wanted:
            continue
        if isinstance(node, ast.stmt | ast.expr) and not isinstance(node, ast.FunctionDef):
            for edit_class, start, end, replacement in _changes(node, scope):
                add(wanted[lineno], edit_class, start, end, replacement)
    lines = set(wanted)
    statement_edits = (
        raising.raised_instead(function, text, lines, expected.raises),
        statements.deletions(function, text, lines),
        statements.swaps(function, text, lines),
        statements.missing_returns(function, text, lines, local_names),
    )
    for made in statement_edits:
        for lineno, edit_class, start, end, replacement in made:
            add(wanted[lineno], edit_class, start, end, replacement)
    raw.sort(key=lambda r: (r[0], r[1], r[6]))
    edits: list[Edit] = []
    seen = {ast.dump(tree)}
    degenerate = _degenerate(tree)

    def is_new(new_code: str) -> bool:
        """Parses, is no program already made, and is no more degenerate than the original."""
        new_tree = _parsed(new_code)
        if new_tree is None:
            return False
        key = ast.dump(new_tree)
        if key in seen or _degenerate(new_tree) > degenerate:
            return False
        seen.add(key)
        return True

    singles = limit - pairs.budget(limit)
    for rank, size, edit_class, start, end, replacement, _order in raw:
        if len(edits) >= singles:
            break
        new_code = text.replace(start, end, replacement)
        if not is_new(new_code):
            continue
        line = offset + code.count("\n", 0, start) + 1
        before = text.code[start:end]
        edits.append(Edit(line, rank, size, edit_class, before, replacement, new_code, start, end))
    singles_made = list(edits)
    if classes is None or "same-edit-everywhere" in classes:
        body = text.offset(function.body[0].lineno, 0)  # the header's parameters stay
        spread = everywhere.everywhere_edits(singles_made, code, body, everywhere.budget(limit))
        edits.extend(e for e in spread if is_new(e.code))
    if classes is None or "pair" in classes:
        edits.extend(pair for pair in pairs.pair_edits(singles_made, code, limit - len(edits))
                     if is_new(pair.code))  # fmt: skip
    return edits if classes is None else [e for e in edits if e.edit_class in classes]


def _own_class(
    function: ast.FunctionDef | ast.AsyncFunctionDef, class_name: str
) -> tuple[str, str]:
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


def _parsed(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None
