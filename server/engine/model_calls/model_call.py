"""Asking the model once, the way every mode does it: the prompt fitted to the context window,
re-worded rather than sent twice (a greedy model would only answer it the same way again), the
stall limit and the session's time left as the call's limits (a configured fixed deadline scaled
to the backend's measured speed), sampling instead of greedy decoding after a repeat, the call's
progress shown as it comes, and every call recorded for the transcript. A call that fails in a
way the session survives (failed_calls.py) is recorded and raised as `CallFailed`.

The session decides when to ask and what; this module knows how.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from selfdebug.server.backends.base import Backend, BackendError, CallProgress, Completion, Usage
from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.model_calls.call_deadline import SpeedMeter, call_deadline
from selfdebug.server.engine.model_calls.context_fit import (
    context_window,
    estimate_tokens,
    fit_variables,
    prompt_text,
    token_counter,
)
from selfdebug.server.engine.model_calls.failed_calls import (
    CallFailed,
    FailedCall,
    ends_session,
    kind_of,
)
from selfdebug.server.engine.model_calls.prompting import PromptLibrary, PromptVars, RenderedPrompt
from selfdebug.server.engine.modes import STEP_MAX_TOKENS
from selfdebug.server.engine.types import DebugRequest

REPEAT_TEMPERATURE = 0.7  # a repeated prompt or program is sampled, never asked greedily again
PROGRESS_EVERY_S = 1.0  # a call's progress reaches the session's progress at most this often


class Record(Protocol):
    def __call__(self, event: str, **fields: Any) -> None: ...


class ModelCaller:
    """The session's line to its backend. It keeps what later calls depend on: the tokens
    used (budgets), the measured speed (deadlines) and the prompts already sent (repeats)."""

    def __init__(
        self,
        backend: Backend,
        prompts: PromptLibrary,
        request: DebugRequest,
        cancel: CancelToken,
        record: Record,
        progress: Callable[[CallProgress], None] | None = None,
    ) -> None:
        self.backend = backend
        self.progress = progress  # how far a running call has come (the session's progress)
        self.prompts = prompts
        self.request = request
        self.cancel = cancel
        self.record = record  # the session's transcript, with the turn
        self.usage = Usage()
        self.speed = SpeedMeter()
        self._sent: dict[str, int] = {}  # prompt text -> times sent
        self._repeats = 0  # requests re-worded because they would have repeated
        self.failed: list[FailedCall] = []  # calls that gave no answer, in order

    @property
    def tokens_used(self) -> int:
        return self.usage.prompt_tokens + self.usage.completion_tokens

    def _render_new(self, step: str, variables: PromptVars) -> tuple[RenderedPrompt, bool]:
        """The prompt, re-worded when exactly this text was sent before; True when it had to
        be re-worded."""
        form = self.backend.prompt_form
        rendered = self.prompts.render(step, form, variables)
        repeated = False
        base_note = variables.repeat_note
        for _ in range(3):  # a user template may ignore repeat_note: then give up re-wording
            sent = self._sent.get(rendered.text, 0)
            if not sent:
                break
            repeated = True
            self._repeats += 1
            note = (
                f"This exact request was already sent {sent} time(s) and its answers did not "
                f"work (repeat {self._repeats}); answer differently this time."
            )
            variables.repeat_note = f"{base_note} {note}" if base_note else note
            rendered = self.prompts.render(step, form, variables)
        self._sent[rendered.text] = self._sent.get(rendered.text, 0) + 1
        return rendered, repeated

    def ask(
        self,
        step: str,
        variables: PromptVars,
        *,
        n: int,
        max_tokens: int | None,
        remaining_s: float | None,
        sample: bool,
        mode: str,
        turn: int = 0,
    ) -> tuple[RenderedPrompt, Completion]:
        """One call for prompt step `step`. `remaining_s`: the session's time left (the
        deadline never goes past it); `sample`: an answer repeated, so do not ask greedily.
        Raises CallFailed for a call the session survives; cancel, a backend that cannot start
        and a call cut by the session's budget raise the backend's own error."""
        if max_tokens is None:
            max_tokens = self.request.model.max_tokens or STEP_MAX_TOKENS[step]
        tokens_left = self.request.budget.token_budget
        if tokens_left is not None:  # do not overshoot the budget by much
            max_tokens = max(16, min(max_tokens, tokens_left - self.tokens_used))
        form = self.backend.prompt_form
        variables, trimmed, prompt_tokens = fit_variables(
            lambda v: self.prompts.render(step, form, v),
            variables,
            window=context_window(self.backend),
            answer_tokens=max_tokens,
            count=token_counter(self.backend),
        )
        if trimmed:
            self.record("prompt_trimmed", step=step, trimmed=trimmed)
        rendered, repeated = self._render_new(step, variables)
        if not prompt_tokens:  # not counted (it fits clearly): an estimate is enough here
            prompt_tokens = estimate_tokens(prompt_text(rendered))
        deadline = call_deadline(
            self.request.budget.model_call_deadline_s, prompt_tokens, max_tokens, self.speed.speed
        )
        if remaining_s is not None:
            deadline = max(1.0, min(remaining_s, deadline if deadline is not None else remaining_s))
        stall = self.request.budget.model_stall_s if self.request.budget.model_stall_s > 0 else None
        temperature, seed = 0.0, 0  # greedy: the most likely fix first
        if n > 1:
            temperature = self.request.model.temperature
        if repeated or sample:  # a greedy model would give the same answer again
            temperature = self.request.model.temperature or REPEAT_TEMPERATURE
            seed = 100 * (self.usage.calls + 1)  # new for every call; samples use seed + index
        request = rendered.to_request(
            max_tokens=max_tokens,
            temperature=temperature,
            n=n,
            deadline_s=deadline,
            stall_s=stall,
            seed=seed,
            cold=self.usage.calls == 0,  # a session's answers must not depend on the one before
        )
        started = time.monotonic()
        try:
            completion = self.backend.complete(
                request, cancel=self.cancel, on_progress=_every(PROGRESS_EVERY_S, self.progress)
            )
        except BackendError as error:
            seconds = time.monotonic() - started
            budget_spent = remaining_s is not None and remaining_s - seconds <= 1.0
            if ends_session(error) or self.cancel.cancelled or budget_spent:
                raise
            raise self._failed(error, step, mode, turn, seconds, request.deadline_s) from error
        self.usage.add(completion)
        self.speed.observe(completion)
        self.record(
            "model_call",
            step=step,
            mode=mode,
            form=rendered.form,
            prompt=rendered.prompt,
            messages=rendered.messages,
            stop=rendered.stop,
            max_tokens=request.max_tokens,
            deadline_s=_round(request.deadline_s),
            stall_s=request.stall_s,
            temperature=request.temperature,
            seed=request.seed,
            cold=request.cold,
            repeated_prompt=repeated,
            n=n,
            completions=completion.texts,
            finish_reasons=completion.finish_reasons,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            seconds=round(completion.seconds, 3),
            model=completion.model or self.backend.name,
        )
        return rendered, completion

    def _failed(
        self,
        error: BackendError,
        step: str,
        mode: str,
        turn: int,
        seconds: float,
        deadline: float | None,
    ) -> CallFailed:
        """Record a call that gave no answer; its time still counts as model time."""
        failed = FailedCall(turn, step, mode, kind_of(error), round(seconds, 1), str(error))
        self.failed.append(failed)
        self.usage.seconds += seconds
        self.record(
            "model_call_failed",
            step=step,
            mode=mode,
            kind=failed.kind,
            seconds=failed.seconds,
            deadline_s=_round(deadline),
            error_type=type(error).__name__,
            message=failed.message,
        )
        return CallFailed(failed)


def _round(seconds: float | None) -> float | None:
    return round(seconds, 1) if seconds is not None else None


def _every(
    seconds: float, sink: Callable[[CallProgress], None] | None
) -> Callable[[CallProgress], None] | None:
    """`sink`, called at most once per `seconds` (a progress bar need not redraw per token)."""
    if sink is None:
        return None
    last = [float("-inf")]

    def throttled(progress: CallProgress) -> None:
        now = time.monotonic()
        if now - last[0] >= seconds:
            last[0] = now
            sink(progress)

    return throttled
