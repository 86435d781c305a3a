"""Edit-search speed: `selfdebug bench search [--dataset FILE.jsonl --id ID] [--json]`.

Judges up to `--edits` candidate edits of one QuixBugs-sized function (our built-in one, or a
dataset problem with its visible and hidden tests) through the real runner, many candidates per
test process, and prints `candidates_per_s` (edits judged / wall seconds of the judging, process
starts included, and the generated-input check of the edits that pass (judge_survivors)
with them; goal >= 20/s on 2 cores) and `coverage_overhead`: the localization run (the
tests with line coverage of the target, through the runner) / a plain run of the same tests
through the runner, medians of `--repeats`; goal < 1.5. Also `coverage_overhead_tests_only`:
the tests' own time with tracing / without, in one process, each test's fastest of the repeats
(noise on a shared machine only ever adds time): the cost of tracing itself.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES_GOAL = 20.0
OVERHEAD_GOAL = 1.5

_MODULE = '''def first_at_least(values, target):
    """Index of the first element >= target in sorted `values` (len(values) when none)."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] <= target:
            lo = mid + 1
        else:
            hi = mid
    return lo
'''
_TESTS = """from search_target import first_at_least


def test_empty():
    assert first_at_least([], 3) == 0


def test_all_smaller():
    assert first_at_least([1, 2], 3) == 2


def test_all_larger():
    assert first_at_least([5, 6, 7], 3) == 0


def test_between():
    assert first_at_least([1, 4, 9], 5) == 2


def test_equal_first():
    assert first_at_least([3, 3, 4], 3) == 0


def test_equal_middle():
    assert first_at_least([1, 3, 5, 7], 5) == 2


def test_long():
    values = list(range(0, 200, 2))
    assert first_at_least(values, 51) == 26


def test_long_equal():
    values = list(range(0, 200, 2))
    assert first_at_least(values, 50) == 25
"""


def _builtin_project(root: Path) -> tuple[Path, str, list[str]]:
    (root / "search_target.py").write_text(_MODULE, encoding="utf-8")
    (root / "test_search_target.py").write_text(_TESTS, encoding="utf-8")
    names = [line[4:].split("(")[0] for line in _TESTS.splitlines() if line.startswith("def ")]
    return (
        root / "search_target.py",
        "first_at_least",
        [f"test_search_target.py::{n}" for n in names],
    )


def _dataset_project(root: Path, dataset: str, problem_id: str) -> tuple[Path, str, list[str]]:
    from selfdebug.bench.datasets import load_problems, select_problems, write_project

    problem = select_problems(load_problems(Path(dataset)), [problem_id])[0]
    project = write_project(problem, root, problem.buggy, hidden=True)
    return project.module, problem.entry_point, (project.visible_test_ids + project.hidden_test_ids)


def measure(
    dataset: str | None = None,
    problem_id: str | None = None,
    edits: int = 300,
    repeats: int = 3,
    isolation: str = "auto",
) -> dict[str, Any]:
    from selfdebug.server.engine.judge.context import SearchSettings
    from selfdebug.server.engine.search.edit_search import candidate_edits, localize
    from selfdebug.server.engine.search.localize import SuspiciousLine
    from selfdebug.server.engine.target import locate
    from selfdebug.server.runner import ProjectRunner, RunnerSettings
    from selfdebug.server.runner.search_runner import CandidateCode, SearchRunner

    with tempfile.TemporaryDirectory(prefix="selfdebug-bench-search-") as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        if dataset and problem_id:
            module, qualname, tests = _dataset_project(root, dataset, problem_id)
        else:
            module, qualname, tests = _builtin_project(root)
        source = module.read_text(encoding="utf-8")
        target = locate(source, qualname)
        settings = RunnerSettings(isolation=isolation)  # type: ignore[arg-type]
        with ProjectRunner(root, settings) as runner:
            searcher = SearchRunner(runner, module, qualname, source)
            localization = None
            best: dict[str, list[float]] = {}  # nodeid -> [plain, covered], fastest of repeats
            plain_runs, covered_runs = [], []
            for _ in range(repeats):
                started = time.monotonic()  # what the user waits for: a whole run either way
                runner.run(tests)
                plain_runs.append(time.monotonic() - started)
                started = time.monotonic()
                localization, coverage = localize(searcher, target, tests)
                covered_runs.append(time.monotonic() - started)
                if coverage.error:
                    raise RuntimeError(f"coverage run failed: {coverage.error}")
                measured = searcher.coverage(tests, measure=True)
                for nodeid, test in measured.tests.items():
                    times = best.setdefault(nodeid, [test.plain_s, test.covered_s])
                    times[0], times[1] = min(times[0], test.plain_s), min(times[1], test.covered_s)
            assert localization is not None
            # every line the tests run, so the count reaches --edits on a short function
            lines = localization.lines or [
                SuspiciousLine(n, 0.0, 0, 0, 0, 0)
                for n in range(target.def_line + 2, target.end_line + 1)
            ]
            wanted = SearchSettings(max_edits=edits, top_lines=len(lines))
            candidates = candidate_edits(target, lines, wanted)
            codes = [CandidateCode(i, e.code, target.start_line + 1) for i, e in
                     enumerate(candidates)]  # fmt: skip
            started = time.monotonic()
            judged = searcher.judge(codes, tests[:1], tests[1:], stop_after=0)
            seconds = time.monotonic() - started
            if judged.error:
                raise RuntimeError(f"judging failed: {judged.error}")
            check = _crosscheck(searcher, qualname, candidates, judged, tests, target)
    rate = len(judged.verdicts) / (seconds + check.seconds) if seconds > 0 else 0.0
    plain = sum(t[0] for t in best.values())
    in_process = sum(t[1] for t in best.values()) / plain if plain > 0 else 0.0
    overhead = statistics.median(covered_runs) / statistics.median(plain_runs)
    timed_out = sum(v.timed_out for v in judged.verdicts.values())
    return {
        "problem": problem_id or "builtin:first_at_least",
        "tests": len(tests),
        "edits": len(candidates),
        "judged": len(judged.verdicts),
        "timed_out": timed_out,
        "judge_seconds": round(seconds, 3),
        "crosscheck_seconds": round(check.seconds, 3),
        "crosscheck_versions": len(check.outcomes) - 1 if check.outcomes else 0,
        "crosscheck_inputs": len(check.inputs),
        "candidates_per_s": round(rate, 1),
        "coverage_overhead": round(overhead, 3),
        "plain_run_s": round(statistics.median(plain_runs), 3),
        "covered_run_s": round(statistics.median(covered_runs), 3),
        "coverage_overhead_tests_only": round(in_process, 3),
        "suspicious_lines": [s.line for s in localization.lines[:5]],
        "goal_candidates_per_s": CANDIDATES_GOAL,
        "goal_coverage_overhead": OVERHEAD_GOAL,
        "meets_goals": rate >= CANDIDATES_GOAL and overhead < OVERHEAD_GOAL,
        "meets_overhead_goal_tests_only": in_process < OVERHEAD_GOAL,
        "isolation": isolation,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }


def _crosscheck(
    searcher: Any, qualname: str, candidates: Any, judged: Any, tests: Any, target: Any
) -> Any:
    """The generated-input check of a search (judge/verdicts.py): the distinct edits that
    pass every test, at most MAX_CHECKED, and the original on the generated inputs."""
    from selfdebug.server.engine.judge.survivors import behaviour_key
    from selfdebug.server.engine.judge.verdicts import MAX_CHECKED
    from selfdebug.server.runner.search_runner import CandidateCode

    passing, seen = [], set()
    for index, verdict in sorted(judged.verdicts.items()):
        outcomes = verdict.outcomes
        if verdict.timed_out or len(outcomes) < len(tests):
            continue
        if all(o == "passed" for o in outcomes.values()):
            key = behaviour_key(candidates[index].code)
            if key not in seen:
                seen.add(key)
                passing.append(CandidateCode(index, candidates[index].code, target.start_line + 1))
    check = searcher.crosscheck(passing[:MAX_CHECKED], tests)
    if check.error:
        raise RuntimeError(f"generated-input check failed: {check.error}")
    return check


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", help="a dataset JSONL (default: a built-in function)")
    parser.add_argument("--id", dest="problem_id", help="the problem id in --dataset")
    parser.add_argument("--edits", type=int, default=300, metavar="N", help="edits to judge")
    parser.add_argument("--repeats", type=int, default=3, metavar="N", help="coverage runs")
    parser.add_argument("--isolation", choices=("auto", "bwrap", "rlimits"), default="auto")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def main(args: argparse.Namespace) -> int:
    if bool(args.dataset) != bool(args.problem_id):
        print("selfdebug bench search: --dataset and --id go together")
        return 2
    from selfdebug.bench.datasets import DatasetError

    try:
        figures = measure(args.dataset, args.problem_id, args.edits, args.repeats, args.isolation)
    except DatasetError as error:
        print(f"selfdebug bench search: {error}")
        return 2
    if args.json:
        print(json.dumps(figures))
        return 0
    goal = "meets" if figures["meets_goals"] else "misses"
    print(f"edit search on {figures['problem']} ({figures['tests']} tests)")
    print(
        f"  {figures['judged']} edits judged in {figures['judge_seconds']} s: "
        f"{figures['candidates_per_s']} candidates/s (goal >= {CANDIDATES_GOAL:g}), "
        f"{figures['timed_out']} timed out"
    )
    print(
        f"  generated-input check: {figures['crosscheck_versions']} passing edits and the "
        f"original on {figures['crosscheck_inputs']} inputs in {figures['crosscheck_seconds']} s"
        " (counted in candidates/s)"
    )
    print(
        f"  coverage overhead {figures['coverage_overhead']}x a plain run "
        f"({figures['covered_run_s']} s / {figures['plain_run_s']} s; goal < {OVERHEAD_GOAL:g}),"
        f" {figures['coverage_overhead_tests_only']}x counting the tests' own time only; "
        f"{goal} the goals"
    )
    print(f"  suspicious lines: {figures['suspicious_lines']}")
    print(f"load average {figures['load_average_1min']} on {figures['cpus']} CPUs")
    return 0
