"""Time to locate + instrument + strip one function, over this interpreter's standard library.

`selfdebug bench instrument [--limit N] [--level L] [--json]`. Warm: every function, its file
already parsed (the language server asks about the buffer it has just parsed). Cold: the first
function of each file, the tree-sitter parse of the whole file included. Goal: warm median < 2 ms.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from selfdebug.bench.stats import latency_ms

GOAL_MEDIAN_MS = 2.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=2000, help="functions to time (0: all)")
    parser.add_argument(
        "--level", choices=("entry-return", "blocks", "lines"), default="lines",
        help="probe level to insert (default: lines, the most work)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _percentiles(samples: list[float]) -> dict[str, float]:
    median, p95, most = latency_ms(samples)
    return {"median_ms": median, "p95_ms": p95, "max_ms": most}


def measure(limit: int = 2000, level: str = "lines") -> dict[str, Any]:
    """Time each function of a fixed stdlib sample (the first `limit`; 0 = every function)."""
    from selfdebug.instrument import (
        InstrumentError,
        instrument_function,
        list_functions,
        locate_function,
        strip,
    )
    from selfdebug.instrument.corpus import shuffled_files, stdlib_root
    from selfdebug.instrument.source import clear_cache, parse

    def once(source: bytes, qualname: str, into: list[float], cpu_into: list[float]) -> None:
        started, cpu_started = time.perf_counter(), time.thread_time()
        location = locate_function(source, qualname)
        stripped = strip(instrument_function(source, location, level))
        into.append(time.perf_counter() - started)
        cpu_into.append(time.thread_time() - cpu_started)
        if stripped != source:
            raise AssertionError(f"strip is not exact for {qualname}")

    warm: list[float] = []
    cold: list[float] = []
    warm_cpu: list[float] = []
    cold_cpu: list[float] = []
    files = 0
    for path in shuffled_files():
        source = path.read_bytes()
        try:
            parse(source).raise_if_error()
            qualnames = [location.qualname for location in list_functions(source)]
        except InstrumentError:
            continue
        files += 1
        for index, qualname in enumerate(qualnames):
            if index == 0:  # a file just opened: its parse is part of the first request
                clear_cache()
                once(source, qualname, cold, cold_cpu)
            once(source, qualname, warm, warm_cpu)
            if limit and len(warm) >= limit:
                break
        if limit and len(warm) >= limit:
            break
    warm_figures = _percentiles(warm)
    return {
        "corpus": str(stdlib_root()),
        "level": level,
        "files": files,
        "functions": len(warm),
        **warm_figures,
        "cpu": _percentiles(warm_cpu),  # this thread's CPU time: what a busy machine hides
        "cold": {"functions": len(cold), **_percentiles(cold), "cpu": _percentiles(cold_cpu)},
        "goal_median_ms": GOAL_MEDIAN_MS,
        "meets_goal": warm_figures["median_ms"] < GOAL_MEDIAN_MS,
    }


def main(args: argparse.Namespace) -> int:
    figures = measure(limit=args.limit, level=args.level)
    if args.json:
        print(json.dumps(figures))
        return 0
    cold, cpu = figures["cold"], figures["cpu"]
    print(
        f"instrument ({figures['level']}): {figures['functions']} functions from "
        f"{figures['files']} stdlib files; locate + instrument + strip one function\n"
        f"  file already parsed: median {figures['median_ms']} ms, p95 {figures['p95_ms']} ms, "
        f"max {figures['max_ms']} ms (CPU: median {cpu['median_ms']} ms, p95 {cpu['p95_ms']} ms)\n"
        f"  first function of a file, parse included ({cold['functions']} files): median "
        f"{cold['median_ms']} ms, p95 {cold['p95_ms']} ms (CPU: median "
        f"{cold['cpu']['median_ms']} ms, p95 {cold['cpu']['p95_ms']} ms)\n"
        f"  goal: median < {figures['goal_median_ms']} ms -> "
        f"{'met' if figures['meets_goal'] else 'NOT met'}"
    )
    return 0
