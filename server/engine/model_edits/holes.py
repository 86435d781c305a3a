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

Then, place by place (best first), the holes of the fixes that add a few lines, which about half
of the real dev set's unfixed cases' upstream fixes are (2-8 lines added):
- `guard`: up to MULTI_LINES new lines before the statement, at its indentation (a condition with
  its body: `if not args: ...; return` before the code that would fail), before the function's
  first suspicious statement and before a suspicious return;
- `grown`: the statement (or an `if`/`while` header) rewritten as up to GROWN_LINES lines (`return
  Decimal(val)` -> an assignment, a check of it, a raise and the return; a new local computed and
  used in the next condition);
- `branch`: a new branch of the if/elif chain holding the statement, before the branch holding
  it (a chain's `if` then becomes `elif`: `next_line`) and at the chain's end, before its `else`
  (a missing `elif x is None:` case), up to MULTI_LINES lines;
- `gap` again, up to MULTI_LINES lines, where a missing block of a few lines goes: at the start
  of a suspicious `if`'s body (after a guard's header) and at the end of the statement's block.
Lines are the function's own (`TargetFunction.code`, 1-based there); `file_line` maps back.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.engine.target import TargetFunction

HoleKind = Literal["line", "gap", "block", "guard", "grown", "branch"]
TIED_LINES = 12
MULTI_LINES = 8  # a guard or a branch: a header with its body (the dev set's fixes: 2-8 lines)
GROWN_LINES = 6  # a statement grown into an assignment, a check, a raise and a return, or so
_JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NEWER_COMPOUND = tuple(getattr(ast, name) for name in ("Match", "TryStar") if hasattr(ast, name))


@dataclass(frozen=True)
class Hole:
    """Lines `first`..`last` of the function's code (1-based, inclusive) to be written anew; a
    gap has last == first - 1 (nothing replaced, new text inserted before line `first`)."""

    first: int
    last: int
    kind: HoleKind
    rank: int  # of the suspicious line it came from (0 = most suspicious)
    indent: str  # of the hole's first line
    lines: int = 0  # the most lines an answer writes (0: the kind's rule, samples.max_lines)
    next_line: str | None = None  # the line after the hole as it reads with the answer in, when
    # the answer changes it (a chain's `if` made `elif` under a new branch before it)

    @property
    def replaced(self) -> int:
        return self.last - self.first + 1


def lines_after(hole: Hole, code_lines: Sequence[str]) -> list[str]:
    """The function's lines after the hole as they read with an answer in (`next_line`)."""
    below = list(code_lines[hole.last :])
    if hole.next_line is not None and below:
        below[0] = hole.next_line
    return below


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
    seen: set[tuple[int, int, str, int, str | None]] = set()  # a span, as written

    def add(
        first: int,
        last: int,
        kind: HoleKind,
        rank: int,
        indent_of: int,
        lines: int = 0,
        next_line: str | None = None,
    ) -> None:
        if not 0 < first <= len(code_lines) + 1:
            return
        text = code_lines[indent_of - 1]
        indent = text[: len(text) - len(text.lstrip())]
        key = (first, last, indent, lines, next_line)
        if key in seen:
            return
        seen.add(key)
        holes.append(Hole(first, last, kind, rank, indent, lines, next_line))

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
    # the fixes of a few lines, place by place
    places = _Places(function, code_lines)
    earliest = min((s.lineno for _r, s, _p in found_top), default=0)
    for rank, statement, _parent in found_top:
        for span in places.multi_line(statement, first_suspicious=statement.lineno == earliest):
            add(span.first, span.last, span.kind, rank, span.indent_of, span.lines,
                span.next_line)  # fmt: skip
    return holes


