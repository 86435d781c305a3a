"""Model-chosen probes (print debugging): accept a model's function only if it merely adds prints.

The model gets the function and answers with a copy that has `print(...)` lines added. We check
that removing whole-line `print(...)` statements (and blank lines outside strings) from the
model's version gives back the original, line for line, ignoring only trailing whitespace and
line-ending style. Where the lines differ, the versions are compared by syntax tree instead, with
docstrings, comments and formatting ignored: a model that drops the docstring or adds a comment
still gave a usable version (each print is then logged at the original statement it follows).
On success each ADDED print becomes a side-channel call (`print(a)` ->
`_selfdebug_probe_rt_v1.print_(7, 12, a)`), so the program's stdout is unchanged and the printed
text lands in the probe log as a record of kind "print".
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter

from .helper import HELPER, INLINE_REF, LOCAL_REF, MARKER
from .probes import _Edit, apply_edits, entry_insertion
from .source import ParsedSource, parse
from .strip import contains_probes

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass
class PrintValidation:
    ok: bool
    reason: str = ""  # why it was rejected (names the first differing line)
    instrumented: str = ""  # the model's function with its added prints sent to the side channel
    added: int = 0  # how many print statements the model added
    added_lines: list[int] = field(default_factory=list)  # 1-based lines in the model's source


@dataclass
class _PrintUnit:
    first_row: int
    last_row: int
    call: tree_sitter.Node


def _lines(text: str) -> list[str]:
    return _LINES.findall(text)


def _key(line: str) -> str:
    return line.rstrip()


def _drop_trailing_blank(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def validate_model_prints(
    original_function_src: str, model_function_src: str, *, first_line: int = 1
) -> PrintValidation:
    """Check the model only added prints; `first_line`: file line of the original's first line."""
    if contains_probes(model_function_src):
        return PrintValidation(False, "the model's code contains selfdebug probe calls")
    parsed = parse(model_function_src.encode("utf-8"))
    bad = parsed.first_error()
    if bad is not None:
        return PrintValidation(
            False, f"the model's code does not parse (line {bad.start_point.row + 1})"
        )
    units = _print_units(parsed)
    blank_ok = _blank_rows_outside_strings(parsed)
    model = _drop_trailing_blank(_lines(model_function_src))
    original = _drop_trailing_blank(_lines(original_function_src))
    path, stuck = _align(model, original, units, blank_ok)
    if path is None:
        path = _align_by_syntax(model_function_src, original_function_src, units)
    if path is None:
        i, j = stuck
        got = model[i].rstrip() if i < len(model) else "<end of the model's code>"
        want = original[j].rstrip() if j < len(original) else "<end of the original>"
        return PrintValidation(
            False,
            f"model line {i + 1} is not an added print and differs from original line {j + 1}: "
            f"{got.strip()!r} vs {want.strip()!r}",
        )
    added = [(units[row], j) for row, j in path]
    return PrintValidation(
        True,
        instrumented=_instrument(parsed, added, first_line),
        added=len(added),
        added_lines=[unit.first_row + 1 for unit, _ in added],
    )


def _print_units(parsed: ParsedSource) -> dict[int, _PrintUnit]:
    """Whole-line `print(...)` statements of the model's code, by first row."""
    units: dict[int, _PrintUnit] = {}
    stack = [parsed.root]
    text = parsed.utf8
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "expression_statement" or len(node.named_children) != 1:
            continue
        call = node.named_children[0]
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if call.type != "call" or function is None or function.type != "identifier":
            continue
        if function.text != b"print" or arguments is None or arguments.type != "argument_list":
            continue
        if text[function.end_byte : arguments.start_byte].strip(b" \t"):
            continue
        line_start = text.rfind(b"\n", 0, node.start_byte) + 1
        line_end = text.find(b"\n", node.end_byte)
        rest = text[node.end_byte : len(text) if line_end < 0 else line_end].strip()
        if text[line_start : node.start_byte].strip() or (rest and not rest.startswith(b"#")):
            continue  # shares its line with other code
        units[node.start_point.row] = _PrintUnit(node.start_point.row, node.end_point.row, call)
    return units


def _blank_rows_outside_strings(parsed: ParsedSource) -> set[int]:
    inside: set[int] = set()
    stack = [parsed.root]
    while stack:
        node = stack.pop()
        if node.start_point.row == node.end_point.row:
            continue
        if node.type == "string":
            inside.update(range(node.start_point.row + 1, node.end_point.row + 1))
            continue
        stack.extend(node.children)
    rows = parsed.utf8.split(b"\n")
    return {row for row, line in enumerate(rows) if not line.strip() and row not in inside}


