"""The one interface the engine uses to talk to a model, and the typed errors it can raise.

Two real implementations (llama.py: llama.cpp in-process; openai_backend.py: any OpenAI-compatible
HTTP endpoint) and one scripted backend for deterministic tests all satisfy `Backend`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from selfdebug.server.cancel import CancelToken

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}
PromptForm = Literal["completion", "chat"]


@dataclass
class CompletionRequest:
    """Exactly one of `prompt` (raw text, base models), `messages` (chat models) or `infill`
    ([prefix, suffix]: fill-in-the-middle, the text between them; the backend wraps them in the
    model's own FIM tokens, or raises InfillUnsupported) is set."""

    prompt: str | None = None
    messages: list[Message] | None = None
    infill: list[str] | None = None  # [prefix, suffix]
    max_tokens: int = 512
    stop: list[str] = field(default_factory=list)
    temperature: float = 0.0
    seed: int | None = 0
    n: int = 1
    # A fixed total for the whole call (None: none). The engine sets it only to the session's
    # time left or a configured `modelCallDeadline`: a slow CPU with a long prompt cannot meet a
    # constant, and `stall_s` is what tells a slow call from a stuck one.
    deadline_s: float | None = 120.0
    # Stop the call when it made no progress (no prompt batch evaluated, no token) for this long.
    stall_s: float | None = None
    # Evaluate the whole prompt, none of it from a KV cache left by an earlier call. Local
    # llama.cpp gives slightly different logits for a prompt whose prefix came from the cache
    # than for the same prompt evaluated at once, enough to change a greedy answer; a session
    # starts cold so that the same request gets the same answers. Remote servers ignore it.
    cold: bool = False

    def __post_init__(self) -> None:
        given = [self.prompt, self.messages, self.infill]
        if sum(part is not None for part in given) != 1:
            raise ValueError("CompletionRequest needs exactly one of prompt, messages or infill")
        if self.infill is not None and len(self.infill) != 2:
            raise ValueError("CompletionRequest.infill is [prefix, suffix]")

    def text(self) -> str:
        """All of the prompt's text, in order (for estimates and scripted replies)."""
        if self.infill is not None:
            return "".join(self.infill)
        return self.prompt or "\n".join(m["content"] for m in self.messages or [])


@dataclass
class Completion:
    texts: list[str]  # one per sample (n)
    prompt_tokens: int
    completion_tokens: int
    seconds: float  # wall time of the call
    prompt_seconds: float = 0.0  # time to first token / prompt processing, when known
    finish_reasons: list[str] = field(default_factory=list)
    model: str = ""
    cached_prompt_tokens: int = 0  # prompt tokens reused from the KV cache (not evaluated again)

    @property
    def text(self) -> str:
        return self.texts[0] if self.texts else ""


@dataclass(frozen=True)
class CallProgress:
    """How far one call has come: what a backend reports while it works, and what the stall
    rule watches (guard.py). Prompt evaluation counts as progress, not only tokens."""

    seconds: float  # since the call started
    prompt_done: int = 0  # prompt tokens evaluated so far (those from the KV cache included)
    prompt_total: int = 0  # the prompt's tokens; 0 when unknown (a remote server)
    tokens: int = 0  # tokens generated so far (all samples)
    generating_s: float = 0.0  # since the first token

    @property
    def tokens_per_s(self) -> float | None:
        return self.tokens / self.generating_s if self.tokens > 1 and self.generating_s else None

    def describe(self) -> str:
        """ "model: 140 tokens, 6 tok/s": one line for a progress bar."""
        if self.tokens:
            rate = self.tokens_per_s
            return f"model: {self.tokens} tokens" + (f", {rate:.0f} tok/s" if rate else "")
        if self.prompt_total:
            return f"model: reading the prompt, {self.prompt_done}/{self.prompt_total} tokens"
        return f"model: waiting for the first token, {self.seconds:.0f} s"


ProgressSink = Callable[[CallProgress], None]


@dataclass
class Usage:
    """Running token accounting, kept per backend instance and per engine session."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.seconds += completion.seconds

    def include(self, other: Usage) -> None:
        """Another account's calls counted here too (a step's own, into its session's)."""
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds += other.seconds


class BackendError(Exception):
    """Base class; `str(error)` is a message fit to show a user (never contains secrets)."""


class BackendUnreachable(BackendError):
    pass


class BackendTimeout(BackendError):
    """The call ran past a fixed total (a configured deadline, or the session's time left)."""


class BackendStalled(BackendTimeout):
    """The call made no progress (no prompt batch evaluated, no token) for its stall limit."""


class BackendBadResponse(BackendError):
    pass


class ContextOverflow(BackendError):
    pass


class BackendCancelled(BackendError):
    pass


class BackendStartFailed(BackendError):
    """The backend cannot start: its model process died before it ever answered (a build for
    another CPU, out of memory while loading). No later call of the session would do better."""


class BackendConfigError(BackendError):
    """Bad settings: no model, missing consent for a remote endpoint, missing API key..."""


class InfillUnsupported(BackendConfigError):
    """The model has no fill-in-the-middle tokens, or the endpoint no way to pass them: the
    engine asks for local edits another way (or not at all)."""


@runtime_checkable
class Backend(Protocol):
    name: str  # e.g. "llama:gemma-3-270m-q4_k_m.gguf" or "openai:gpt-4o-mini@https://..."
    prompt_form: PromptForm  # which prompt templates fit this model
    usage: Usage

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        """Blocking call (run it off the event loop). Streams text pieces to `on_text` and how
        far it has come to `on_progress` when given. Raises a BackendError subclass:
        BackendCancelled when `cancel` fires, BackendStalled past `request.stall_s` without
        progress, BackendTimeout past `request.deadline_s`."""
        ...

    def close(self) -> None: ...
