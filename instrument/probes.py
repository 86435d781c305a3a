"""Automatic probes: insert side-channel calls into one function, so that strip() can undo them.

Every change is either a whole inserted line (indented like its neighbours, ending with MARKER)
or an in-line wrap of a `return` value, `return X` -> `return H.ret(id, line, ( X), "H")`, which
evaluates X exactly once and gives the same value back. The inserted code only refers to the
standalone helper module (see helper.py); the function's own code is never touched otherwise.

Levels (each includes the previous):
    entry-return  arguments on entry, every return value, an exception leaving the function
    blocks        + each loop iteration (loop variables) and each branch taken
    lines         + local names after each assignment (walrus and `with ... as` included)

Probes go only where a line can be inserted: a body written on its header line
(`if x: y = 1`) gets no line probes, but its returns are still wrapped.

Functions defined inside the target (a recursive `binsearch` helper, a key function) get the
same probes, one pass each after the target's, so each pass sees the lines the one before it
inserted as ordinary statements of the enclosing body.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import tree_sitter

from .errors import AlreadyInstrumented, FunctionNotFound, InstrumentError
from .helper import HELPER, HELPER_BYTES, INLINE_REF, LOCAL_REF, MARKER, RET_END
from .locate import FunctionLocation, find_function, function_definitions
from .source import ParsedSource, parse

Level = Literal["entry-return", "blocks", "lines"]
LEVELS: tuple[Level, ...] = ("entry-return", "blocks", "lines")

_SCOPES = frozenset({"function_definition", "class_definition", "decorated_definition", "lambda"})
_NOISE = frozenset({"comment", "line_continuation"})
_WS = b" \t\f"
_MAX_NAMES = 12


@dataclass
class _Edit:
    offset: int  # in the parsed (UTF-8) text
    text: str  # ASCII only
    order: int


@dataclass
class _Insertion:
    """Where and how a whole line can go: offset of a line start, its indent and newline."""

    offset: int
    indent: bytes
    newline: bytes
    at_eof: bool = False  # the file ends without a newline right there


@dataclass
class _Plan:
    parsed: ParsedSource
    func: tree_sitter.Node
    level: int  # index into LEVELS
    ref: str = INLINE_REF
    locals: set[str] = field(default_factory=set)
    edits: list[_Edit] = field(default_factory=list)
    next_id: int = 0
    # in an async generator `return value` is a syntax error: its returns stay as they are
    async_generator: bool = False
    # 0-based row -> lines inserted above it by an earlier pass (nested functions): the probes
    # must name the line of the user's file, not of the instrumented text
    inserted_above: list[int] = field(default_factory=list)

    def line(self, row: int) -> int:
        """The 1-based line of the original file for a 0-based row of the parsed text."""
        shift = self.inserted_above[row] if row < len(self.inserted_above) else 0
        return row + 1 - shift

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def add(self, offset: int, text: str) -> None:
        self.edits.append(_Edit(offset, text, len(self.edits)))

    def add_line(self, where: _Insertion, code: str) -> None:
        indent = where.indent.decode("ascii")  # whitespace only, checked by the caller
        newline = where.newline.decode("ascii")
        line = indent + code + MARKER.decode("ascii")
        self.add(where.offset, newline + line if where.at_eof else line + newline)

    def hit(
        self,
        where: _Insertion | None,
        node: tree_sitter.Node,
        kind: str,
        names: Iterable[str],
        label: str = "",
    ) -> None:
        if where is None:
            return
        args = f'{self.new_id()}, {self.line(node.start_point.row)}, "{kind}", {_tuple(names)}'
        if label:
            args += f', "{label}"'
        self.add_line(where, f"{self.ref}.hit({args})")


def instrument_function(
    source: bytes, target: str | FunctionLocation, level: str = "blocks", *, nested: bool = True
) -> bytes:
    """`source` with probes in one function (`target`: qualified name or a location) and, when
    `nested`, in the functions defined inside it."""
    if level not in LEVELS:
        raise InstrumentError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if HELPER_BYTES in source:
        raise AlreadyInstrumented("the source already contains selfdebug probes; strip it first")
    parsed = parse(source)
    parsed.raise_if_error()
    func = _resolve(parsed, target)
    # Inserted lines add no definitions, so an index into the file's definitions (source order:
    # a parent before the functions inside it) names the same def after each pass.
    order = [d.node for d in function_definitions(parsed)]
    inner = [i for i, node in enumerate(order) if nested and _inside(node, func)]
    result, next_id = _instrument_one(parsed, func, LEVELS.index(level), 0)
    for index in inner:
        parsed = parse(result)
        node = function_definitions(parsed)[index].node
        result, next_id = _instrument_one(parsed, node, LEVELS.index(level), next_id)
    return result


def _instrument_one(
    parsed: ParsedSource, func: tree_sitter.Node, level: int, first_id: int
) -> tuple[bytes, int]:
    plan = _Plan(parsed, func, level, next_id=first_id, inserted_above=_inserted_above(parsed))
    plan.locals = _function_locals(parsed, func)
    _plan_function(plan)
    return apply_edits(parsed, plan.edits), plan.next_id


def _inserted_above(parsed: ParsedSource) -> list[int]:
    """Per row, how many whole probe lines (ending with MARKER) come before it."""
    counts, above = [], 0
    for text in parsed.utf8.split(b"\n"):
        counts.append(above)
        if text.rstrip(b"\r").endswith(MARKER):
            above += 1
    return counts


def _inside(node: tree_sitter.Node, outer: tree_sitter.Node) -> bool:
    return node != outer and outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _resolve(parsed: ParsedSource, target: str | FunctionLocation) -> tree_sitter.Node:
    if isinstance(target, str):
        return find_function(parsed, target).node
    for definition in function_definitions(parsed):
        if parsed.to_data(definition.node.start_byte) == target.def_start_byte:
            return definition.node
    raise FunctionNotFound(target.qualname)


def apply_edits(parsed: ParsedSource, edits: list[_Edit]) -> bytes:
    """Splice ASCII insertions into the file's bytes (offsets are mapped from the parsed text)."""
    data = parsed.data
    pieces: list[bytes] = []
    last = 0
    for edit in sorted(edits, key=lambda e: (e.offset, e.order)):
        offset = parsed.to_data(edit.offset)
        pieces.append(data[last:offset])
        pieces.append(edit.text.encode("ascii"))
        last = offset
    pieces.append(data[last:])
    return b"".join(pieces)


