"""A fixed total for one model call, when the user configured one: scaled to the backend's
measured speed, not a constant.

By default a call has no fixed total: it is stopped when it makes no progress for the stall
limit (guard.py) or when the session's budget is spent. A fixed deadline cut long probe prompts
on a CPU (the 1.5B model reads ~80 prompt tokens/s and writes ~16 tokens/s on 2 cores: a
3,000-token prompt alone takes ~40 s). A configured deadline (`modelCallDeadline`,
`--call-deadline`, > 0) is what the user accepts to wait at least; once this session has timed a
call, a call that the measured speed says needs longer gets that much time, with a margin:
expected = prompt tokens / prompt tok/s + max tokens / generation tok/s.
"""

from __future__ import annotations

from dataclasses import dataclass

from selfdebug.server.backends.base import Completion

MARGIN = 2.0  # twice the expected time: a busier machine, a slower stretch
SLACK_S = 10.0  # load, scheduling, the first token


@dataclass(frozen=True)
class Speed:
    prompt_tok_s: float
    gen_tok_s: float


class SpeedMeter:
    """The backend's speed as its finished calls showed it (the newest measurement of each
    side wins: a model that warmed up or a machine that got busy shows at once)."""

    def __init__(self) -> None:
        self._prompt_tok_s: float | None = None
        self._gen_tok_s: float | None = None

    def observe(self, completion: Completion) -> None:
        """Learn from one call; calls too small to time (cached prompts, a few tokens) teach
        nothing."""
        evaluated = completion.prompt_tokens - completion.cached_prompt_tokens
        if completion.prompt_seconds > 0 and evaluated >= 32:
            self._prompt_tok_s = evaluated / completion.prompt_seconds
        generating_s = completion.seconds - completion.prompt_seconds
        if (
            completion.prompt_seconds > 0
            and generating_s > 0
            and completion.completion_tokens >= 16
        ):
            self._gen_tok_s = completion.completion_tokens / generating_s

    @property
    def generation_tok_s(self) -> float | None:
        """Tokens a second the model wrote in the newest call long enough to time."""
        return self._gen_tok_s

    @property
    def speed(self) -> Speed | None:
        if self._prompt_tok_s is None or self._gen_tok_s is None:
            return None
        return Speed(self._prompt_tok_s, self._gen_tok_s)


def expected_seconds(prompt_tokens: int, max_tokens: int, speed: Speed) -> float:
    return prompt_tokens / speed.prompt_tok_s + max_tokens / speed.gen_tok_s


def call_deadline(
    configured_s: float, prompt_tokens: int, max_tokens: int, speed: Speed | None
) -> float | None:
    """The configured deadline, or more when the measured speed says this call needs more;
    None when none is configured (0)."""
    if configured_s <= 0:
        return None
    if speed is None:
        return configured_s
    needed = MARGIN * expected_seconds(prompt_tokens, max_tokens, speed) + SLACK_S
    return max(configured_s, needed)
