"""The model's answers for a hole made into edits the search's judge takes.

An answer is cut where the hole ends: one line for a one-line hole; for a longer one (a
statement over several lines, a block header with its first statement) as many lines as it
replaces, plus one; for a gap, up to GAP_LINES new lines; for the holes of a few lines
(holes.py: a guard, a grown statement, a branch, a longer gap) up to the hole's `lines`. Lines
that leave the hole's block (less indented than its first line) end it, and so does a blank one.
An answer of several lines is taken as far as the function parses with it (an answer cut at its
most lines can end in a header without its body), less the lines at its end that only repeat
the code after the hole (a model that writes on into the suffix), and less its `print(...)`
lines where the function prints nothing itself (the model watching a value); an answer that is
nothing but a copy of the lines around the hole is no edit. What is left must make the function
parse, change its program (a comment or formatting alone does not), not repeat an earlier
sample, and add none of the constructs the search refuses as degenerate (a return that leaves
the rest of the function dead, a constant condition: search/edits.py).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from selfdebug.server.engine.answers.added_prints import is_print_call
from selfdebug.server.engine.answers.candidate import program_key
from selfdebug.server.engine.model_edits.holes import Hole, lines_after
from selfdebug.server.engine.search.edits import Edit, degenerate_count
from selfdebug.server.engine.target import TargetFunction

EDIT_CLASS = "model-local-edit"  # not a class of search/registry.py: the model wrote it
GAP_LINES = 3
# beside the registry's sizes (3 a statement, 4 a guessed one): a few guessed lines are 5, so a
# one-line fix that passes as well ranks first
SIZE = {"line": 3, "block": 4, "gap": 4, "guard": 5, "grown": 5, "branch": 5}


def stop_strings(hole: Hole) -> list[str]:
    """Where generation stops: a one-line hole at its line break, others at a blank line."""
    return ["\n"] if hole.kind == "line" and hole.replaced == 1 else ["\n\n"]


def max_lines(hole: Hole) -> int:
    """The most lines an answer writes: the hole's own (holes.py), else by its kind."""
    if hole.lines:
        return hole.lines
    if hole.kind == "line" and hole.replaced == 1:
        return 1  # a chat answer's second line as well: one line for a one-line hole
    return GAP_LINES if hole.kind == "gap" else hole.replaced + 1


def cut(text: str, hole: Hole, indent: str) -> list[str] | None:
    """The hole's new lines (column 0 of the function's code, the first one at the hole's
    indentation), or None when the answer gives none. `indent`: the function's indentation in
    the file, which the answer's later lines carry."""
    lines = text.replace("\r\n", "\n").split("\n")
    first = lines[0].rstrip()
    if not first.strip() or first.lstrip().startswith("#"):
        return None
    kept = [hole.indent + first.strip()]
    block_indent = len(indent) + len(hole.indent)
    for line in lines[1 : max_lines(hole)]:
        if not line.strip():
            break
        if len(line) - len(line.lstrip()) < block_indent or not line.startswith(indent):
            break
        kept.append(line[len(indent) :].rstrip())
    return kept


def edits_from(
    target: TargetFunction,
    hole: Hole,
    texts: Sequence[str],
    seen: set[str],
    *,
    numbers: Sequence[int] = (),
    total: int = 0,
) -> list[Edit]:
    """One edit per new program among `texts` (`seen`: the program keys met already, the
    original's among them; updated). `numbers`: each text's sample number, of `total`."""
    code_lines = target.code.splitlines()
    before = code_lines[hole.first - 1 : hole.last]
    above = code_lines[: hole.first - 1]
    below = lines_after(hole, code_lines)
    if hole.next_line is not None:  # the line after the hole changes with it
        before = code_lines[hole.first - 1 : hole.last + 1]
    tree_before = ast.parse(target.code)
    degenerate = degenerate_count(tree_before)
    prints = any(is_print_call(node) for node in ast.walk(tree_before))  # a function that prints
    file_line = target.start_line + hole.first  # the hole's first line, 1-based in the file
    edits: list[Edit] = []
    for index, text in enumerate(texts):
        new = cut(text, hole, target.indent)
        if new is not None and (len(new) > 1 or hole.lines):  # a gap's one line as before
            new = _without_copies(new, above, below, hole)
        if new is not None and not prints:
            new = [line for line in new if not _print_line(line)] or None
        if new is None:
            continue
        parsed = _parsing(above, new, below)
        if parsed is None:
            continue
        kept, code, tree = parsed
        after = kept + below[:1] if hole.next_line is not None else kept
        if after == before:
            continue
        if degenerate_count(tree) > degenerate:  # e.g. a return that leaves the rest dead
            continue
        key = program_key(code)
        if key in seen:
            continue
        seen.add(key)
        number = numbers[index] if index < len(numbers) else index + 1
        edits.append(
            Edit(
                line=file_line,
                rank=hole.rank,
                size=SIZE[hole.kind],
                edit_class=EDIT_CLASS,
                before="\n".join(before),
                after="\n".join(after),
                code=code,
                origin=f"the model {_where(hole, file_line)} (sample {number} of "
                f"{total or len(texts)})",
            )
        )
    return edits


def _where(hole: Hole, file_line: int) -> str:
    if hole.kind == "gap":
        return f"after line {file_line - 1}"
    return f"before line {file_line}" if hole.replaced == 0 else f"at line {file_line}"


def _parsing(
    above: list[str], new: list[str], below: list[str]
) -> tuple[list[str], str, ast.Module] | None:
    """The most of `new`'s lines, from its first, with which the function parses: (those lines,
    the function's text, its tree); None when not even its first line does."""
    for end in range(len(new), 0, -1):
        code = "\n".join(above + new[:end] + below) + "\n"
        try:
            return new[:end], code, ast.parse(code)
        except SyntaxError:
            continue
    return None


def _print_line(line: str) -> bool:
    """A line of an answer that is a `print(...)` statement: the model watching a value, as
    it does in print mode (answers/added_prints.py). Left out of every answer at a function
    that prints nothing itself, so a fix never keeps one (HumanEvalFix/103: `print(summation)`
    before the right average, proposed as it was)."""
    try:
        body = ast.parse(line.strip()).body
    except SyntaxError:
        return False
    return len(body) == 1 and isinstance(body[0], ast.Expr) and is_print_call(body[0].value)


def _without_copies(
    new: list[str], above: list[str], below: list[str], hole: Hole
) -> list[str] | None:
    """An answer (of several lines, or in a hole of a few) less its last lines where they
    repeat the first lines after the hole (the model wrote on into the code that follows);
    None when nothing else is left, or when what is left of an insertion repeats the lines
    just above it."""
    for start in range(len(new)):
        tail = new[start:]
        if [line.rstrip() for line in below[: len(tail)]] == tail:
            new = new[:start]
            break
    if not new:
        return None
    if hole.replaced == 0 and [line.rstrip() for line in above[-len(new) :]] == new:
        return None
    return new
