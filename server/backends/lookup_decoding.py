"""Prompt-lookup decoding: a fix reply copies most of the function it was shown, so guess the
next tokens from the prompt and let the model check many guesses in one evaluation.

Why it can be faster: generating one token costs about as much as reading the whole model from
memory, and where evaluating a short batch costs little more than one token (a GPU), many tokens
come for the price of one. (Not on a 2-core CPU: there a batch of b tokens costs 0.7b-1b single
ones and this measured 0.3-0.5x, so it is off by default; docs/bench/MODELS.md.) When the last
few tokens of the reply also occur in the prompt, the tokens that followed them there are a draft
(llama-cpp-python's `LlamaPromptLookupDecoding`: the longest n-gram match, up to `num_pred_tokens`
tokens), and one batched evaluation of the last token plus the draft gives the model's logits at
every draft position.

Why the text is the same, up to rounding: every token this emits is the sampler's own pick from
the model's logits after the true prefix, exactly as without a draft. The draft only decides how
far one evaluation reaches: the picks go on while each equals the next draft token (that token is
then already in the KV cache); at the first pick that differs, the KV cache is cut after it and the
pick starts the next step. A rejected draft token never reaches the sampler, and the sampler
draws once per emitted token, so greedy decoding gives the same tokens and sampling (temperature
> 0) keeps its distribution exactly: lookup stays on for sampled calls, and a seed still gives
the same samples every time. llama.cpp's logits depend in their last bits on how tokens are
batched, so a near tie can tip: a sampled draw near a boundary does (on Gemma 270M the samples
of one seed with and without lookup part after a few dozen tokens), and so can a greedy pick
(the 1.5B's replies to 2 of 6 dev fix prompts parted; Gemma's in the tests did not). Greedy
replies are compared in tests/test_lookup_decoding.py and by `selfdebug bench backend --lookup`.

Why not llama-cpp-python's own `Llama(draft_model=...)`: it forces `logits_all=True`, which keeps
an (n_ctx x n_vocab) float array (5 GB for Qwen's 152k vocabulary at 8,192 tokens) and copies the
logits of every prompt token into it; here only the draft batch asks for logits.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from llama_cpp import Llama
from llama_cpp.llama_speculative import LlamaPromptLookupDecoding


@dataclass
class LookupStats:
    """What the drafts did: `accepted / drafted` is the acceptance rate, `tokens / steps` the
    tokens one evaluation produced on average."""

    steps: int = 0  # evaluations of a draft batch (a step without a draft counts too)
    drafted: int = 0  # draft tokens evaluated
    accepted: int = 0  # draft tokens that were the model's pick (no evaluation of their own)
    tokens: int = 0  # tokens emitted

    def as_dict(self) -> dict[str, float]:
        return {
            "steps": self.steps,
            "drafted": self.drafted,
            "accepted": self.accepted,
            "tokens": self.tokens,
            "acceptance": round(self.accepted / self.drafted, 3) if self.drafted else 0.0,
            "tokens_per_step": round(self.tokens / self.steps, 3) if self.steps else 0.0,
        }


def prompt_lookup(num_pred_tokens: int, max_ngram_size: int) -> LlamaPromptLookupDecoding:
    return LlamaPromptLookupDecoding(max_ngram_size=max_ngram_size, num_pred_tokens=num_pred_tokens)


_SAMPLER_OPTIONS = (
    "top_k",
    "top_p",
    "min_p",
    "typical_p",
    "temp",
    "repeat_penalty",
    "frequency_penalty",
    "presence_penalty",
    "tfs_z",
    "mirostat_mode",
    "mirostat_eta",
    "mirostat_tau",
    "penalize_nl",
)


class LookupLlama(Llama):
    """A `Llama` whose `generate` (what `create_completion` runs) verifies prompt-lookup drafts
    while `lookup` is set, and is llama-cpp-python's own otherwise."""

    lookup: LlamaPromptLookupDecoding | None = None
    lookup_stats: LookupStats

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lookup_stats = LookupStats()

    def generate(  # type: ignore[override]  # the same keywords, passed through
        self, tokens: Sequence[int], **options: Any
    ) -> Generator[int, Sequence[int] | None, None]:
        draft = self.lookup
        plain = (
            draft is None
            or not options.get("reset", True)
            or options.get("logits_processor") is not None  # they see rejected drafts' logits
            or options.get("grammar") is not None  # its state would advance on the draft
            or self._is_recurrent  # their memory cannot be cut after a rejected draft
            or self._is_hybrid
        )
        if plain or draft is None:
            return super().generate(tokens, **options)
        return self._generate_with_lookup(list(tokens), draft, options)

    def _generate_with_lookup(
        self, tokens: list[int], draft: LlamaPromptLookupDecoding, options: dict[str, Any]
    ) -> Generator[int, Sequence[int] | None, None]:
        self._sampler = self._init_sampler(
            **{k: v for k, v in options.items() if k in _SAMPLER_OPTIONS}
        )
        stopping_criteria = options.get("stopping_criteria")
        stats = self.lookup_stats
        self._keep_prefix_and_evaluate(tokens[:-1])
        last = tokens[-1]
        verified = self.n_tokens  # the KV cache holds the prompt and the reply up to here
        try:
            while True:
                start = self.n_tokens  # the position of `last`
                self.input_ids[start] = last
                room = min(self._n_ctx - start - 1, self.n_batch - 1)
                guess = _as_tokens(draft(self.input_ids[: start + 1]))[: max(room, 0)]
                batch = [last, *guess]
                self._evaluate_with_logits(batch)
                stats.steps += 1
                stats.drafted += len(guess)
                for index in range(len(batch)):
                    token = self.sample(idx=start + index)  # logits after batch[: index + 1]
                    verified = start + index + 1
                    accepted = index < len(guess) and token == guess[index]
                    if not accepted:  # the KV cache holds batch[: index + 1]; drop the rest
                        self._cut_after(verified)
                    stats.accepted += accepted
                    stats.tokens += 1
                    if stopping_criteria is not None and stopping_criteria(
                        self._input_ids[:verified], self._scores[-1, :]
                    ):
                        return
                    yield token
                    if not accepted:
                        break
                last = token
        finally:  # the caller stopped (a stop sequence, max_tokens): no unchecked draft stays
            self._cut_after(verified)

    def _cut_after(self, kept: int) -> None:
        if self.n_tokens > kept:
            self.n_tokens = kept
            self._ctx.kv_cache_seq_rm(-1, kept, -1)

    def _keep_prefix_and_evaluate(self, tokens: list[int]) -> None:
        """Leave the KV cache holding exactly `tokens`, reusing the longest cached prefix."""
        kept = 0
        for cached, token in zip(self._input_ids.tolist(), tokens, strict=False):
            if cached != token:
                break
            kept += 1
        self.n_tokens = kept
        self._ctx.kv_cache_seq_rm(-1, kept, -1)
        if kept < len(tokens):
            self.eval(tokens[kept:])

    def _evaluate_with_logits(self, batch: list[int]) -> None:
        """`eval` for a short batch with logits at every position (for `sample(idx=...)`),
        without `logits_all`'s copy of them."""
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        self._batch.set_batch(batch=batch, n_past=self.n_tokens, logits_all=True)
        self._ctx.decode(self._batch)
        self.input_ids[self.n_tokens : self.n_tokens + len(batch)] = batch
        self.n_tokens += len(batch)
        self._requires_eval = False


def _as_tokens(draft: npt.NDArray[np.intc]) -> list[int]:
    return [int(token) for token in draft]
