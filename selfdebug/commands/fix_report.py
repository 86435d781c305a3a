"""A `selfdebug fix` session's result as text, in both forms (a function, or a failing test):
the diff, the explanation, the evidence ("passes N/M chosen, K/L wider") and why it stopped;
`fix --json` and a saved fix word the evidence alike (`evidence_line`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selfdebug.server.engine.types import DebugRequest, DebugResult


def last_lines(message: str, count: int = 4) -> str:
    """Long tool output (pytest warnings before the real error): keep the end, which names it."""
    lines = [line for line in message.splitlines() if line.strip()]
    if len(lines) <= count:
        return message.strip()
    return lines[0] + " ...\n" + "\n".join(lines[-count:])


def evidence_line(result: DebugResult) -> str:
    """ "passes N/M chosen, K/L wider": what a candidate is proven to do, never just "fixed"."""
    if result.chosen_after is None:
        return f"no candidate; the original passes {result.chosen_before} chosen"
    line = f"passes {result.chosen_after} chosen"
    if result.wider_after is not None:
        line += f", {result.wider_after} wider"
    if result.found_by:
        line += f"; found by {result.found_by}"
    line += f" (before: {result.chosen_before} chosen)"
    return f"{line}; {result.caveat}" if result.caveat else line


def suspicious_lines(result: DebugResult) -> list[str]:
    """The fault localization, as the editor shows it: "line 7: suspicious: run by 2/2 ..."."""
    shown = [f"  line {s.line}: {s.describe()}" for s in result.suspicious]
    if result.localization_note:
        shown.append(f"  ({result.localization_note})")
    return ["Suspicious lines:", *shown] if result.suspicious else []


def report(result: DebugResult, request: DebugRequest, out=None, isolation: str = "") -> None:
    out = out or sys.stdout  # looked up now: --json sends it to stderr
    if result.diff:
        print(result.diff, file=out, end="" if result.diff.endswith("\n") else "\n")
    if result.explanation:
        who = "Found" if result.found_by else "Model's explanation"  # the search is no model
        print(f"{who}: {result.explanation}", file=out)
    for warning in result.warnings:
        print(f"Warning: {warning}", file=out)
    for line in suspicious_lines(result):
        print(line, file=out)
    for call in result.failed_calls:
        print(f"Failed call: {call.describe()}", file=out)
    for refused in result.refused[:10]:
        print(f"Refused: {refused}", file=out)
    print(
        f"Result: {evidence_line(result)}; stop: {result.stop_reason}; mode {result.mode}; "
        f"{result.turns} turn(s), {result.model_calls} model call(s), "
        f"{result.prompt_tokens + result.completion_tokens} tokens, {result.seconds:.1f} s",
        file=out,
    )
    if isolation:
        sealed = "sandboxed" if isolation == "bwrap" else "NOT sandboxed"
        print(f"Isolation: {isolation} ({sealed})", file=out)
    if result.error:
        print(f"Error: {last_lines(result.error)}", file=out)
