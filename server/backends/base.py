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
    """Either `prompt` (raw text, base models) or `messages` (chat models) is set."""

    prompt: str | None = None
    messages: list[Message] | None = None
    max_tokens: int = 512
    stop: list[str] = field(default_factory=list)
    temperature: float = 0.0
    seed: int | None = 0
    n: int = 1
    deadline_s: float = 120.0  # overall wall-clock limit for the whole call
    # Evaluate the whole prompt, none of it from a KV cache left by an earlier call. Local
    # llama.cpp gives slightly different logits for a prompt whose prefix came from the cache
    # than for the same prompt evaluated at once, enough to change a greedy answer; a session
    # starts cold so that the same request gets the same answers. Remote servers ignore it.
    cold: bool = False

    def __post_init__(self) -> None:
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("CompletionRequest needs exactly one of prompt or messages")


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


class BackendConfigError(BackendError):
    """Bad settings: no model, missing consent for a remote endpoint, missing API key..."""


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
    ) -> Completion:
        """Blocking call (run it off the event loop). Streams text pieces to `on_text` when given.
        Raises a BackendError subclass; BackendCancelled when `cancel` fires."""
        ...

    def close(self) -> None: ...
