"""Model speed on this machine: prompt-processing and generation tokens per second, and how much
prefix (KV) reuse saves on a later debugging turn.

A debugging session's turn 2 repeats turn 1's prompt (instructions, function, tests) and appends
~300 tokens (the model's answer and the new test feedback). The prefix-reuse ratio is turn 2's
prompt time over a cold evaluation of turn 1's prompt; the goal is <= 0.3.
Numbers come from real calls through LlamaBackend.complete on the configured GGUF (embedded
Gemma 3 270M when none).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", metavar="PATH", default="", help="GGUF file (default: embedded)")
    parser.add_argument(
        "--gpu-layers", type=int, default=None, metavar="N", help="layers on the GPU (-1: all)"
    )
    parser.add_argument("--threads", type=int, default=None, metavar="N", help="CPU threads")
    parser.add_argument(
        "--no-flash-attn", action="store_true", help="disable flash attention (to compare)"
    )
    parser.add_argument("--prompt-tokens", type=int, default=1500, help="turn-1 prompt size")
    parser.add_argument("--new-tokens", type=int, default=300, help="tokens turn 2 appends")
    parser.add_argument("--gen-tokens", type=int, default=64, help="tokens to generate")
    parser.add_argument("--repeats", type=int, default=1, help="repeat and report the median")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def main(args: argparse.Namespace) -> int:
    from selfdebug.server.backends.base import BackendError

    try:
        result = measure(
            model_path=args.model or None,
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
    if args.json:
        print(json.dumps(result))
    else:
        print(_readable(result))
    return 0


def measure(
    model_path: str | None = None,
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

    n_ctx = max(2048, prompt_tokens + new_tokens + gen_tokens + 256)
    backend = LlamaBackend(
        model_path,
        n_gpu_layers=n_gpu_layers,
        n_ctx=n_ctx,
        n_threads=n_threads,
        flash_attn=flash_attn,
    )
    started = time.monotonic()
    model = backend.load()
    load_s = time.monotonic() - started
    llm = model.llm
    turn_1 = _text_of_tokens(llm, prompt_tokens, seed_line="# turn 1: the function and tests\n")
    feedback = _text_of_tokens(llm, new_tokens, seed_line="# turn 2: test feedback\n", start=9000)

    cold, warm, cached, evaluated_total = [], [], [], []
    for _ in range(max(repeats, 1)):
        llm.reset()  # forget the KV prefix: a cold start for turn 1
        first = backend.complete(CompletionRequest(prompt=turn_1, max_tokens=1))
        second = backend.complete(CompletionRequest(prompt=turn_1 + feedback, max_tokens=1))
        cold.append(first.prompt_seconds)
        warm.append(second.prompt_seconds)
        cached.append(second.cached_prompt_tokens)
        evaluated_total.append(second.prompt_tokens)
        cold_tokens = first.prompt_tokens

    llm.reset()
    generation = backend.complete(
        CompletionRequest(prompt="def fibonacci(n):\n", max_tokens=gen_tokens, temperature=0.0)
    )
    generated = max(generation.completion_tokens - 1, 1)  # the first token ends prompt time
    gen_seconds = max(generation.seconds - generation.prompt_seconds, 1e-9)

    cold_s, warm_s = statistics.median(cold), statistics.median(warm)
    return {
        "model": os.path.basename(model.params.model_path),
        "n_gpu_layers": model.params.n_gpu_layers,
        "n_threads": llm.n_threads,
        "n_threads_batch": llm.n_threads_batch,
        "flash_attn": model.params.flash_attn,
        "gpu_offload_supported": _gpu_offload_supported(),
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


def _text_of_tokens(llm: Any, count: int, seed_line: str, start: int = 0) -> str:
    """Python-like source of about `count` tokens (distinct lines, like real code and logs)."""
    lines = [seed_line]
    index = start
    while len(llm.tokenize("".join(lines).encode(), add_bos=False)) < count:
        factor = index % 13
        lines.append(f"def helper_{index}(values):\n    return [v * {factor} for v in values]\n")
        index += 1
    return "".join(lines)


def _gpu_offload_supported() -> bool:
    from selfdebug.server.backends.llama_loader import import_llama_cpp

    return bool(import_llama_cpp().llama_supports_gpu_offload())


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
