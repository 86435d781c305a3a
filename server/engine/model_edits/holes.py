"""Holes: the spans of a function the model rewrites, at the lines the evidence points to.

At the suspicious lines (Ochiai, search/localize.py), best first, in three passes:
- `line`: the line itself, or the smallest statement holding it when that spans several lines
  (a compound statement's header only: `if`/`for`/`while` without their bodies);
- `gap`: a new line after that statement (a missing initialization, counter update or guard);
- `block`: the statement with the header of the block it opens (the condition and its first
  statement rewritten together).
Where more lines tie with the last of the top ones than `top` takes (one failing test and no
passing one: every line it ran scores the same), the tie is not cut at an arbitrary line: the
`line` pass goes on through the tied lines, up to TIED_LINES (the commonest fix changes one line;
the model's fixes came mostly from the first sample of a line's own hole).
Lines are the function's own (`TargetFunction.code`, 1-based there); `file_line` maps back.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.engine.target import TargetFunction

HoleKind = Literal["line", "gap", "block"]
TIED_LINES = 12
_JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


@dataclass(frozen=True)
class Hole:
    """Lines `first`..`last` of the function's code (1-based, inclusive) to be written anew; a
    gap has last == first - 1 (nothing replaced, new text inserted before line `first`)."""

    first: int
    last: int
    kind: HoleKind
    rank: int  # of the suspicious line it came from (0 = most suspicious)
    indent: str  # of the hole's first line

    @property
    def replaced(self) -> int:
        return self.last - self.first + 1


def holes_at(
    target: TargetFunction, lines: Sequence[SuspiciousLine], *, top: int = 6
) -> list[Hole]:
    """The holes at the `top` most suspicious lines (the `line` pass through their tie), in
    order, each span once."""
    code_lines = target.code.splitlines()
    try:
        tree = ast.parse(target.code)
    except SyntaxError:
        return []
    function = tree.body[0] if tree.body else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    offset = target.start_line  # code line n is file line n + offset
    body_start = function.body[0].lineno
    holes: list[Hole] = []
    seen: set[tuple[int, int]] = set()

    def add(first: int, last: int, kind: HoleKind, rank: int, indent_of: int) -> None:
        if (first, last) in seen or not 0 < first <= len(code_lines) + 1:
            return
        seen.add((first, last))
        text = code_lines[indent_of - 1]
        holes.append(Hole(first, last, kind, rank, text[: len(text) - len(text.lstrip())]))

    found = []  # (rank, statement, parent) per suspicious line
    chosen = list(lines[:top])
    if len(lines) > top:
        edge = lines[top - 1].score
        chosen += [s for s in lines[top:TIED_LINES] if s.score == edge]
    for rank, suspicious in enumerate(chosen):
        line = suspicious.line - offset
        statement, parent = _statement_at(function, line)
        if statement is not None and line >= body_start:
            found.append((rank, statement, parent))
    # every line's own hole first (the commonest fix changes one line), then the gaps after
    # them, then the lines with their block's header
    for rank, statement, _parent in found:
        add(statement.lineno, _header_end(statement), "line", rank, statement.lineno)
    found_top = [(rank, statement, parent) for rank, statement, parent in found if rank < top]
    for rank, statement, _parent in found_top:
        # after a block's header is its body; after a return, raise, break or continue nothing
        # runs
        if not isinstance(statement, (*_COMPOUND, *_JUMPS)):
            after = (statement.end_lineno or statement.lineno) + 1
            add(after, after - 1, "gap", rank, statement.lineno)
    for rank, statement, parent in found_top:
        first_in_block = getattr(parent, "body", [None])[0] is statement
        if parent is not None and first_in_block:
            add(parent.lineno, _header_end(statement), "block", rank, parent.lineno)
    return holes


def _statement_at(
    function: ast.FunctionDef | ast.AsyncFunctionDef, line: int
) -> tuple[ast.stmt | None, ast.stmt | None]:
    """The innermost statement whose own lines (a compound one's header) hold `line`, and the
    compound statement whose body it is first in (None at the function's top level)."""
    found: tuple[ast.stmt | None, ast.stmt | None] = (None, None)

    def visit(body: Sequence[ast.stmt], parent: ast.stmt | None) -> None:
        nonlocal found
        for statement in body:
            end = statement.end_lineno or statement.lineno
            if not statement.lineno <= line <= end:
                continue
            if statement.lineno <= line <= _header_end(statement):
                found = (statement, parent)
                return
            for block in _blocks(statement):
                visit(block, statement)
            return

    visit(function.body, None)
    return found


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(statement, name, None) for name in ("body", "orelse", "finalbody")]
    handlers = [h.body for h in getattr(statement, "handlers", [])]
    return [b for b in blocks if isinstance(b, list) and b] + handlers


def _header_end(statement: ast.stmt) -> int:
    """The last line of a statement, or of a compound statement's header (the line before its
    body, where the body starts on a line of its own)."""
    if isinstance(statement, (*_COMPOUND, ast.FunctionDef, ast.ClassDef)):
        body = getattr(statement, "body", [])
        if body and body[0].lineno > statement.lineno:
            return body[0].lineno - 1
        return statement.lineno
    return statement.end_lineno or statement.lineno
