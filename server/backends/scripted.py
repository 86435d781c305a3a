"""A backend that answers from a script: deterministic tests of the engine, the LSP server and
the editors. Never the only test of a path; real backends are tested against real models.

Selected through the environment so that a test can drive a real server process:
SELFDEBUG_SCRIPTED_REPLIES=/path/to/script.json with
{"replies": ["reply 1", "reply 2", ...], "prompt_form": "chat", "delay_s": 0.0,
 "errors": {"1": ["BackendTimeout", "message"]},
 "plays": {"2": {"token_s": 0.1, "stall_after": 5}}}.
Replies are used in order; the last one repeats. Each reply may contain the placeholder
"{{REQUEST_NUMBER}}" (1-based), handy to tell turns apart. `errors` names the calls that raise a
backend error (by class name) instead of answering; `plays` the calls that stream their answer a
word at a time under the real CallGuard (its stall rule, deadline and cancel), and may stall.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from selfdebug.server.backends.base import (
    BackendCancelled,
    BackendConfigError,
    BackendError,
    Completion,
    CompletionRequest,
    ProgressSink,
    PromptForm,
    Usage,
)
from selfdebug.server.backends.guard import CallGuard
from selfdebug.server.cancel import CancelToken

SCRIPT_ENV = "SELFDEBUG_SCRIPTED_REPLIES"
WHAT = "the scripted model call"


@dataclass(frozen=True)
class Play:
    """How one call's answer streams: a word (this backend's token) every `token_s` seconds,
    and after `stall_after` words nothing more, until the guard stops the call."""

    token_s: float = 0.0
    stall_after: int | None = None


class ScriptedBackend:
    def __init__(
        self,
        replies: list[str],
        prompt_form: PromptForm = "chat",
        delay_s: float = 0.0,
        *,
        finish_reasons: list[str] | None = None,
        context_tokens: int | None = None,
        speed: tuple[float, float] | None = None,
        errors: dict[int, BackendError] | None = None,
        plays: dict[int, Play] | None = None,
    ) -> None:
        """`finish_reasons`: one per reply ("length" plays a reply cut at max_tokens; "stop"
        when missing). `context_tokens`: the context window the engine should fit prompts in.
        `speed`: (prompt, generation) tokens/s the calls report, playing a machine that slow
        without waiting. `errors`: request number (1-based) -> the error that call raises
        instead of answering (a timeout, a bad response...). `plays`: request number -> how that
        call streams its answer (see Play)."""
        if not replies:
            raise BackendConfigError("the scripted backend needs at least one reply")
        self.name = "scripted"
        self.prompt_form: PromptForm = prompt_form
        self.usage = Usage()
        self.requests: list[CompletionRequest] = []
        self._replies = list(replies)
        self._delay_s = delay_s
        self._finish_reasons = list(finish_reasons or [])
        self.context_tokens = context_tokens
        self._speed = speed
        self._errors = dict(errors or {})
        self._plays = dict(plays or {})
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedBackend:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise BackendConfigError(f"cannot read scripted replies from {path}: {error}")
        errors = {
            int(number): _error(str(kind), str(message))
            for number, (kind, message) in dict(data.get("errors", {})).items()
        }
        return cls(
            replies=[str(r) for r in data.get("replies", [])],
            prompt_form=data.get("prompt_form", "chat"),
            delay_s=float(data.get("delay_s", 0.0)),
            errors=errors,
            plays={int(k): Play(**v) for k, v in dict(data.get("plays", {})).items()},
        )

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        started = time.monotonic()
        with self._lock:
            self.requests.append(request)
            number = len(self.requests)
        if self._delay_s and cancel is not None and cancel.wait(self._delay_s):
            raise BackendCancelled("the model call was cancelled")
        if self._delay_s and cancel is None:
            time.sleep(self._delay_s)
        if cancel is not None and cancel.cancelled:
            raise BackendCancelled("the model call was cancelled")
        if number in self._errors:
            raise self._errors[number]
        texts, reasons = [], []
        for i in range(request.n):
            index = min(number - 1 + i, len(self._replies) - 1)
            texts.append(self._replies[index].replace("{{REQUEST_NUMBER}}", str(number)))
            given = self._finish_reasons
            reasons.append(given[index] if index < len(given) else "stop")
        if number in self._plays:
            _play(texts[0], self._plays[number], request, cancel, on_text, on_progress)
        elif on_text is not None:
            on_text(texts[0])
        prompt_text = request.text()
        prompt_tokens = len(prompt_text.split())
        completion_tokens = sum(len(t.split()) for t in texts)
        seconds, prompt_seconds = time.monotonic() - started, 0.0
        if self._speed is not None:
            prompt_seconds = prompt_tokens / self._speed[0]
            seconds = prompt_seconds + completion_tokens / self._speed[1]
        completion = Completion(
            texts=texts,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            seconds=seconds,
            prompt_seconds=prompt_seconds,
            finish_reasons=reasons,
            model="scripted",
        )
        self.usage.add(completion)
        return completion

    def close(self) -> None:
        pass


def _play(
    text: str,
    play: Play,
    request: CompletionRequest,
    cancel: CancelToken | None,
    on_text: Callable[[str], None] | None,
    on_progress: ProgressSink | None,
) -> None:
    """Stream `text` as `play` says, under the guard a real backend uses."""
    guard = CallGuard(request.deadline_s, cancel, stall_s=request.stall_s, on_progress=on_progress)
    with guard:
        for index, piece in enumerate(re.findall(r"\s*\S+\s*", text) or [text]):
            if play.stall_after is not None and index >= play.stall_after:
                guard.wait(3600.0)  # stalled: only the guard ends this
            if guard.wait(play.token_s) or guard.stopped:
                raise guard.error(WHAT)
            guard.token()
            if on_text is not None:
                on_text(piece)
        guard.raise_if_stopped(WHAT)


def _error(kind: str, message: str) -> BackendError:
    """A BackendError subclass by name (BackendError itself for an unknown one)."""
    classes, seen = [BackendError], {}
    while classes:
        cls = classes.pop()
        seen[cls.__name__] = cls
        classes.extend(cls.__subclasses__())
    return seen.get(kind, BackendError)(message)
