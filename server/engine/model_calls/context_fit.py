"""Keep a prompt inside the model's context window: what the model cannot read is lost anyway,
and a prompt that overflows fails the call (ContextOverflow) and ends the session.

Tokens are counted by the backend when it can (`count_tokens`, the local model's own tokenizer),
else estimated at 4 characters a token. When the prompt plus the answer's budget does not fit,
material is trimmed in a fixed order, oldest and least needed first: earlier attempts, then the
log (its middle: head and tail are what a reader needs), then failures beyond the first, then the
tests' source. The function's code and the instructions are never trimmed.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from selfdebug.server.engine.clipping import clip_middle
from selfdebug.server.engine.model_calls.prompting import PromptVars, RenderedPrompt, ShownTest

CHARS_PER_TOKEN = 4  # estimate when the backend cannot count
MARGIN_TOKENS = 64  # chat template tokens and counting slack
MIN_LOG_CHARS = 300


@runtime_checkable
class CountsTokens(Protocol):
    def count_tokens(self, text: str) -> int: ...


def prompt_text(rendered: RenderedPrompt) -> str:
    if rendered.prompt is not None:
        return rendered.prompt
    return "\n".join(m["content"] for m in rendered.messages or [])


def estimate_tokens(text: str) -> int:
    """A token count from the length alone, for when the backend cannot count."""
    return len(text) // CHARS_PER_TOKEN + 1


def token_counter(backend: object) -> Callable[[str], int]:
    """The backend's own count when it has one, else an estimate from the length."""
    if not isinstance(backend, CountsTokens):
        return estimate_tokens

    def count(text: str) -> int:
        try:
            return int(backend.count_tokens(text))
        except Exception:  # a counting failure must not end the session: estimate instead
            return estimate_tokens(text)

    return count


def context_window(backend: object) -> int | None:
    """The backend's context size in tokens, when it says (`context_tokens`)."""
    size = getattr(backend, "context_tokens", None)
    return size if isinstance(size, int) and size > 0 else None


def _trim_steps(variables: PromptVars) -> list[tuple[str, Callable[[PromptVars], PromptVars]]]:
    """One change per step, in the order material is given up."""
    steps: list[tuple[str, Callable[[PromptVars], PromptVars]]] = []
    history: Any = getattr(variables, "history", None)  # earlier attempts, when shown
    if isinstance(history, list):
        for index in range(len(history)):
            steps.append((f"earlier attempt {index + 1}", _drop_oldest_attempt))
    size = len(variables.log)
    while size > MIN_LOG_CHARS:
        size //= 2
        steps.append((f"log cut to {size} chars", functools.partial(_cut_log, size)))
    entries = _failure_entries(variables.failures)
    for keep in range(len(entries) - 1, 0, -1):
        steps.append((f"failures after the first {keep}", functools.partial(_keep_failures, keep)))
    if variables.tests:
        steps.append(("tests' source", _clip_tests))
    return steps


def _drop_oldest_attempt(variables: PromptVars) -> PromptVars:
    trimmed = copy.copy(variables)
    trimmed.__dict__["history"] = list(getattr(variables, "history", []))[1:]
    return trimmed


def _cut_log(size: int, variables: PromptVars) -> PromptVars:
    return dataclasses.replace(variables, log=clip_middle(variables.log, size))


def _clip_tests(variables: PromptVars) -> PromptVars:
    tests = [ShownTest(t.nodeid, clip_middle(t.source, 400)) for t in variables.tests]
    return dataclasses.replace(variables, tests=tests)


def _failure_entries(failures: str) -> list[str]:
    """The failures text split into its entries (each starts at column 0)."""
    entries: list[str] = []
    for line in failures.splitlines():
        if entries and line.startswith((" ", "\t")):
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    return entries


def _keep_failures(keep: int, variables: PromptVars) -> PromptVars:
    entries = _failure_entries(variables.failures)
    if len(entries) <= keep:
        return variables
    left = len(entries) - keep
    failures = "\n".join([*entries[:keep], f"...[{left} more failure entries left out to fit]"])
    return dataclasses.replace(variables, failures=failures)


def fit_variables(
    render: Callable[[PromptVars], RenderedPrompt],
    variables: PromptVars,
    *,
    window: int | None,
    answer_tokens: int,
    count: Callable[[str], int],
) -> tuple[PromptVars, list[str], int]:
    """`variables` trimmed until the prompt rendered from them and `answer_tokens` fit `window`;
    what was trimmed, and the prompt's token count (0 when it was not counted: no window, or
    clearly small enough)."""
    if window is None:
        return variables, [], 0
    limit = window - answer_tokens - MARGIN_TOKENS
    text = prompt_text(render(variables))
    if len(text.encode("utf-8")) <= limit:  # a token holds at least one byte: it fits
        return variables, [], 0
    tokens = count(text)
    trimmed: list[str] = []
    for what, step in _trim_steps(variables):
        if tokens <= limit:
            break
        variables = step(variables)
        tokens = count(prompt_text(render(variables)))
        trimmed.append(what)
    return variables, trimmed, tokens


def fit_prompt(
    render: Callable[[PromptVars], RenderedPrompt],
    variables: PromptVars,
    *,
    window: int | None,
    answer_tokens: int,
    count: Callable[[str], int],
) -> tuple[RenderedPrompt, list[str], int]:
    """The prompt rendered from `variables` fitted as `fit_variables` does, what was trimmed,
    and its token count."""
    fitted, trimmed, tokens = fit_variables(
        render, variables, window=window, answer_tokens=answer_tokens, count=count
    )
    return render(fitted), trimmed, tokens
