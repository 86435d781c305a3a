"""Prompt-lookup decoding on real fix prompts: generation tokens/s with and without it, side by
side in one run (`selfdebug bench backend --lookup`).

Why real prompts: lookup decoding pays only when the reply repeats the prompt, so a synthetic
prompt says nothing. The prompts are the first model call (`ut`, turn 1: what `auto` asks first)
of a few dev problems, built by the engine itself: a real session on the problem's throwaway
project whose backend records the request and stops the session.

Why side by side: on a shared machine the speed drifts by more than the effect, so each prompt
is answered with and without lookup back to back (which goes first alternates per prompt). Both
answers start from the same KV cache: one cold call of one token evaluates the prompt first, then
each measured call evaluates only the last prompt token and generates, so its tokens/s is the
generation speed. Greedy, in this process (the model worker adds one pipe round trip per call).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.server.backends.base import (
    BackendCancelled,
    Completion,
    CompletionRequest,
    ProgressSink,
    PromptForm,
    Usage,
)
from selfdebug.server.cancel import CancelToken

if TYPE_CHECKING:
    from selfdebug.bench.datasets import Problem

LONG = 1800.0  # s: a measurement on a slow or busy machine must finish, not hit a call deadline
# Measured in docs/bench/lookup-decoding.json (dev problems only).
DEFAULT_IDS = (
    "quixbugs/bitcount",
    "quixbugs/kheapsort",
    "quixbugs/lis",
    "humanevalfix/1",
    "humanevalfix/10",
    "humanevalfix/12",
)
# The dev sets beside the repository (run from its root).
DEFAULT_DATASETS = (
    Path("../shared/bench/quixbugs.dev.jsonl"),
    Path("../shared/bench/humanevalfix.dev.jsonl"),
)


@dataclass
class FixPrompt:
    id: str
    request: CompletionRequest


class _FirstCall:
    """A backend that records the session's first model request and stops the session there."""

    def __init__(self, backend: Any, cancel: CancelToken) -> None:
        self._backend = backend
        self._cancel = cancel
        self.name = backend.name
        self.prompt_form: PromptForm = backend.prompt_form
        self.usage = Usage()
        self.context_tokens = int(backend.load().llm.n_ctx())  # the engine fits its prompt in it
        self.request: CompletionRequest | None = None

    def count_tokens(self, text: str) -> int:
        return int(self._backend.count_tokens(text))

    def complete(
        self,
        request: CompletionRequest,
        cancel: CancelToken | None = None,
        on_text: Callable[[str], None] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Completion:
        self.request = request
        self._cancel.cancel("the first prompt is recorded")
        raise BackendCancelled("the first prompt is recorded")

    def close(self) -> None:
        pass


def load_dev_problems(datasets: list[Path], ids: list[str]) -> list[Problem]:
    from selfdebug.bench.datasets import load_problems, select_problems

    problems = [p for path in datasets for p in load_problems(path)]
    by_id = {p.id: p for p in select_problems(problems, ids)}
    return [by_id[i] for i in ids]


def fix_prompts(problems: list[Problem], backend: Any) -> list[FixPrompt]:
    """The turn-1 `ut` request the engine sends `backend` for each problem (its tests really
    run, in the problem's throwaway project)."""
    from selfdebug.bench.datasets import write_project
    from selfdebug.server.engine import run_session

    prompts = []
    for problem in problems:
        with tempfile.TemporaryDirectory(prefix="selfdebug-bench-") as tmp:
            project = write_project(problem, Path(tmp), problem.buggy, hidden=False)
            request = project.debug_request(problem, "ut", max_turns=1, test_timeout_s=5.0)
            cancel = CancelToken()
            recorder = _FirstCall(backend, cancel)
            run_session(request, recorder, cancel=cancel)
        if recorder.request is not None:
            prompts.append(FixPrompt(problem.id, recorder.request))
    return prompts


def compare(
    model: str = "",
    ids: list[str] | None = None,
    datasets: list[Path] | None = None,
    lookup_tokens: int | None = None,
    lookup_ngram: int | None = None,
    n_threads: int | None = None,
    max_tokens: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Each prompt answered greedily without and with lookup decoding, alternating; the figures
    per prompt and in total (the JSON of docs/bench/lookup-decoding.json)."""
    from selfdebug.server.backends.llama import LlamaBackend
    from selfdebug.server.backends.llama_local import LocalLlama
    from selfdebug.server.backends.settings import LOOKUP_NGRAM, LOOKUP_TOKENS

    tokens = LOOKUP_TOKENS if lookup_tokens is None else lookup_tokens
    ngram = LOOKUP_NGRAM if lookup_ngram is None else lookup_ngram
    path = LlamaBackend(model, notice=None, progress=None).model_file()
    plain = LocalLlama(path, n_threads=n_threads, lookup_tokens=0)
    lookup = LocalLlama(path, n_threads=n_threads, lookup_tokens=tokens, lookup_ngram=ngram)
    llm = plain.load().llm
    assert lookup.load() is plain.load()  # one model in memory: the same KV cache for both
    problems = load_dev_problems(datasets or list(DEFAULT_DATASETS), list(ids or DEFAULT_IDS))
    prompts = fix_prompts(problems, plain)

    rows = []
    for index, prompt in enumerate(prompts):
        request = replace(prompt.request, temperature=0.0, deadline_s=LONG, cold=False, n=1)
        if max_tokens is not None:
            request = replace(request, max_tokens=max_tokens)
        plain.complete(replace(request, max_tokens=1, cold=True))  # the prompt, in the KV cache
        order = [("plain", plain), ("lookup", lookup)]
        if index % 2:
            order.reverse()
        measured: dict[str, dict[str, Any]] = {}
        for label, backend in order:
            llm.lookup_stats = type(llm.lookup_stats)()
            started = time.monotonic()
            completion = backend.complete(request)
            seconds = time.monotonic() - started
            measured[label] = {
                "text": completion.text,
                "tokens": completion.completion_tokens,
                "seconds": round(seconds, 3),
                "tokens_per_s": round(completion.completion_tokens / seconds, 2),
                "cached_prompt_tokens": completion.cached_prompt_tokens,
                "lookup": llm.lookup_stats.as_dict() if label == "lookup" else None,
            }
        row = _row(prompt, request.max_tokens, measured, order[0][0])
        rows.append(row)
        if progress is not None:
            progress(_readable_row(row))
    info = plain.info()
    return {
        "model": info["model"],
        "n_threads": info["n_threads"],
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "lookup_tokens": tokens,
        "lookup_ngram": ngram,
        "prompts": rows,
        "total": _total(rows),
    }


def _row(
    prompt: FixPrompt, max_tokens: int, measured: dict[str, dict[str, Any]], first: str
) -> dict[str, Any]:
    plain, lookup = measured["plain"], measured["lookup"]
    return {
        "id": prompt.id,
        "prompt_tokens": plain["cached_prompt_tokens"] + 1,
        "max_tokens": max_tokens,
        "first": first,
        "plain": {k: v for k, v in plain.items() if k not in ("text", "lookup")},
        "lookup": {k: v for k, v in lookup.items() if k != "text"},
        "speedup": round(lookup["tokens_per_s"] / plain["tokens_per_s"], 3),
        "identical": plain["text"] == lookup["text"],
        "text_chars": len(plain["text"]),
    }


def _total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def rate(label: str) -> float:
        tokens = sum(row[label]["tokens"] for row in rows)
        seconds = sum(row[label]["seconds"] for row in rows)
        return round(tokens / seconds, 2) if seconds else 0.0

    drafted = sum(row["lookup"]["lookup"]["drafted"] for row in rows)
    accepted = sum(row["lookup"]["lookup"]["accepted"] for row in rows)
    steps = sum(row["lookup"]["lookup"]["steps"] for row in rows)
    emitted = sum(row["lookup"]["lookup"]["tokens"] for row in rows)
    plain_rate, lookup_rate = rate("plain"), rate("lookup")
    return {
        "plain_tokens_per_s": plain_rate,
        "lookup_tokens_per_s": lookup_rate,
        "speedup": round(lookup_rate / plain_rate, 3) if plain_rate else 0.0,
        "identical": sum(row["identical"] for row in rows),
        "prompts": len(rows),
        "acceptance": round(accepted / drafted, 3) if drafted else 0.0,
        "tokens_per_step": round(emitted / steps, 3) if steps else 0.0,
    }


def _readable_row(row: dict[str, Any]) -> str:
    stats = row["lookup"]["lookup"]
    return (
        f"{row['id']:<24} {row['prompt_tokens']:>5} prompt tok  "
        f"plain {row['plain']['tokens']:>4} tok {row['plain']['tokens_per_s']:>6.2f} tok/s  "
        f"lookup {row['lookup']['tokens']:>4} tok {row['lookup']['tokens_per_s']:>6.2f} tok/s  "
        f"{row['speedup']:.2f}x  accepted {stats['accepted']}/{stats['drafted']} "
        f"({stats['tokens_per_step']:.2f} tok/step)  "
        f"{'same text' if row['identical'] else 'TEXT DIFFERS'}"
    )


def readable(result: dict[str, Any]) -> str:
    total = result["total"]
    lines = [
        f"model {result['model']}, {result['n_threads']} threads, {result['cpus']} cpus, "
        f"load average {result['load_average']}; lookup: {result['lookup_tokens']} draft tokens, "
        f"n-grams up to {result['lookup_ngram']}",
        *(_readable_row(row) for row in result["prompts"]),
        f"total: plain {total['plain_tokens_per_s']:.2f} tok/s, lookup "
        f"{total['lookup_tokens_per_s']:.2f} tok/s: {total['speedup']:.2f}x (goal >= 1.8); "
        f"acceptance {total['acceptance']:.3f}, {total['tokens_per_step']:.2f} tokens per "
        f"evaluation; same text in {total['identical']}/{total['prompts']}",
    ]
    return "\n".join(lines)
