"""What the model reads for one hole: the code above it (prefix) and below it (suffix).

Prefix: the module's imports, the class header for a method, the evidence as comments above
the function (a failing test's check and what it got), then the function's lines above the
hole, so that the model writes the hole knowing what went wrong.
Suffix: the function's lines below the hole (as they read with the answer in: a chain's `if`
made `elif` under a new branch), so that an answer of several lines knows what follows and
where to stop. The text keeps the file's own indentation, so the model continues real code;
samples.py takes the answer back to the function's column-0 text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from selfdebug.server.engine.evidence import Evidence, FailingTest
from selfdebug.server.engine.model_edits.holes import Hole, lines_after
from selfdebug.server.engine.target import TargetFunction

MAX_IMPORTS = 20
MAX_EVIDENCE = 160  # characters of one evidence comment
FAILING_SHOWN = 2


@dataclass(frozen=True)
class FimPrompt:
    prefix: str
    suffix: str


def evidence_comments(evidence: Evidence) -> list[str]:
    """One line per failing test (the first FAILING_SHOWN): its check and what happened."""
    return [_failure_line(t) for t in evidence.failing[:FAILING_SHOWN]]


def _failure_line(test: FailingTest) -> str:
    check = test.first_frame.code if test.first_frame is not None else ""
    if test.ended_in_timeout:
        what = "it did not finish (timed out)"
    elif test.assert_left is not None and test.assert_right is not None:
        what = f"{test.assert_left} {test.assert_op or '=='} {test.assert_right} is false"
    elif test.exc_type:
        first = test.message_lines
        what = f"{test.exc_type}: {first[0]}" if first else test.exc_type
    else:
        what = test.outcome
    text = f"a failing test: {check} -> {what}" if check else f"a failing test: {what}"
    return _one_line(text)


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_EVIDENCE else text[: MAX_EVIDENCE - 3] + "..."


def build_prompt(
    source: str,
    target: TargetFunction,
    hole: Hole,
    evidence: Sequence[str] = (),
    *,
    show_original: bool = False,
) -> FimPrompt:
    """The prefix and suffix around `hole` in `target` (a function of the file text `source`).

    `show_original`: the replaced line as a comment above the hole ("# the line was: ..."). Off:
    on 8 QuixBugs dev problems the search leaves (side by side, same holes), with it most
    samples were more comments (72 samples, 7 distinct programs on shunting_yard), without it
    code (10), and the fixes found were the same but for one plausible one."""
    code_lines = target.code.splitlines()
    indent = target.indent

    def file_text(lines: Sequence[str]) -> str:
        return "".join(f"{indent}{line}\n" if line.strip() else "\n" for line in lines)

    context = _module_context(source, target)
    above = file_text(code_lines[: hole.first - 1])
    at = indent + hole.indent
    notes = [f"{indent}# {line}\n" for line in evidence]  # above the function: at the hole,
    # comments led the model to write more comments instead of code
    was = ""
    if show_original and hole.replaced > 0:
        lines = [line.strip() for line in code_lines[hole.first - 1 : hole.last]]
        was = f"{at}# the line was: {_one_line(' '.join(lines))}\n"
    prefix = context + "".join(notes) + above + was + at
    suffix = "\n" + file_text(lines_after(hole, code_lines))
    return FimPrompt(prefix, suffix)


def _module_context(source: str, target: TargetFunction) -> str:
    """The module's one-line imports, and for a method the header of its class (the line that
    starts the nearest less-indented `class` above the function)."""
    lines = source.splitlines()
    imports = [
        line for line in lines[: target.start_line] if line.startswith(("import ", "from "))
    ][:MAX_IMPORTS]
    header = ""
    if target.class_name:
        for line in reversed(lines[: target.start_line]):
            stripped = line.lstrip()
            if stripped.startswith("class ") and len(line) - len(stripped) < len(target.indent):
                header = line + "\n"
                break
    text = "\n".join(imports) + ("\n\n\n" if imports else "")
    return text + header