# --- where lines can go ------------------------------------------------------------------------


def _line_start(text: bytes, offset: int) -> int:
    return text.rfind(b"\n", 0, offset) + 1


def _newline_before(text: bytes, line_start: int) -> bytes:
    return b"\r\n" if text[line_start - 2 : line_start] == b"\r\n" else b"\n"


def file_newline(text: bytes) -> bytes:
    end = text.find(b"\n")
    return b"\r\n" if end > 0 and text[end - 1 : end] == b"\r" else b"\n"


def insertion_before(parsed: ParsedSource, node: tree_sitter.Node) -> _Insertion | None:
    """A new line just above `node`, if `node` starts its own physical and logical line."""
    text = parsed.utf8
    start = _line_start(text, node.start_byte)
    if start == 0 and text.startswith(codecs.BOM_UTF8):
        start = len(codecs.BOM_UTF8)
    indent = text[start : node.start_byte]
    if indent.strip(_WS) or not indent.isascii():
        return None
    if start <= len(codecs.BOM_UTF8) and not text[:start].strip(codecs.BOM_UTF8):
        return _Insertion(start, indent, file_newline(text))  # the first line of the file
    previous = text[_line_start(text, start - 1) : start].rstrip(b"\r\n")
    if previous.endswith(b"\\"):  # a continuation: this is not the start of a logical line
        return None
    return _Insertion(start, indent, _newline_before(text, start))


def insertion_after(
    parsed: ParsedSource, node: tree_sitter.Node, indent_node: tree_sitter.Node
) -> _Insertion | None:
    """A new line after the logical line ending with `node`, indented like `indent_node`."""
    head = insertion_before(parsed, indent_node)
    if head is None:
        return None
    text = parsed.utf8
    end = text.find(b"\n", node.end_byte)
    rest = text[node.end_byte : len(text) if end < 0 else end].rstrip(b"\r")
    tail = rest.strip(_WS + b";")
    if tail and not tail.startswith(b"#"):
        return None  # another statement follows on this line
    if not tail and rest.rstrip(_WS).endswith(b"\\"):
        return None
    if end < 0:
        return _Insertion(len(text), head.indent, file_newline(text), at_eof=True)
    return _Insertion(end + 1, head.indent, _newline_before(text, end + 1))


def _statements(block: tree_sitter.Node | None) -> list[tree_sitter.Node]:
    if block is None:
        return []
    return [child for child in block.named_children if child.type not in _NOISE]


