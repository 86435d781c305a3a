"""How likely the model finds each of several texts as the fill between a prefix and a suffix:
the mean log-probability per token of the text, given the model's FIM prompt.

The edit search's survivors that the tests cannot tell apart are ranked by it (the naturalness
of a patch: Xia & Zhang, AlphaRepair, FSE'22; Xia, Wei & Zhang, ICSE'23, rank test-passing
patches by the model's entropy, and the correct ones come first). Sampling asks the model to
*write* a fix, which a 1.5B model often does not; scoring asks only which of the fixes at hand it
finds most natural, which it can answer for every one.

The FIM prompt is evaluated once (the KV cache keeps it, and a sampled hole left it there); each
text's tokens are then evaluated one at a time, the distribution after every shared beginning
computed once (texts at one line share most of their tokens).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from selfdebug.server.backends.guard import CallGuard
from selfdebug.server.backends.llama_loader import LoadedModel
from selfdebug.server.backends.llama_local import shared_prefix


def mean_logprobs(
    model: LoadedModel, prompt: list[int], texts: list[str], guard: CallGuard
) -> list[float]:
    """Each text's mean log-probability per token after `prompt` (a text of no tokens: 0.0).
    The caller holds the model's call lock."""
    llm = model.llm
    known: dict[tuple[int, ...], np.ndarray] = {}  # the text's tokens so far -> log-softmax
    scores = []
    for text in texts:
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        total = 0.0
        for index, token in enumerate(tokens):
            before = tuple(tokens[:index])
            if before not in known:
                known[before] = _next_token_logprobs(llm, [*prompt, *before], guard)
            total += float(known[before][token])
        scores.append(total / len(tokens) if tokens else 0.0)
    return scores


def _next_token_logprobs(llm: Any, tokens: list[int], guard: CallGuard) -> np.ndarray:
    """The log-softmax of the logits after `tokens`, evaluating only what the KV cache lacks
    (its last token always: llama-cpp-python keeps no logits but the last evaluation's)."""
    guard.raise_if_stopped("the local model call")
    kept = shared_prefix(llm, tokens[:-1])
    llm.n_tokens = kept  # eval() drops the KV cache beyond n_tokens
    step = max(int(llm.n_batch), 1)
    for start in range(kept, len(tokens), step):
        llm.eval(tokens[start : start + step])
        guard.token()  # progress: the stall limit starts again
    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
    top = logits.max()
    return logits - (top + np.log(np.exp(logits - top).sum()))
