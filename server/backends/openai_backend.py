"""The remote backend: any OpenAI-compatible HTTP endpoint, through the `openai` package.

Why a worker thread per call: the client's own timeout is per socket operation, and retries
multiply it, so neither bounds a whole call. We disable retries, give the client a read timeout
just past the stall limit, and wait for the worker ourselves: a cancel, a stall or a deadline
returns at once (the worker ends on its own when its socket times out). Chat requests go to
/chat/completions, raw prompts to /completions.

Every call streams (stream=True), so that the stall rule of guard.py applies as it does to the
local model: each streamed chunk is progress. A server evaluating a long prompt sends nothing
until its first token, so that wait counts against the stall limit too (we cannot see its
prompt evaluation).

The API key is read from the environment variable named in the settings, lives only in the
client, and is scrubbed from every message we produce.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from selfdebug.server.backends.base import (
    BackendBadResponse,
    BackendConfigError,
    BackendError,
    BackendTimeout,
    BackendUnreachable,
    Completion,
    CompletionRequest,
    ContextOverflow,
    InfillUnsupported,
    ProgressSink,
    PromptForm,
    Usage,
)
from selfdebug.server.backends.endpoint import endpoint_host, is_loopback, require_consent
from selfdebug.server.backends.guard import CallGuard
from selfdebug.server.backends.settings import BackendSettings
from selfdebug.server.cancel import CancelToken

WHAT = "the model endpoint call"
NO_KEY = "sk-no-key-required"  # local servers ignore the key, but the client wants one
CHARS_PER_TOKEN = 4  # a prompt's tokens when the server does not say (see _estimated_prompt_tokens)
_CONTEXT_WORDING = re.compile(
    r"context (length|window|size)|maximum context|too many tokens|prompt is too long"
    r"|exceeds? (the )?(context|maximum)",
    re.IGNORECASE,
)


@dataclass
class _Sample:
    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    first_text_at: float | None = None


@dataclass
class _Outcome:
    samples: list[_Sample] = field(default_factory=list)
    error: BaseException | None = None


class OpenAIBackend:
    def __init__(
        self,
        endpoint_url: str,
        model_name: str = "",
        *,
        api_key_env: str = "OPENAI_API_KEY",
        allow_remote: bool = False,
        prompt_form: str = "auto",
        env: Mapping[str, str] = os.environ,
    ) -> None:
        require_consent(endpoint_url, allow_remote)  # before anything can reach the network
        self._url = endpoint_url.strip().rstrip("/")
        self._host = endpoint_host(self._url)
        self._key_env = api_key_env
        self._key = env.get(api_key_env, "") if api_key_env else ""
        if not self._key and not is_loopback(self._host):
            raise BackendConfigError(
                f"no API key for {self._host}: set the environment variable {api_key_env}"
            )
        self._model_name = model_name
        self.prompt_form: PromptForm = "completion" if prompt_form == "completion" else "chat"
        self.name = f"openai:{model_name or '?'}@{self._url}"
        self.usage = Usage()
        self._client_lock = threading.Lock()
        self._client: Any = None

    @classmethod
    def from_settings(
        cls, settings: BackendSettings, env: Mapping[str, str] = os.environ
    ) -> OpenAIBackend:
        return cls(
            settings.endpoint_url,
            settings.model_name,
            api_key_env=settings.api_key_env,
            allow_remote=settings.allow_remote,
            prompt_form=settings.prompt_form,
            env=env,
        )

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        if request.infill is not None:  # no standard field carries the model's FIM tokens
            raise InfillUnsupported(
                f"{self.name}: an OpenAI-compatible endpoint takes no fill-in-the-middle request"
            )
        started = time.monotonic()
        outcome = _Outcome()
        finished = threading.Event()
        guard = CallGuard(
            request.deadline_s, cancel, stall_s=request.stall_s, on_progress=on_progress
        )
        with guard:

            def work() -> None:
                try:
                    self._run(request, guard, on_text, outcome)
                except BaseException as error:  # handed to the waiting caller
                    outcome.error = error
                finally:
                    finished.set()

            threading.Thread(target=work, name="selfdebug-openai-call", daemon=True).start()
            while not finished.wait(0.05):
                guard.raise_if_stopped(f"{WHAT} to {self._host}")
            if outcome.error is not None:
                raise self._translate(outcome.error, guard) from None
        samples = outcome.samples
        first = samples[0].first_text_at if samples else None
        completion = Completion(
            texts=[sample.text for sample in samples],
            prompt_tokens=max((sample.prompt_tokens for sample in samples), default=0)
            or _estimated_prompt_tokens(request),
            completion_tokens=sum(sample.completion_tokens for sample in samples),
            seconds=time.monotonic() - started,
            prompt_seconds=(first - started) if first is not None else 0.0,
            finish_reasons=[sample.finish_reason for sample in samples],
            model=self._model_name,
        )
        self.usage.add(completion)
        return completion

    def close(self) -> None:
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # -- worker side -------------------------------------------------------------------------

    def _client_for_call(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import openai  # a dependency; imported late, as it is slow to import

                self._client = openai.OpenAI(
                    base_url=self._url, api_key=self._key or NO_KEY, max_retries=0
                )
            return self._client

    def _run(
        self,
        request: CompletionRequest,
        guard: CallGuard,
        on_text: Callable[[str], None] | None,
        outcome: _Outcome,
    ) -> None:
        client = self._client_for_call()
        model = self._model_name or self._first_model(client, guard)
        for index in range(request.n):
            seed = None if request.seed is None else request.seed + index
            stream_to = on_text if index == 0 else None
            outcome.samples.append(self._sample(client, model, request, seed, guard, stream_to))

    def _first_model(self, client: Any, guard: CallGuard) -> str:
        """No model name configured: a local server serves one model; ask for its id."""
        models = client.models.list(timeout=guard.wait_timeout())
        for model in models.data:
            self._model_name = model.id
            return model.id
        raise BackendConfigError(f"{self._host} lists no models; set model_name")

    def _sample(
        self,
        client: Any,
        model: str,
        request: CompletionRequest,
        seed: int | None,
        guard: CallGuard,
        on_text: Callable[[str], None] | None,
    ) -> _Sample:
        arguments: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "timeout": guard.wait_timeout(),  # per read: the guard decides before it runs out
        }
        if request.stop:
            arguments["stop"] = request.stop[:4]  # the OpenAI API accepts at most 4
        if seed is not None:
            arguments["seed"] = seed
        chat = request.messages is not None
        if chat:
            endpoint, arguments["messages"] = client.chat.completions, request.messages
        else:
            endpoint, arguments["prompt"] = client.completions, request.prompt
        stream = endpoint.create(
            stream=True,
            stream_options={"include_usage": True},
            # a stream cut short (stopped, or broken by a server error) must not leave its
            # connection in the pool for the next request
            extra_headers={"Connection": "close"},
            **arguments,
        )
        guard.on_stop(stream.close)  # unblocks a read that would wait for the server
        sample = _read_stream(stream, chat, guard, on_text)
        if sample is not None:
            return sample
        # A stream with no choice at all: llama-cpp-python's server answers an error (a prompt
        # longer than its context) that way. Asked once without streaming, it says what.
        guard.alive()
        return _parse_whole(endpoint.create(**arguments), chat)

    def _translate(self, error: BaseException, guard: CallGuard) -> BackendError:
        """A typed error with a message fit for the user, scrubbed of the API key."""
        import openai

        host = self._host
        if guard.stopped:
            return guard.error(f"{WHAT} to {host}")
        if isinstance(error, BackendError):
            translated = error
        elif isinstance(error, openai.APITimeoutError):
            translated = BackendTimeout(f"{host} did not answer in time ({guard.where()})")
        elif isinstance(error, openai.APIConnectionError):
            cause = error.__cause__ or error
            translated = BackendUnreachable(f"cannot reach the model endpoint {self._url}: {cause}")
        elif isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
            translated = BackendConfigError(
                f"{host} rejected the API key (HTTP {error.status_code}); check the environment "
                f"variable {self._key_env}"
            )
        elif isinstance(error, openai.NotFoundError):
            translated = BackendConfigError(
                f"{host} answered 404 for model {self._model_name or '?'}: check endpoint_url "
                "(usually ending in /v1) and model_name"
            )
        elif isinstance(error, openai.APIStatusError):
            detail = _short(error.message)
            if error.status_code in (400, 413, 422) and _CONTEXT_WORDING.search(detail):
                translated = ContextOverflow(f"{host}: the prompt does not fit the model: {detail}")
            else:
                status = error.status_code
                translated = BackendBadResponse(f"{host} answered HTTP {status}: {detail}")
        else:
            translated = BackendBadResponse(f"unexpected answer from {host}: {_short(str(error))}")
        return type(translated)(self._scrub(str(translated)))

    def _scrub(self, text: str) -> str:
        return text.replace(self._key, "[redacted]") if self._key else text


def _estimated_prompt_tokens(request: CompletionRequest) -> int:
    """For a server whose stream reports no usage (llama-cpp-python's ignores include_usage):
    4 characters a token, the engine's own estimate (context_fit.CHARS_PER_TOKEN), so that
    token budgets and reports do not count its prompts as free."""
    text = request.text()
    return len(text) // CHARS_PER_TOKEN + 1


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _parse_whole(response: Any, chat: bool) -> _Sample:
    choices = getattr(response, "choices", None)
    if not choices:
        raise BackendBadResponse("the model endpoint answered without any choices")
    choice = choices[0]
    text = choice.message.content if chat else choice.text
    if text is None:
        raise BackendBadResponse("the model endpoint answered with an empty choice")
    usage = getattr(response, "usage", None)
    return _Sample(
        text=text,
        finish_reason=choice.finish_reason or "stop",
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
    )


def _read_stream(
    stream: Any, chat: bool, guard: CallGuard, on_text: Callable[[str], None] | None
) -> _Sample | None:
    """The streamed sample; None when the stream held no choice at all."""
    pieces: list[str] = []
    finish_reason, chunks, first_at, saw_choice = "stop", 0, None, False
    prompt_tokens = completion_tokens = 0
    try:
        for chunk in stream:
            if guard.stopped:
                break
            if getattr(chunk, "usage", None):
                prompt_tokens = chunk.usage.prompt_tokens or 0
                completion_tokens = chunk.usage.completion_tokens or 0
            if not chunk.choices:
                guard.alive()
                continue
            saw_choice = True
            choice = chunk.choices[0]
            piece = (choice.delta.content if chat else choice.text) or ""
            if piece:
                first_at = first_at or time.monotonic()
                chunks += 1
                pieces.append(piece)
                guard.token()  # one streamed chunk is one token on common servers
                if on_text is not None:
                    on_text(piece)
            else:
                guard.alive()
            finish_reason = choice.finish_reason or finish_reason
    finally:
        stream.close()
    guard.raise_if_stopped(WHAT)
    if not saw_choice:
        return None
    # Servers that ignore include_usage: one streamed chunk is one token on common servers.
    completion_tokens = completion_tokens or chunks
    return _Sample("".join(pieces), finish_reason, prompt_tokens, completion_tokens, first_at)