def block_head(parsed: ParsedSource, block: tree_sitter.Node | None) -> _Insertion | None:
    statements = _statements(block)
    return insertion_before(parsed, statements[0]) if statements else None


def _docstring(statements: list[tree_sitter.Node]) -> tree_sitter.Node | None:
    if statements and statements[0].type == "expression_statement":
        inner = statements[0].named_children
        if len(inner) == 1 and inner[0].type in ("string", "concatenated_string"):
            return statements[0]
    return None


def entry_insertion(parsed: ParsedSource, func: tree_sitter.Node) -> _Insertion | None:
    """Where the function's first inserted line goes: after the docstring, else first in body."""
    statements = _statements(func.child_by_field_name("body"))
    if not statements:
        return None
    docstring = _docstring(statements)
    if docstring is None:
        return insertion_before(parsed, statements[0])
    return insertion_after(parsed, docstring, docstring)


# --- names ---------------------------------------------------------------------------------------


def _name(node: tree_sitter.Node) -> str:
    return unicodedata.normalize("NFKC", (node.text or b"").decode("utf-8", "replace"))


def target_names(node: tree_sitter.Node | None) -> list[str]:
    """Local names bound by an assignment target (attributes and subscripts bind none)."""
    if node is None:
        return []
    if node.type == "identifier":
        return [_name(node)]
    if node.type in (
        "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list",
        "parenthesized_expression", "list_splat_pattern", "list_splat", "as_pattern_target",
    ):  # fmt: skip
        return [name for child in node.named_children for name in target_names(child)]
    return []


