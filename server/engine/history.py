"""The session's memory of its own attempts (Chen et al., Fig. 5 keep every revision and its
feedback in context): without it the next prompt can be byte-identical to the last one, and a
greedy model answers it with the same wrong program again.

Each attempt keeps its code, its diff against the original function, its test results and why it
was not kept. The prompt shows the last few; a program seen before is reported as a repeat, so the
session can say so and sample instead of asking greedily again.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from selfdebug.server.engine.answers.candidate import program_key

SHOWN_ATTEMPTS = 2  # the prompt shows this many of the latest attempts
DIFF_CHARS = 1500
FEEDBACK_CHARS = 700


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 15].rstrip() + " ...[truncated]"


def code_diff(original: str, code: str, number: int) -> str:
    """The attempt's change as a unified diff against the original function (short: a model
    reads a small diff more reliably than a second copy of the whole function)."""
    lines = difflib.unified_diff(
        original.splitlines(keepends=True),
        code.splitlines(keepends=True),
        fromfile="original",
        tofile=f"attempt {number}",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return _clip(text, DIFF_CHARS)


@dataclass
class Attempt:
    """One candidate that ran, as the next prompts show it."""

    number: int  # 1-based, in the order the attempts ran
    turn: int
    mode: str
    diff: str  # against the original function
    tally: str  # "1/3" of the chosen tests
    feedback: str  # its failing tests, as the model reads them
    verdict: str  # why it was not kept, or that it is the version shown now
    kept: bool = False
    repeat_of: str = ""  # "attempt #1" / "the original function" when the program was seen before


@dataclass
class AttemptLog:
    """Every attempt of a session, and which programs were seen (normalized, see program_key)."""

    original: str
    attempts: list[Attempt] = field(default_factory=list)
    _seen: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._seen[program_key(self.original)] = "the original function"

    def seen_as(self, code: str) -> str:
        """How the program was first seen ("attempt #2", "the original function"), or ""."""
        return self._seen.get(program_key(code), "")

    def add(
        self,
        code: str,
        *,
        turn: int,
        mode: str,
        tally: str,
        feedback: str,
        verdict: str,
        kept: bool,
    ) -> Attempt:
        number = len(self.attempts) + 1
        attempt = Attempt(
            number=number,
            turn=turn,
            mode=mode,
            diff=code_diff(self.original, code, number),
            tally=tally,
            feedback=_clip(feedback, FEEDBACK_CHARS),
            verdict=verdict,
            kept=kept,
            repeat_of=self.seen_as(code),
        )
        self.attempts.append(attempt)
        self._seen.setdefault(program_key(code), f"attempt #{number}")
        return attempt

    def recent(self, count: int = SHOWN_ATTEMPTS) -> list[Attempt]:
        return self.attempts[-count:] if count > 0 else []
