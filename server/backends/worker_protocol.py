"""The messages between the server (or CLI) and its model worker process: JSON lines, typed here.

Requests go to the worker's stdin, replies come back on a dedicated pipe (llama.cpp may print on
stdout/stderr). Every reply names the request id it answers: "text" (a streamed piece),
"progress" (a `CallProgress`), then "done" or "error". Typed errors cross the boundary by class
name, so the engine sees the same `BackendError` subclasses as with an in-process model.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from selfdebug.server.backends.base import (
    BackendBadResponse,
    BackendCancelled,
    BackendConfigError,
    BackendError,
    BackendStalled,
    BackendTimeout,
    CallProgress,
    Completion,
    CompletionRequest,
    ContextOverflow,
    InfillUnsupported,
)

WORKER_COMMAND = "model-worker"  # `selfdebug model-worker`: what users see in `ps`

_ERRORS: dict[str, type[BackendError]] = {
    cls.__name__: cls
    for cls in (
        BackendBadResponse,
        BackendCancelled,
        BackendConfigError,
        BackendStalled,
        BackendTimeout,
        ContextOverflow,
        InfillUnsupported,
    )
}


@dataclass(frozen=True)
class WorkerParams:
    """What a worker loads; one worker per distinct value (see worker_client.py)."""

    model_path: str
    prompt_form: str = "auto"
    n_gpu_layers: int | None = None
    n_ctx: int = 8192
    n_threads: int | None = None
    flash_attn: bool = True
    lookup_tokens: int = 0  # prompt-lookup draft tokens per step; 0: off (lookup_decoding.py)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> WorkerParams:
        return cls(**json.loads(text))


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode("utf-8")


def decode(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("a worker message must be a JSON object")
    return message


def request_message(call_id: int, request: CompletionRequest, stream: bool) -> dict[str, Any]:
    return {"op": "complete", "id": call_id, "request": asdict(request), "stream": stream}


def request_from(message: dict[str, Any]) -> CompletionRequest:
    return CompletionRequest(**message["request"])


def completion_from(data: dict[str, Any]) -> Completion:
    return Completion(**data)


def progress_from(message: dict[str, Any]) -> CallProgress:
    return CallProgress(**message["progress"])


def error_message(call_id: int, error: BaseException) -> dict[str, Any]:
    kind = type(error).__name__ if type(error).__name__ in _ERRORS else "BackendBadResponse"
    text = str(error) if isinstance(error, BackendError) else f"{type(error).__name__}: {error}"
    return {"id": call_id, "event": "error", "kind": kind, "message": text}


def error_from(message: dict[str, Any]) -> BackendError:
    return _ERRORS.get(message.get("kind", ""), BackendBadResponse)(str(message.get("message")))