class _Places:
    """Where the holes of a few new lines go around a statement of `function`: the block each
    statement is in, the if/elif chains, the `else` lines (no node of their own)."""

    def __init__(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, code_lines: list[str]
    ) -> None:
        self.code_lines = code_lines
        self.parent: dict[int, tuple[ast.stmt | None, list[ast.stmt]]] = {}

        def visit(body: list[ast.stmt], parent: ast.stmt | None) -> None:
            for statement in body:
                self.parent[id(statement)] = (parent, body)
                for block in _blocks(statement):
                    visit(block, statement)

        visit(function.body, None)

    def multi_line(self, statement: ast.stmt, *, first_suspicious: bool) -> list[_Span]:
        """The holes of a few lines at `statement`: guard, grown, branch, the longer gaps."""
        spans: list[_Span] = []
        at = statement.lineno
        own_line = self._own_line(statement)  # not the body of `if x: y` on the header's line
        elif_ = self._is_elif(statement)
        guard = first_suspicious or isinstance(statement, ast.Return)
        if guard and own_line and not elif_:
            spans.append(_Span(at, at - 1, "guard", at, MULTI_LINES))
        simple = not isinstance(statement, (*_COMPOUND, *_DEFINITIONS, *_NEWER_COMPOUND))
        if own_line and (simple or (isinstance(statement, ast.If | ast.While) and not elif_)):
            end = _header_end(statement)
            spans.append(_Span(at, end, "grown", at, max(GROWN_LINES, end - at + 2)))
        spans += self._branches(statement)
        if isinstance(statement, ast.If) and statement.body[0].lineno > _header_end(statement):
            body = statement.body[0].lineno
            spans.append(_Span(body, body - 1, "gap", body, MULTI_LINES))
        _parent, block = self.parent.get(id(statement), (None, []))
        if block and not isinstance(block[-1], _JUMPS) and self._own_line(block[-1]):
            end = (block[-1].end_lineno or block[-1].lineno) + 1
            spans.append(_Span(end, end - 1, "gap", block[-1].lineno, MULTI_LINES))
        return spans

    def _branches(self, statement: ast.stmt) -> list[_Span]:
        """A new branch before the branch of the innermost if/elif chain that holds
        `statement` (a head `if` then reads `elif`), and one at the chain's end (before its
        `else`, or after its last branch)."""
        branch, in_else = self._branch_of(statement)
        if branch is None:
            return []
        head = branch
        while self._is_elif(head):
            head = cast(ast.If, self.parent[id(head)][0])
        last = head
        while len(last.orelse) == 1 and self._is_elif(last.orelse[0]):
            last = cast(ast.If, last.orelse[0])
        spans: list[_Span] = []
        if not in_else and self._own_line(branch):
            at = branch.lineno
            text = self.code_lines[at - 1]
            stripped = text.lstrip()
            next_line = None
            if branch is head and stripped.startswith("if"):
                next_line = text[: len(text) - len(stripped)] + "el" + stripped
            spans.append(_Span(at, at - 1, "branch", at, MULTI_LINES, next_line))
        else_line = self._else_line(last)
        if else_line:
            spans.append(_Span(else_line, else_line - 1, "branch", else_line, MULTI_LINES))
        elif not last.orelse and self._own_line(head):
            end = (head.end_lineno or head.lineno) + 1
            spans.append(_Span(end, end - 1, "branch", head.lineno, MULTI_LINES))
        return spans

    def _branch_of(self, statement: ast.stmt) -> tuple[ast.If | None, bool]:
        """The innermost `if`/`elif` whose header or branch holds `statement`, and whether it
        is that chain's `else` that holds it."""
        if isinstance(statement, ast.If):
            return statement, False
        node = statement
        while True:
            parent, _block = self.parent.get(id(node), (None, []))
            if parent is None:
                return None, False
            if isinstance(parent, ast.If):
                # not in its body: in its `else` (an `elif` would be the innermost `if`)
                return parent, not any(s is node for s in parent.body)
            node = parent

    def _is_elif(self, statement: ast.stmt) -> bool:
        if not isinstance(statement, ast.If):
            return False
        parent, block = self.parent.get(id(statement), (None, []))
        text = self.code_lines[statement.lineno - 1].lstrip()
        return isinstance(parent, ast.If) and block is parent.orelse and text.startswith("elif")

    def _own_line(self, statement: ast.stmt) -> bool:
        """The statement starts its line (new lines can go before it at its indentation)."""
        text = self.code_lines[statement.lineno - 1]
        return statement.col_offset == len(text) - len(text.lstrip())

    def _else_line(self, last: ast.If) -> int:
        """The line of the `else` of the chain whose last branch is `last` (0: none)."""
        if not last.orelse:
            return 0
        body_end = last.body[-1].end_lineno or last.body[-1].lineno
        for line in range(last.orelse[0].lineno, body_end, -1):
            if self.code_lines[line - 1].lstrip().startswith("else"):
                return line if self._indent(line) == self._indent(last.lineno) else 0
        return 0

    def _indent(self, line: int) -> int:
        text = self.code_lines[line - 1]
        return len(text) - len(text.lstrip())


@dataclass(frozen=True)
class _Span:
    """A hole of a few lines before its rank: `indent_of` the line whose indentation it takes."""

    first: int
    last: int
    kind: HoleKind
    indent_of: int
    lines: int
    next_line: str | None = None


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
