"""The model's answers for a hole made into edits the search's judge takes.

An answer is cut where the hole ends: one line for a one-line hole; for a longer one (a
statement over several lines, a block header with its first statement) as many lines as it
replaces, plus one; for a gap, up to GAP_LINES new lines. Lines that leave the hole's block
(less indented than its first line) end it. What is left must make the function parse, change
its program (a comment or formatting alone does not), not repeat an earlier sample, and add none
of the constructs the search refuses as degenerate (a return that leaves the rest of the
function dead, a constant condition: search/edits.py).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from selfdebug.server.engine.answers.candidate import program_key
from selfdebug.server.engine.model_edits.holes import Hole
from selfdebug.server.engine.search.edits import Edit, degenerate_count
from selfdebug.server.engine.target import TargetFunction

EDIT_CLASS = "model-local-edit"  # not a class of search/registry.py: the model wrote it
GAP_LINES = 3
SIZE = {"line": 3, "block": 4, "gap": 4}  # beside the registry's sizes: a statement, a guess


def stop_strings(hole: Hole) -> list[str]:
    """Where generation stops: a one-line hole at its line break, others at a blank line."""
    return ["\n"] if hole.kind == "line" and hole.replaced == 1 else ["\n\n"]


def max_lines(hole: Hole) -> int:
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
    degenerate = degenerate_count(ast.parse(target.code))
    file_line = target.start_line + hole.first  # the hole's first line, 1-based in the file
    edits: list[Edit] = []
    for index, text in enumerate(texts):
        new = cut(text, hole, target.indent)
        if new is None or new == before:
            continue
        code = "\n".join(code_lines[: hole.first - 1] + new + code_lines[hole.last :]) + "\n"
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        if degenerate_count(tree) > degenerate:  # e.g. a return that leaves the rest dead
            continue
        key = program_key(code)
        if key in seen:
            continue
        seen.add(key)
        number = numbers[index] if index < len(numbers) else index + 1
        where = f"after line {file_line - 1}" if hole.kind == "gap" else f"at line {file_line}"
        edits.append(
            Edit(
                line=file_line,
                rank=hole.rank,
                size=SIZE[hole.kind],
                edit_class=EDIT_CLASS,
                before="\n".join(before),
                after="\n".join(new),
                code=code,
                origin=f"the model {where} (sample {number} of {total or len(texts)})",
            )
        )
    return edits