def _walk_scope(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Descendants of `node` that belong to the same scope (nested defs/classes/lambdas skipped)."""
    stack = list(reversed(node.children))
    while stack:
        current = stack.pop()
        yield current
        if current.type not in _SCOPES:
            stack.extend(reversed(current.children))


def _walrus_names(node: tree_sitter.Node) -> list[str]:
    if node.type == "named_expression":
        return target_names(node.child_by_field_name("name"))
    return [
        name
        for inner in _walk_scope(node)
        if inner.type == "named_expression"
        for name in target_names(inner.child_by_field_name("name"))
    ]


def _assigned_names(statement: tree_sitter.Node) -> list[str]:
    names: list[str] = []
    for inner in statement.named_children:
        current: tree_sitter.Node | None = inner
        while current is not None and current.type in ("assignment", "augmented_assignment"):
            if current.type == "augmented_assignment" or current.child_by_field_name("right"):
                names += target_names(current.child_by_field_name("left"))
            current = current.child_by_field_name("right")
    return names + _walrus_names(statement)


def _function_locals(parsed: ParsedSource, func: tree_sitter.Node) -> set[str]:
    names = set(_parameter_names(func))
    body = func.child_by_field_name("body")
    for node in _walk_scope(body) if body else ():
        if node.type in ("assignment", "augmented_assignment", "for_statement", "for_in_clause"):
            names.update(target_names(node.child_by_field_name("left")))
        elif node.type == "named_expression":
            names.update(target_names(node.child_by_field_name("name")))
        elif node.type == "as_pattern_target":
            names.update(target_names(node))
        elif node.type in ("global_statement", "nonlocal_statement"):
            names.update(_name(c) for c in node.named_children if c.type == "identifier")
    return names


def _parameter_names(func: tree_sitter.Node) -> list[str]:
    names: list[str] = []
    parameters = func.child_by_field_name("parameters")
    for parameter in parameters.named_children if parameters else ():
        if parameter.type == "identifier":
            names.append(_name(parameter))
        elif parameter.type in (
            "typed_parameter",
            "list_splat_pattern",
            "dictionary_splat_pattern",
        ):
            names += [_name(c) for c in parameter.named_children if c.type == "identifier"][:1]
        elif parameter.type in ("default_parameter", "typed_default_parameter"):
            names += target_names(parameter.child_by_field_name("name"))
    return names


def _used_locals(plan: _Plan, nodes: Iterable[tree_sitter.Node | None]) -> list[str]:
    """Local names read by an expression (for branch and while probes), in order of appearance."""
    seen: list[str] = []
    for node in nodes:
        if node is None:
            continue
        candidates = [node] if node.type == "identifier" else _walk_scope(node)
        for inner in candidates:
            if inner.type != "identifier" or inner.parent is None:
                continue
            parent = inner.parent
            if parent.type == "attribute" and parent.child_by_field_name("attribute") == inner:
                continue
            if parent.type == "keyword_argument" and parent.child_by_field_name("name") == inner:
                continue
            name = _name(inner)
            if name in plan.locals and name not in seen:
                seen.append(name)
    return seen


def _tuple(names: Iterable[str]) -> str:
    unique = list(dict.fromkeys(names))[:_MAX_NAMES]
    inner = ", ".join(ascii(name).replace("'", '"') for name in unique)
    return f"({inner},)" if len(unique) == 1 else f"({inner})"


# --- the walk -----------------------------------------------------------------------------------


def _is_async_generator(func: tree_sitter.Node) -> bool:
    if func.children[0].type != "async":
        return False
    body = func.child_by_field_name("body")
    return body is not None and any(n.type == "yield" for n in _walk_scope(body))


def _plan_function(plan: _Plan) -> None:
    parsed, func = plan.parsed, plan.func
    name = func.child_by_field_name("name")
    def_row = plan.line(func.start_point.row)
    entry = entry_insertion(parsed, func)
    if entry is not None:
        plan.ref = LOCAL_REF
        names = _tuple(_parameter_names(func))
        plan.add_line(
            entry, f'import {HELPER}; {HELPER}.hit({plan.new_id()}, {def_row}, "entry", {names})'
        )
    decorator_line = insertion_before(parsed, func)
    if decorator_line is not None and name is not None:
        plan.add_line(decorator_line, f"@{INLINE_REF}.watch({plan.new_id()}, {def_row})")
    plan.async_generator = _is_async_generator(func)
    body = func.child_by_field_name("body")
    _plan_block(plan, body)
    statements = _statements(body)
    if statements and statements[-1].type not in ("return_statement", "raise_statement"):
        # falling off the end returns None: say so, after the last statement of the body
        where = insertion_after(parsed, statements[-1], statements[0])
        if where is not None:
            line = plan.line(statements[-1].end_point.row)
            plan.add_line(where, f'{plan.ref}.ret({plan.new_id()}, {line}, None, "{HELPER}")')


def _plan_block(plan: _Plan, block: tree_sitter.Node | None) -> None:
    statements = _statements(block)
    group_start: tree_sitter.Node | None = None
    pending: list[str] = []
    for statement in statements:  # statements joined by `;` share one probe after their line
        group_start = group_start or statement
        _plan_statement(plan, statement)
        if plan.level >= 2 and statement.type == "expression_statement":
            pending += _assigned_names(statement)
        if statement.type in _SIMPLE and not _ends_logical_line(plan.parsed, statement):
            continue
        if pending:
            where = insertion_after(plan.parsed, statement, group_start)
            plan.hit(where, group_start, "assign", pending)
        pending = []
        group_start = None


_SIMPLE = frozenset(
    {
        "expression_statement", "return_statement", "delete_statement", "raise_statement",
        "pass_statement", "break_statement", "continue_statement", "global_statement",
        "nonlocal_statement", "import_statement", "import_from_statement", "assert_statement",
        "print_statement", "exec_statement", "type_alias_statement", "future_import_statement",
    }
)  # fmt: skip


def _ends_logical_line(parsed: ParsedSource, statement: tree_sitter.Node) -> bool:
    text = parsed.utf8
    end = text.find(b"\n", statement.end_byte)
    rest = text[statement.end_byte : len(text) if end < 0 else end].strip(_WS + b"\r;")
    return not rest or rest.startswith(b"#") or rest == b"\\"


def _plan_statement(plan: _Plan, statement: tree_sitter.Node) -> None:
    kind = statement.type
    if kind in _SCOPES:
        return
    if kind == "return_statement":
        _plan_return(plan, statement)
    elif kind == "if_statement":
        _plan_if(plan, statement)
    elif kind in ("for_statement", "while_statement"):
        _plan_loop(plan, statement)
    elif kind == "try_statement":
        _plan_try(plan, statement)
    elif kind == "with_statement":
        body = statement.child_by_field_name("body")
        if plan.level >= 2:
            plan.hit(block_head(plan.parsed, body), statement, "assign", _with_targets(statement))
        _plan_block(plan, body)
    elif kind == "match_statement":
        _plan_match(plan, statement)


def _with_targets(statement: tree_sitter.Node) -> list[str]:
    names: list[str] = []
    for node in _walk_scope(statement):
        grandparent = node.parent.parent if node.parent else None
        if node.type == "as_pattern_target" and grandparent and grandparent.type == "with_item":
            names += target_names(node)
    return names


def _plan_match(plan: _Plan, statement: tree_sitter.Node) -> None:
    subject = _used_locals(plan, statement.children_by_field_name("subject"))
    body = statement.child_by_field_name("body")
    for case in body.named_children if body else ():
        if case.type != "case_clause":
            continue
        consequence = case.child_by_field_name("consequence")
        if plan.level >= 1:
            names = subject + [_name(n) for n in _walk_scope(case) if _is_capture(n)]
            plan.hit(block_head(plan.parsed, consequence), case, "branch", names, "case")
        _plan_block(plan, consequence)


def _is_capture(node: tree_sitter.Node) -> bool:
    """An identifier a case pattern binds: `case x`, `case [x, *rest]`, `case P() as x`."""
    parent = node.parent
    if node.type != "identifier" or parent is None:
        return False
    if parent.type == "dotted_name":  # a lone name is a capture; `Color.RED` is a value
        grandparent = parent.parent
        return (
            len(parent.named_children) == 1
            and grandparent is not None
            and grandparent.type == "case_pattern"
        )
    return parent.type in ("splat_pattern", "as_pattern") and parent.named_children[-1] == node


def _plan_return(plan: _Plan, statement: tree_sitter.Node) -> None:
    if plan.async_generator:
        return
    keyword = statement.children[0]
    values = [c for c in statement.named_children if c.type not in _NOISE]
    probe = f"{plan.new_id()}, {plan.line(statement.start_point.row)}"
    if not values:
        plan.add(keyword.end_byte, f' {plan.ref}.ret({probe}, None, "{HELPER}")')
        return
    plan.add(keyword.end_byte, f" {plan.ref}.ret({probe}, (")
    plan.add(values[-1].end_byte, RET_END)


def _plan_if(plan: _Plan, statement: tree_sitter.Node) -> None:
    conditions = [statement.child_by_field_name("condition")]
    clauses = [("if", statement, statement.child_by_field_name("consequence"))]
    for alternative in statement.children_by_field_name("alternative"):
        if alternative.type == "elif_clause":
            conditions.append(alternative.child_by_field_name("condition"))
            clauses.append(("elif", alternative, alternative.child_by_field_name("consequence")))
        else:
            clauses.append(("else", alternative, alternative.child_by_field_name("body")))
    for index, (label, clause, block) in enumerate(clauses):
        if plan.level >= 1:
            condition = conditions[index] if label != "else" else None
            names = _used_locals(plan, [condition] if condition else conditions)
            if condition is not None:  # walrus names bound by this condition
                names += _walrus_names(condition)
            plan.hit(block_head(plan.parsed, block), clause, "branch", names, label)
        _plan_block(plan, block)


def _plan_loop(plan: _Plan, statement: tree_sitter.Node) -> None:
    body = statement.child_by_field_name("body")
    if plan.level >= 1:
        if statement.type == "for_statement":
            names = target_names(statement.child_by_field_name("left"))
        else:
            condition = statement.child_by_field_name("condition")
            names = _used_locals(plan, [condition]) + (
                _walrus_names(condition) if condition else []
            )
        plan.hit(block_head(plan.parsed, body), statement, "loop", names)
    _plan_block(plan, body)
    alternative = statement.child_by_field_name("alternative")
    if alternative is not None:
        _plan_else(plan, alternative, "loop-else")


def _plan_else(plan: _Plan, clause: tree_sitter.Node, label: str) -> None:
    body = clause.child_by_field_name("body") or next(
        (c for c in clause.named_children if c.type == "block"), None
    )
    if plan.level >= 1:
        plan.hit(block_head(plan.parsed, body), clause, "branch", (), label)
    _plan_block(plan, body)


def _plan_try(plan: _Plan, statement: tree_sitter.Node) -> None:
    _plan_block(plan, statement.child_by_field_name("body"))
    for clause in statement.named_children:
        block = next((c for c in clause.named_children if c.type == "block"), None)
        if clause.type in ("except_clause", "except_group_clause"):
            if plan.level >= 1:
                alias = [
                    name
                    for node in clause.named_children
                    if node.type == "as_pattern"
                    for name in target_names(node.child_by_field_name("alias"))
                ]
                plan.hit(block_head(plan.parsed, block), clause, "branch", alias, "except")
            _plan_block(plan, block)
        elif clause.type == "else_clause":
            _plan_else(plan, clause, "try-else")
        elif clause.type == "finally_clause":
            _plan_block(plan, block)
