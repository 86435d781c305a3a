"""Find a function in a source file: by qualified name, by cursor position, or all of them.

A `FunctionLocation` carries byte offsets in the file's own bytes (for rewriting) and LSP ranges
(UTF-16 columns, for the editor). Qualified names are dotted: `Class.method`, `outer.inner`
(`outer.<locals>.inner` is accepted too); a `path.py::` prefix is ignored.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import tree_sitter

from .definitions import Definition, definition_of, definitions
from .errors import FunctionNotFound
from .source import ParsedSource, parse, parse_text


@dataclass(frozen=True)
class LspPosition:
    line: int  # 0-based
    character: int  # UTF-16 code units, as LSP counts them


@dataclass(frozen=True)
class LspRange:
    start: LspPosition
    end: LspPosition

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FunctionLocation:
    """Where one `def` is. Byte offsets index the file's bytes; lines are 0-based."""

    qualname: str  # "Class.method", "outer.inner"
    name: str
    start_byte: int  # first decorator (or the def itself when undecorated)
    end_byte: int  # end of the last statement of the body
    def_start_byte: int  # the `def` or `async` keyword
    body_start_byte: int  # first statement of the body
    start_line: int  # row of start_byte
    def_line: int  # row of def_start_byte
    end_line: int  # exclusive: the row after the last row of the function
    is_async: bool
    is_method: bool  # defined directly in a class body
    decorator_count: int
    one_line_body: bool  # `def f(): return 1`
    lsp_range: LspRange  # whole function, decorators included
    name_lsp_range: LspRange  # just the name (for code lenses and diagnostics)

    def text(self, source: bytes) -> bytes:
        return source[self.start_byte : self.end_byte]


def function_definitions(parsed: ParsedSource) -> list[Definition]:
    """Every named function in the file, in source order (computed once per parsed source)."""
    if parsed._functions is None:
        parsed._functions = [d for d in definitions(parsed.root) if d.is_function and d.has_name]
    return parsed._functions


def _location(parsed: ParsedSource, definition: Definition) -> FunctionLocation:
    node, outer = definition.node, definition.outer
    decorators = [c for c in outer.children if c.type == "decorator"] if outer is not node else []
    body = node.child_by_field_name("body")
    name = node.child_by_field_name("name")
    assert body is not None and name is not None
    first = next((c for c in body.named_children if c.type != "comment"), body)

    def lsp(start: tree_sitter.Point, end: tree_sitter.Point) -> LspRange:
        return LspRange(
            LspPosition(start.row, parsed.utf16_column(start.row, start.column)),
            LspPosition(end.row, parsed.utf16_column(end.row, end.column)),
        )

    return FunctionLocation(
        qualname=definition.qualname,
        name=(name.text or b"").decode("utf-8", "replace"),
        start_byte=parsed.to_data(outer.start_byte),
        end_byte=parsed.to_data(node.end_byte),
        def_start_byte=parsed.to_data(node.start_byte),
        body_start_byte=parsed.to_data(first.start_byte),
        start_line=outer.start_point.row,
        def_line=node.start_point.row,
        end_line=node.end_point.row + 1,
        is_async=node.children[0].type == "async",
        is_method=definition.in_class,
        decorator_count=len(decorators),
        one_line_body=first.start_point.row == node.start_point.row,
        lsp_range=lsp(outer.start_point, node.end_point),
        name_lsp_range=lsp(name.start_point, name.end_point),
    )


def normalize_qualname(target: str) -> str:
    """`pkg/mod.py::A.f`, `A.f`, `outer.<locals>.inner` -> `A.f` / `outer.inner`."""
    if "::" in target:
        target = target.rsplit("::", 1)[1]
    return ".".join(part for part in target.strip().split(".") if part != "<locals>")


def find_function(parsed: ParsedSource, qualname: str) -> Definition:
    """The first `def` with this qualified name (the one a reader meets first)."""
    wanted = normalize_qualname(qualname)
    if parsed._by_qualname is None:  # the first of each name, as find_definition picks it
        parsed._by_qualname = {}
        for definition in function_definitions(parsed):
            parsed._by_qualname.setdefault(definition.qualname, definition)
    found = parsed._by_qualname.get(wanted)
    if found is not None:
        parsed.raise_if_error(found.node)
        return found
    parsed.raise_if_error()  # the function may be hidden in code that does not parse
    raise FunctionNotFound(
        wanted, list(dict.fromkeys(d.qualname for d in function_definitions(parsed)))
    )


def _parsed(source: bytes | str | ParsedSource) -> ParsedSource:
    """bytes: a file's own (its BOM, its PEP 263 declaration apply); str: text already decoded
    (an editor's buffer: a declaration in it no longer applies), offsets in its UTF-8 bytes; or
    a parse the caller keeps (the language server's tree per document text)."""
    if isinstance(source, ParsedSource):
        return source
    return parse_text(source) if isinstance(source, str) else parse(source)


def locate_function(source: bytes | str | ParsedSource, qualname: str) -> FunctionLocation:
    """Locate `qualname` in `source` (see `_parsed`); raises FunctionNotFound or
    SourceSyntaxError."""
    parsed = _parsed(source)
    return _location(parsed, find_function(parsed, qualname))


def locate_at(
    source: bytes | str | ParsedSource, line0: int, utf16_col: int
) -> FunctionLocation | None:
    """The innermost function whose range (decorators included) holds the LSP position."""
    parsed = _parsed(source)
    if line0 < 0 or line0 > parsed.root.end_point.row:
        return None
    column = parsed.byte_column(line0, utf16_col)
    start = parsed.row_start(line0)
    end = parsed.utf8.find(b"\n", start)
    line = parsed.utf8[start : len(parsed.utf8) if end < 0 else end]
    indent = len(line) - len(line.lstrip(b" \t\f"))
    content_end = len(line.rstrip())
    # A cursor in the indentation, or at/after the end of the line, means that line's code.
    if content_end > indent:
        column = min(max(column, indent), content_end - 1)
    point = (line0, max(column, indent))
    node: tree_sitter.Node | None = parsed.root.descendant_for_point_range(point, point)
    while node is not None:
        if node.type == "function_definition":
            break
        if node.type == "decorated_definition":
            definition = node.child_by_field_name("definition")
            if definition is not None and definition.type == "function_definition":
                node = definition
                break
        node = node.parent
    if node is None or node.child_by_field_name("body") is None:
        return None
    return _location(parsed, definition_of(node))


def list_functions(source: bytes) -> list[FunctionLocation]:
    """Every function in the file, in source order (nested ones included)."""
    parsed = parse(source)
    return [
        _location(parsed, definition)
        for definition in function_definitions(parsed)
        if definition.node.child_by_field_name("body")
    ]
