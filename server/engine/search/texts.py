"""Edits that a failing string comparison points at: the text the output lacks, given where a
value renders empty; a wrapping the output shows twice; a line copied from another block that
kept its name and number.

A test that got `[default: ]` where it wanted `[default: ""]` says what is missing and where:
the value rendered between the two agreeing parts came out empty (click's
`Option.get_help_record` showed an empty default as nothing). A test that got `[[a|b]]` where
it wanted `[a|b]` says a wrapping was added to a value that had it already (click's
`Argument.make_metavar` bracketed a `Choice` metavar that brings its own brackets). A test
that got `ESC[23m` where it wanted `ESC[3m`, from a line under `if italic is not None:` that
reads `underline` (the condition of the block it was copied from), says which name and which
number (click's `style`). The got/expected pairs come from the failing tests
(evidence.py); nothing is made without one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher

from selfdebug.server.engine.search.evidence import Mismatch
from selfdebug.server.engine.search.statements import (
    FunctionNode,
    Raw,
    Text,
    _whole_lines,
    condition_names,
)

MAX_MISSING = 20  # characters of missing text worth putting into the code
MAX_COMPARED = 400  # longer strings are not diffed
MAX_TOKEN = 8  # longer words of the expected text are data, not a placeholder
MAX_FALLBACKS = 3
MAX_NUMBERS = 3
_NUMBER = re.compile(r"\d+")
_VALUE_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.Return)
_FIELD = re.compile(r"\{[^{}]*\}")


def missing_text(mismatch: Mismatch) -> str:
    """The one piece of text that `expected` has and `got` lacks, everything else agreeing
    (`[default: ]` vs `[default: ""]` gives `""`), or "" when the difference is anything
    else."""
    got, expected = mismatch.got, mismatch.expected
    if len(got) > MAX_COMPARED or len(expected) > MAX_COMPARED:
        return ""
    if mismatch.inside:  # the shortest inner cut of `expected` that makes the rest appear in `got`
        for length in range(1, min(MAX_MISSING, len(expected) - 2) + 1):
            for start in range(1, len(expected) - length):
                rest = expected[:start] + expected[start + length :]
                if rest in got and expected[start : start + length].strip():
                    return expected[start : start + length]
        return ""
    changes = [
        op
        for op in SequenceMatcher(None, got, expected, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    if len(changes) != 1 or changes[0][0] != "insert":
        return ""
    missing = expected[changes[0][3] : changes[0][4]]
    return missing if missing.strip() and len(missing) <= MAX_MISSING else ""


def _written_pieces(function: FunctionNode) -> list[str]:
    """The constant text the function's strings write (f-strings' and `{field}` templates'
    text between their fields; docstrings left out), longest first."""
    pieces: set[str] = set()
    docstrings = {
        id(n.value)
        for n in ast.walk(function)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
    }
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            pieces.update(p for p in _FIELD.split(node.value) if p)
    return sorted(pieces, key=len, reverse=True)


def unwritten_tokens(mismatch: Mismatch, written: Sequence[str]) -> list[str]:
    """The short words of `expected` that the function's own strings do not write and the
    output does not show (`[default: ""]` with `default: {default}`, `[` and `]` written
    gives `""`): what a value rendered there should have been."""
    rest = mismatch.expected
    if len(rest) > MAX_COMPARED:
        return []
    for piece in written:
        rest = rest.replace(piece, " ")
    return [t for t in rest.split() if len(t) <= MAX_TOKEN and t not in mismatch.got]


def fallback_texts(
    function: FunctionNode, text: Text, lines: set[int], mismatches: Sequence[Mismatch]
) -> Iterator[Raw]:
    """`x = value` -> `x = value or "<missing>"` (and `return value or ...`) at a ranked line,
    for each text a failing test's output lacks (`missing_text`, `unwritten_tokens`): a value
    that renders empty shown as the text the test expects in its place (size 3)."""
    written = _written_pieces(function) if mismatches else []
    found = [missing_text(m) for m in mismatches]
    found += [t for m in mismatches for t in unwritten_tokens(m, written)]
    missing = [t for t in dict.fromkeys(found) if t][:MAX_FALLBACKS]
    if not missing:
        return
    for node in ast.walk(function):
        if not isinstance(node, _VALUE_STATEMENTS) or node.lineno not in lines:
            continue
        value = node.value
        if value is None or isinstance(value, ast.Constant | ast.BoolOp):
            continue
        start, end = text.span(value)
        spelled = text.of(value)
        if not isinstance(value, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
            spelled = f"({spelled})"
        for piece in missing:
            yield node.lineno, "fallback-text", start, end, f"{spelled} or {piece!r}"


def _wrapping(value: ast.expr, name: str) -> tuple[str, str] | None:
    """(prefix, suffix) when `value` is `name` between constant strings: f"[{name}]" or
    "[" + name + "]" (one side may be missing, not both)."""
    parts: list[ast.expr]
    if isinstance(value, ast.JoinedStr):
        parts = list(value.values)
        if sum(isinstance(p, ast.FormattedValue) for p in parts) != 1:
            return None
    else:
        parts = []
        node: ast.expr = value
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts.insert(0, node.right)
            node = node.left
        parts.insert(0, node)
    names = [
        i
        for i, p in enumerate(parts)
        if (isinstance(p, ast.Name) and p.id == name)
        or (
            isinstance(p, ast.FormattedValue)
            and isinstance(p.value, ast.Name)
            and p.value.id == name
            and p.conversion == -1
            and p.format_spec is None
        )
    ]
    if len(names) != 1 or len(parts) > 3:
        return None
    before, after = parts[: names[0]], parts[names[0] + 1 :]
    if not all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in before + after):
        return None
    prefix = "".join(p.value for p in before)  # type: ignore[attr-defined]
    suffix = "".join(p.value for p in after)  # type: ignore[attr-defined]
    return (prefix, suffix) if prefix or suffix else None


def _doubled(piece: str, mismatches: Sequence[Mismatch]) -> bool:
    """A failing test got `piece` twice in a row where it expected it once at most there."""
    return bool(piece) and any(
        piece * 2 in m.got and piece * 2 not in m.expected and piece in m.expected
        for m in mismatches
    )


def wrap_guards(
    function: FunctionNode, text: Text, lines: set[int], mismatches: Sequence[Mismatch]
) -> Iterator[Raw]:
    """`x = f"[{x}]"` -> `if not (x.startswith("[") and x.endswith("]")): x = f"[{x}]"` at a
    ranked line, where a failing test got the wrapping twice (size 3)."""
    if not mismatches:
        return
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign) or node.lineno not in lines:
            continue
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        wrapping = _wrapping(node.value, name)
        whole = _whole_lines(text, node)
        if wrapping is None or whole is None:
            continue
        prefix, suffix = wrapping
        if not (_doubled(prefix, mismatches) or _doubled(suffix, mismatches)):
            continue
        checks = [f"{name}.startswith({prefix!r})"] if prefix else []
        checks += [f"{name}.endswith({suffix!r})"] if suffix else []
        condition = checks[0] if len(checks) == 1 else f"({' and '.join(checks)})"
        indent = " " * node.col_offset
        statement = text.code[whole[0] : whole[1]]
        body = "".join("    " + line for line in statement.splitlines(keepends=True))
        guarded = f"{indent}if not {condition}:\n{body}"
        yield node.lineno, "wrap-guard", whole[0], whole[1], guarded


def expected_numbers(mismatches: Sequence[Mismatch]) -> list[int]:
    """Whole numbers the expected strings show and the outputs got do not (`ESC[3m` wanted,
    `ESC[23m` got: 3)."""
    numbers: list[int] = []
    for m in mismatches:
        got = set(_NUMBER.findall(m.got))
        numbers += [int(n) for n in _NUMBER.findall(m.expected) if n not in got]
    return list(dict.fromkeys(numbers))[:MAX_NUMBERS]


def copied_lines(
    function: FunctionNode, text: Text, lines: set[int], mismatches: Sequence[Mismatch]
) -> Iterator[Raw]:
    """A line copied from another block that kept that block's name and number:
    `if italic is not None: ... {5 if underline else 23}` -> `{3 if italic else 23}`, the
    name replaced by the one its own block's condition reads (`underline` guards another
    block) and a number by one a failing test expects and did not get (size 3)."""
    numbers = expected_numbers(mismatches)
    if not numbers:
        return
    # line -> the one name its innermost `if` reads (`if italic is not None:`: `italic`)
    guards = {
        line: next(iter(names))
        for line, names in condition_names(function, (ast.If,)).items()
        if len(names) == 1
    }
    guarding = set(guards.values())
    integers: dict[int, list[ast.Constant]] = {}  # line -> its integer literals
    for node in ast.walk(function):
        if isinstance(node, ast.Constant) and type(node.value) is int and node.lineno in lines:
            integers.setdefault(node.lineno, []).append(node)
    for node in ast.walk(function):
        if not isinstance(node, ast.Name) or node.lineno not in lines:
            continue
        own = guards.get(node.lineno)
        if own is None or node.id == own or node.id not in guarding:
            continue
        name_start, name_end = text.span(node)
        for constant in integers.get(node.lineno, []):
            start, end = text.span(constant)
            for number in numbers:
                if number == constant.value:
                    continue
                spans = sorted([(name_start, name_end, own), (start, end, str(number))])
                first, last = spans[0][0], spans[-1][1]
                changed = text.code[first:last]
                for span_start, span_end, new in reversed(spans):
                    changed = changed[: span_start - first] + new + changed[span_end - first :]
                yield node.lineno, "copied-line", first, last, changed
