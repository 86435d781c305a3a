"""The failing test's values for the diagnostic hover: the call's inputs and the failing line.

Why: "expected 3, got 2.0" tells what went wrong but not for which input; the hover (VS Code,
`vim.diagnostic.open_float`) shows every line of a diagnostic's message, so the lines built here
follow the one-line summary. Everything comes from what the runner already records in a
TestResult (pytest's assertion operands, the frames with their source line), as the engine's
one reading of a failing test gives it (engine/evidence.py): no extra run, no parsing here.
"""

from __future__ import annotations

from selfdebug.server.engine.evidence import FailingTest, call_in
from selfdebug.server.runner.results import Frame

MAX_CHARS = 200  # a hover line, not a dump: long reprs are cut with an ellipsis


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def evidence_lines(test: FailingTest, function_name: str, test_frame: Frame | None) -> list[str]:
    """Lines after the summary: `inputs: mean([2, 4])`, `at tests/t.py:5: assert ...`, and the
    exception's message when pytest had no assertion operands."""
    lines: list[str] = []
    code = test_frame.code.strip() if test_frame is not None else ""
    call = call_in(code, function_name) if code else None
    if call:
        lines.append(f"inputs: {_clip(call)}")
    if test_frame is not None and code:
        lines.append(f"at line {test_frame.line} of the test: {_clip(code)}")
    if test.assert_left is None and test.message_lines:
        message = test.message_lines
        if len(message) > 1:  # the first line is already in the summary
            lines.append(_clip(" ".join(message[1:4])))
    return lines
