"""Test discovery on a real suite: `selfdebug bench discover PROJECT FILE::FUNC ... [--json]`.

For each function (FILE relative to PROJECT), on a fresh runner (a cold shadow copy): the static
step alone (pytest's collection of the likely files, ranked by evidence), then the discovery the
CLI and the editor use (the likely files run once with the function's starts counted per test)
with an empty cache, then the same request again (answered from the cache). Prints the times and
how many tests were found statically, confirmed by running, found only by running (wrappers,
fixtures) and linked statically but never executing it; and how many tests the suite has.

The project's own interpreter is used with --interpreter (and --trust-project); the cache is a
temporary folder, never the user's.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass
class DiscoverFigures:
    target: str
    static_s: float
    static_tests: int  # with static evidence (any score)
    cold_s: float
    cached_s: float
    cached: bool  # the second request was answered from the cache
    confirmed: int  # tests that executed the function
    confirmed_static: int  # ... that the static step had linked too
    only_by_running: int  # ... that it had not
    static_not_executing: int  # linked statically, never ran it
    tests_run: int
    files_run: int
    summary: str
    error: str = ""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("project", help="the project's root (a checkout with a pytest suite)")
    parser.add_argument("targets", nargs="+", metavar="FILE::FUNC", help="relative to PROJECT")
    parser.add_argument("--interpreter", default=None, help="the project's Python")
    parser.add_argument("--trust-project", action="store_true", help="let its Python run")
    parser.add_argument("--budget", type=float, default=60.0, metavar="S", help="per request")
    parser.add_argument("--json", action="store_true")


def measure_one(
    project: Path, target: str, settings: Any, budget_s: float, cache_root: Path
) -> DiscoverFigures:
    from selfdebug.server.runner import DiscoveryError, ProjectRunner
    from selfdebug.server.runner.discover import static_discovery
    from selfdebug.server.runner.discover_exec import discover_tests
    from selfdebug.server.runner.discovery_cache import DiscoveryCache

    path, _, qualname = target.partition("::")
    file = project / path
    cache = DiscoveryCache(cache_root / target.replace("/", "_").replace(":", "_"))
    with ProjectRunner(project, settings) as runner:
        started = time.perf_counter()
        static = static_discovery(project, file, qualname, runner)
        static_s = time.perf_counter() - started
    static_ids = {c.nodeid for c in static.candidates}
    timings = []
    found = None
    error = ""
    for _request in range(2):  # each request on a fresh runner, as a new CLI process would
        with ProjectRunner(project, settings) as runner:
            started = time.perf_counter()
            try:
                found = discover_tests(
                    project, file, qualname, runner=runner, budget_s=budget_s, cache=cache
                )
            except DiscoveryError as failure:
                error = str(failure).splitlines()[0]
            timings.append(time.perf_counter() - started)
    confirmed = set(found.nodeids) if found else set()
    return DiscoverFigures(
        target=target,
        static_s=round(static_s, 2),
        static_tests=len(static_ids),
        cold_s=round(timings[0], 2),
        cached_s=round(timings[1], 3),
        cached=bool(found and found.cached),
        confirmed=len(confirmed),
        confirmed_static=len(confirmed & static_ids),
        only_by_running=len(confirmed - static_ids),
        static_not_executing=len(static_ids - confirmed) if found else 0,
        tests_run=found.tests_run if found else 0,
        files_run=len(found.files_run) if found else 0,
        summary=found.summary() if found else "",
        error=error,
    )


def suite_size(project: Path, settings: Any) -> tuple[int, int]:
    """(tests, test files) in pytest's own collection of the whole project."""
    from selfdebug.server.runner import ProjectRunner

    with ProjectRunner(project, settings) as runner:
        collected = runner.collect([])
    return len(collected.items), len({item.path for item in collected.items})


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from selfdebug.server.runner import RunnerSettings

    project = Path(args.project).resolve()
    settings = RunnerSettings(interpreter=args.interpreter, trust_project=args.trust_project)
    tests, files = suite_size(project, settings)
    with tempfile.TemporaryDirectory(prefix="selfdebug-bench-discover-") as cache_root:
        figures = [
            measure_one(project, target, settings, args.budget, Path(cache_root))
            for target in args.targets
        ]
    return {
        "project": project.name,
        "suite_tests": tests,
        "suite_files": files,
        "budget_s": args.budget,
        "targets": [asdict(f) for f in figures],
    }


def main(args: argparse.Namespace) -> int:
    result = measure(args)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"discovery on {result['project']}: {result['suite_tests']} tests in "
        f"{result['suite_files']} files (budget {result['budget_s']:g} s per request)"
    )
    header = (
        f"{'target':<44} {'static':>7} {'tests':>5} {'cold':>7} {'cached':>7} "
        f"{'exec':>5} {'both':>5} {'run only':>8} {'static only':>11} {'ran':>5}"
    )
    print(header)
    for f in result["targets"]:
        print(
            f"{f['target'][:44]:<44} {f['static_s']:>6.2f}s {f['static_tests']:>5} "
            f"{f['cold_s']:>6.2f}s {f['cached_s']:>6.3f}s {f['confirmed']:>5} "
            f"{f['confirmed_static']:>5} {f['only_by_running']:>8} "
            f"{f['static_not_executing']:>11} {f['tests_run']:>5}"
        )
    print()
    for f in result["targets"]:
        print(f"{f['target']}: {f['summary'] or f['error']}")
    print(
        "\nstatic: collection + static ranking alone; cold: the discovery the CLI and editor use, "
        "empty cache, fresh shadow copy; cached: the same request again; exec: tests that "
        "executed the function (both: also linked statically; run only: found only by running; "
        "static only: linked statically, never ran it); ran: tests run to find out"
    )
    return 0