def _align(
    model: list[str], original: list[str], units: dict[int, _PrintUnit], blank_ok: set[int]
) -> tuple[list[tuple[int, int]] | None, tuple[int, int]]:
    """Match model lines to original lines, skipping added prints and blank lines.

    Returns the added print units as (model row, index of the next original line) and, on
    failure, the furthest (model row, original row) reached, the first real difference.
    """
    start = (0, 0)
    came_from: dict[tuple[int, int], tuple[tuple[int, int], bool]] = {start: (start, False)}
    stack = [start]
    furthest = start
    while stack:
        state = stack.pop()
        i, j = state
        if (i, j) > furthest:
            furthest = state
        if i == len(model) and j == len(original):
            added: list[tuple[int, int]] = []
            while state != start:
                previous, was_print = came_from[state]
                if was_print:
                    added.append((previous[0], previous[1]))
                state = previous
            return list(reversed(added)), furthest
        moves: list[tuple[tuple[int, int], bool]] = []
        if i < len(model) and i in blank_ok:
            moves.append(((i + 1, j), False))
        unit = units.get(i)
        if unit is not None:
            moves.append(((unit.last_row + 1, j), True))
        if i < len(model) and j < len(original) and _key(model[i]) == _key(original[j]):
            moves.append(((i + 1, j + 1), False))  # pushed last: tried first
        for target, was_print in moves:
            if target not in came_from and target[0] <= len(model):
                came_from[target] = (state, was_print)
                stack.append(target)
    return None, furthest


def _align_by_syntax(
    model_src: str, original_src: str, units: dict[int, _PrintUnit]
) -> list[tuple[int, int]] | None:
    """The added prints as `_align` gives them, when the model's version without its whole-line
    prints is the original program (docstrings, comments and layout aside); None otherwise."""
    try:
        model, original = ast.parse(model_src), ast.parse(original_src)
    except SyntaxError:
        return None
    printed = {row + 1 for row in units}  # 1-based lines where a whole-line print starts
    originals = [ast.dump(s) for s in _statements(original) if _is_print(s)]
    added_prints: list[ast.stmt] = []
    for statement in _statements(model):
        if not (_is_print(statement) and statement.lineno in printed):
            continue
        if ast.dump(statement) in originals:  # the original's own print, kept
            originals.remove(ast.dump(statement))
        else:
            added_prints.append(statement)
    model_dropped = _docstrings(model) | {id(s) for s in added_prints}
    original_dropped = _docstrings(original)
    if _dump_without(model, model_dropped) != _dump_without(original, original_dropped):
        return None
    kept = [s for s in _statements(model) if id(s) not in model_dropped]
    matching = [s for s in _statements(original) if id(s) not in original_dropped]
    added: list[tuple[int, int]] = []
    for row in sorted(s.lineno - 1 for s in added_prints):
        line = row + 1
        before = [i for i, s in enumerate(kept) if s.lineno < line]
        if not before:
            added.append((row, 0))
            continue
        index = before[-1]
        statement, counterpart = kept[index], matching[index]
        inside = (statement.end_lineno or statement.lineno) >= line  # a loop or if around it
        follows = counterpart.lineno if inside else counterpart.end_lineno or counterpart.lineno
        added.append((row, follows))  # `_instrument` logs it at the original line `follows`
    return added


def _is_print(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "print"
    )


def _statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """Every statement in source order (the same order for two trees of the same shape)."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.stmt):
            yield child
            yield from _statements(child)
        elif isinstance(child, ast.excepthandler | ast.match_case):
            yield from _statements(child)


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            found.add(id(body[0]))
    return found


def _dump_without(tree: ast.AST, dropped: set[int]) -> str:
    """`ast.dump` of `tree` with the `dropped` statements left out of their blocks."""

    def fields(node: ast.AST) -> str:
        parts = []
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                items = [fields(v) if isinstance(v, ast.AST) else repr(v) for v in value
                         if not (isinstance(v, ast.stmt) and id(v) in dropped)]  # fmt: skip
                parts.append(f"{name}=[{', '.join(items)}]")
            elif isinstance(value, ast.AST):
                parts.append(f"{name}={fields(value)}")
            else:
                parts.append(f"{name}={value!r}")
        return f"{type(node).__name__}({', '.join(parts)})"

    return fields(tree)


def _instrument(parsed: ParsedSource, added: list[tuple[_PrintUnit, int]], first_line: int) -> str:
    if not added:
        return parsed.data.decode("utf-8")
    edits: list[_Edit] = []
    function = next((n for n in parsed.root.named_children if _is_function(n)), None)
    function = _definition(function) if function is not None else None
    where = entry_insertion(parsed, function) if function is not None else None
    ref = INLINE_REF
    if where is not None:
        ref = LOCAL_REF
        import_line = where.indent + f"import {HELPER}".encode() + MARKER + where.newline
        if where.at_eof:
            import_line = where.newline + import_line[: -len(where.newline)]
        edits.append(_Edit(where.offset, import_line.decode("ascii"), 0))
    for probe_id, (unit, next_original) in enumerate(added):
        call = unit.call
        function_name = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        assert function_name is not None and arguments is not None
        line = first_line + max(next_original - 1, 0)  # the original line it follows
        edits.append(_Edit(function_name.start_byte, f"{ref}.", len(edits)))
        edits.append(_Edit(function_name.end_byte, "_", len(edits)))
        edits.append(_Edit(arguments.start_byte + 1, f"{probe_id}, {line}, ", len(edits)))
    return apply_edits(parsed, edits).decode("utf-8")


def _is_function(node: tree_sitter.Node) -> bool:
    return node.type == "function_definition" or (
        node.type == "decorated_definition"
        and (node.child_by_field_name("definition") or node).type == "function_definition"
    )


def _definition(node: tree_sitter.Node) -> tree_sitter.Node:
    return (
        node.child_by_field_name("definition") or node
        if node.type != "function_definition"
        else node
    )
