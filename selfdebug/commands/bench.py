"""Benchmarks that print numbers: `selfdebug bench X` for each X in BENCHMARKS below.

Each benchmark lives in `selfdebug/bench/<name>.py` (a `-` in the name is a `_` in the module)
with `add_arguments`, `main` and `measure`; every one accepts `--json` and then prints a single
JSON object with its figures.
"""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS: dict[str, str] = {
    "instrument": "locate + instrument + strip time per function over the stdlib",
    "runner": "runner overhead over bare pytest, cold and warm shadow copy",
    "backend": "model prompt/generation tokens per second and prefix-reuse ratio",
    "lsp": "code-action listing latency over stdio, idle and during a session",
    "lsp-latency": "code-action latency on a small file while a 10 MB file is edited",
    "repair": "fix rate per feedback mode on a benchmark dataset",
    "overhead": "all the system's own overheads in one run",
    "search": "edit search: candidates judged per second and line-coverage overhead",
    "probes": "probe levels: whether the log shows the faulty line, its size and cost",
    "discover": "test discovery on a real suite: static vs executed, cold and cached",
    "real-check": "real-bug cases: the judge passes at the fix commit and fails with the bug",
    "localize": "real-bug cases from their failing test: where the buggy function ranks",
    "rejudge": "re-score a repair run's results with the strict judge (correct/plausible/wrong)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    for name, help_text in BENCHMARKS.items():
        module = importlib.import_module(f"selfdebug.bench.{name.replace('-', '_')}")
        bench = sub.add_parser(name, help=help_text, description=module.__doc__)
        module.add_arguments(bench)
        bench.set_defaults(_bench_main=module.main)
    parser.set_defaults(_bench_parser=parser)


def main(args: argparse.Namespace) -> int:
    run = getattr(args, "_bench_main", None)
    if run is None:
        args._bench_parser.print_help()
        return 2
    return int(run(args))
