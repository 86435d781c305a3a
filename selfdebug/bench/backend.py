"""Model speed on this machine: prompt-processing and generation tokens per second, and how much
prefix (KV) reuse saves on a later debugging turn.

A debugging session's turn 2 repeats turn 1's prompt (instructions, function, tests) and appends
~300 tokens (the model's answer and the new test feedback). The prefix-reuse ratio is turn 2's
prompt time over a cold evaluation of turn 1's prompt; the goal is <= 0.3.
Numbers come from real calls on the configured model (the default model when none), through the
model worker process selfdebug uses and through llama.cpp in this process, so the cost of the
worker is measured in the same run (goal: >= 0.95x of in-process throughput), with plain decoding.
`--lookup` measures prompt-lookup decoding on real fix prompts instead (selfdebug/bench/lookup.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from selfdebug.bench import lookup as lookup_bench
from selfdebug.bench.lookup import DEFAULT_DATASETS, DEFAULT_IDS

LONG = 1800.0  # s: a measurement on a slow or busy machine must finish, not hit a call deadline


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        metavar="NAME|PATH",
        default="",
        help="a known model (`selfdebug models`) or a GGUF file (default: the default model)",
    )
    parser.add_argument(
        "--gpu-layers", type=int, default=None, metavar="N", help="layers on the GPU (-1: all)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        help="CPU threads (default: physical cores)",
    )
    parser.add_argument(
        "--no-flash-attn", action="store_true", help="disable flash attention (to compare)"
    )
    parser.add_argument(
        "--where",
        choices=("both", "worker", "in-process"),
        default="both",
        help="the model process selfdebug uses (worker), llama.cpp in this process, or both",
    )
    parser.add_argument("--prompt-tokens", type=int, default=1500, help="turn-1 prompt size")
    parser.add_argument("--new-tokens", type=int, default=300, help="tokens turn 2 appends")
    parser.add_argument("--gen-tokens", type=int, default=64, help="tokens to generate")
    parser.add_argument("--repeats", type=int, default=1, help="repeat and report the median")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    lookup = parser.add_argument_group(
        "lookup decoding", "with --lookup: generation on real fix prompts with and without it"
    )
    lookup.add_argument(
        "--lookup",
        action="store_true",
        help="measure prompt-lookup decoding on the turn-1 prompts of dev problems instead",
    )
    lookup.add_argument(
        "--ids", nargs="+", default=None, help=f"dev problems (default {' '.join(DEFAULT_IDS)})"
    )
    lookup.add_argument(
        "--dataset",
        action="append",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"JSONL file (repeatable; default {' and '.join(map(str, DEFAULT_DATASETS))})",
    )
    lookup.add_argument(
        "--lookup-tokens", type=int, default=None, metavar="N", help="draft tokens per step"
    )
    lookup.add_argument(
        "--lookup-ngram", type=int, default=None, metavar="N", help="longest n-gram matched"
    )
    lookup.add_argument(
        "--max-tokens", type=int, default=None, help="answer length (default: the engine's)"
    )


def main(args: argparse.Namespace) -> int:
    from selfdebug.server.backends.base import BackendError

    if args.lookup:
        return _main_lookup(args)
    places = ["in-process", "worker"] if args.where == "both" else [args.where]
    results: dict[str, Any] = {}
    try:
        for where in places:
            results[where] = measure(
                model=args.model,
                where=where,
                n_gpu_layers=args.gpu_layers,
                n_threads=args.threads,
                flash_attn=not args.no_flash_attn,
                prompt_tokens=args.prompt_tokens,
                new_tokens=args.new_tokens,
                gen_tokens=args.gen_tokens,
                repeats=args.repeats,
            )
    except BackendError as error:
        print(f"selfdebug bench backend: {error}")
        return 1
    result = dict(results[places[-1]])
    result["where"] = places[-1]
    if len(places) == 2:
        inside, worker = results["in-process"], results["worker"]
        result["in_process"] = inside
        result["worker_vs_in_process"] = {
            key: round(worker[key] / inside[key], 3)
            for key in ("prompt_tokens_per_s", "generation_tokens_per_s")
        }
    if args.json:
        print(json.dumps(result))
    else:
        for where in places:
            print(f"[{where}]")
            print(_readable(results[where]))
        if "worker_vs_in_process" in result:
            ratios = result["worker_vs_in_process"]
            print(
                f"worker / in-process: prompt {ratios['prompt_tokens_per_s']:.3f}x, "
                f"generation {ratios['generation_tokens_per_s']:.3f}x (goal >= 0.95)"
            )
    return 0


def _main_lookup(args: argparse.Namespace) -> int:
    from selfdebug.bench.datasets import DatasetError
    from selfdebug.server.backends.base import BackendError

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        result = lookup_bench.compare(
            model=args.model,
            ids=[i for chunk in args.ids for i in chunk.split(",") if i] if args.ids else None,
            datasets=args.dataset,
            lookup_tokens=args.lookup_tokens,
            lookup_ngram=args.lookup_ngram,
            n_threads=args.threads,
            max_tokens=args.max_tokens,
            progress=progress,
        )
    except (BackendError, DatasetError) as error:
        print(f"selfdebug bench backend: {error}")
        return 1
    print(json.dumps(result) if args.json else lookup_bench.readable(result))
    return 0


def measure(
    model: str = "",
    where: str = "worker",
    n_gpu_layers: int | None = None,
    n_threads: int | None = None,
    flash_attn: bool = True,
    prompt_tokens: int = 1500,
    new_tokens: int = 300,
    gen_tokens: int = 64,
    repeats: int = 1,
) -> dict[str, Any]:
    import time

    from selfdebug.server.backends.base import CompletionRequest
    from selfdebug.server.backends.llama import LlamaBackend
    from selfdebug.server.backends.llama_local import LocalLlama

    n_ctx = max(2048, prompt_tokens + new_tokens + gen_tokens + 256)
    options: dict[str, Any] = {
        "n_gpu_layers": n_gpu_layers,
        "n_ctx": n_ctx,
        "n_threads": n_threads,
        "flash_attn": flash_attn,
    }
    backend: LocalLlama | LlamaBackend = LlamaBackend(
        model, keep_alive_s=600, lookup_decoding=False, **options
    )
    if where == "in-process":
        assert isinstance(backend, LlamaBackend)
        backend = LocalLlama(backend.model_file(), **options)
    started = time.monotonic()
    info = backend.info()  # loads the model
    load_s = time.monotonic() - started
    turn_1 = _text_of_tokens(backend, prompt_tokens, seed_line="# turn 1: the function and tests\n")
    feedback = _text_of_tokens(
        backend, new_tokens, seed_line="# turn 2: test feedback\n", start=9000
    )

    cold, warm, cached, evaluated_total = [], [], [], []
    cold_tokens = 0
    for _ in range(max(repeats, 1)):
        backend.reset()  # forget the KV prefix: a cold start for turn 1
        first = backend.complete(CompletionRequest(prompt=turn_1, max_tokens=1, deadline_s=LONG))
        second = backend.complete(
            CompletionRequest(prompt=turn_1 + feedback, max_tokens=1, deadline_s=LONG)
        )
        cold.append(first.prompt_seconds)
        warm.append(second.prompt_seconds)
        cached.append(second.cached_prompt_tokens)
        evaluated_total.append(second.prompt_tokens)
        cold_tokens = first.prompt_tokens

    backend.reset()
    generation = backend.complete(
        CompletionRequest(
            prompt="def fibonacci(n):\n", max_tokens=gen_tokens, temperature=0.0, deadline_s=LONG
        )
    )
    generated = max(generation.completion_tokens - 1, 1)  # the first token ends prompt time
    gen_seconds = max(generation.seconds - generation.prompt_seconds, 1e-9)
    if isinstance(backend, LlamaBackend):
        backend.worker().close()

    cold_s, warm_s = statistics.median(cold), statistics.median(warm)
    return {
        "model": info["model"],
        "n_gpu_layers": info["n_gpu_layers"],
        "n_threads": info["n_threads"],
        "n_threads_batch": info["n_threads_batch"],
        "flash_attn": flash_attn,
        "gpu_offload_supported": info["gpu_offload_supported"],
        "cpus": os.cpu_count(),
        "load_s": round(load_s, 3),
        "prompt_tokens": cold_tokens,
        "prompt_s": round(cold_s, 3),
        "prompt_tokens_per_s": round(cold_tokens / cold_s, 1),
        "generated_tokens": generated,
        "generation_tokens_per_s": round(generated / gen_seconds, 1),
        "turn2_prompt_tokens": evaluated_total[-1],
        "turn2_cached_tokens": cached[-1],
        "turn2_prompt_s": round(warm_s, 3),
        "prefix_reuse_ratio": round(warm_s / cold_s, 3),
        "prefix_reuse_goal": 0.3,
        "repeats": max(repeats, 1),
    }


def _text_of_tokens(backend: Any, count: int, seed_line: str, start: int = 0) -> str:
    """Python-like source of about `count` tokens (distinct lines, like real code and logs)."""
    lines = [seed_line]
    index = start
    while backend.count_tokens("".join(lines)) < count:
        factor = index % 13
        lines.append(f"def helper_{index}(values):\n    return [v * {factor} for v in values]\n")
        index += 1
    return "".join(lines)


def _readable(result: dict[str, Any]) -> str:
    ratio = result["prefix_reuse_ratio"]
    verdict = "meets" if ratio <= result["prefix_reuse_goal"] else "misses"
    return "\n".join(
        [
            f"model            {result['model']}  (gpu layers {result['n_gpu_layers']}, "
            f"offload supported: {result['gpu_offload_supported']}, threads {result['n_threads']}/"
            f"{result['n_threads_batch']}, flash attention {result['flash_attn']}, "
            f"cpus {result['cpus']})",
            f"load             {result['load_s']:.2f} s",
            f"prompt           {result['prompt_tokens_per_s']:.1f} tokens/s "
            f"({result['prompt_tokens']} tokens in {result['prompt_s']:.2f} s, cold)",
            f"generation       {result['generation_tokens_per_s']:.1f} tokens/s "
            f"({result['generated_tokens']} tokens)",
            f"turn 2 prompt    {result['turn2_prompt_s']:.2f} s for "
            f"{result['turn2_prompt_tokens']} tokens, {result['turn2_cached_tokens']} reused from "
            "the KV cache",
            f"prefix reuse     {ratio:.3f} x cold ({verdict} the goal <= "
            f"{result['prefix_reuse_goal']})",
        ]
    )
