"""Probe level: `selfdebug bench probes --dataset FILE.jsonl [--levels blocks,lines] [--json]`.

Which automatic-probe level gives the model the evidence it needs, measured without a model:
for every problem, the first failing visible test runs once per level on the buggy code with
probes, through the probe mode's own steps (`instrument_function`, the runner with probes,
`feedback.format_log` at the session's log size), and we count what the model would read:
- `shows_fault`: the log as shown (after the cut) quotes a faulty line, one the reference fix
  changes (for a pure insertion, the lines around it);
- the log's size in characters and records, whether it was cut;
- the probed run's time against a plain run of the same test.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

LEVELS = ("entry-return", "blocks", "lines")  # instrument/probes.py, cheapest first
_LOG_LINE = re.compile(r"^line (\d+)\b")


@dataclass
class LevelOutcome:
    level: str
    shows_fault: bool = False
    records: int = 0
    log_chars: int = 0
    cut: bool = False
    probed_s: float = 0.0
    error: str = ""


@dataclass
class ProblemProbes:
    id: str
    failing_test: str = ""
    faulty_lines: list[int] = field(default_factory=list)  # file lines of the buggy module
    plain_s: float = 0.0
    levels: list[LevelOutcome] = field(default_factory=list)
    skipped: str = ""  # why no level ran (no failing visible test, ...)


def faulty_lines(buggy: str, fixed: str) -> list[int]:
    """1-based lines of `buggy` that the reference fix changes or removes; for a pure insertion,
    the lines before and after it (where a log would show the missing step's effect)."""
    old, new = buggy.splitlines(), fixed.splitlines()
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lines.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            lines.update(n for n in (i1, i1 + 1) if 0 < n <= len(old))
    return sorted(n for n in lines if old[n - 1].strip())


def shown_lines(log: str, function_start_0based: int) -> set[int]:
    """File lines the formatted log has entries for (its "line N" is relative to the function)."""
    found = set()
    for text in log.splitlines():
        match = _LOG_LINE.match(text)
        if match:
            found.add(int(match.group(1)) + function_start_0based)
    return found


def measure_problem(problem: Any, levels: list[str], test_timeout_s: float) -> ProblemProbes:
    from selfdebug.bench.datasets import write_project
    from selfdebug.instrument import instrument_function
    from selfdebug.server.engine import feedback
    from selfdebug.server.engine.target import locate
    from selfdebug.server.engine.types import ModelOptions
    from selfdebug.server.runner import ProjectRunner, RunnerSettings

    outcome = ProblemProbes(problem.id, faulty_lines=faulty_lines(problem.buggy, problem.fixed))
    log_chars = ModelOptions().log_chars  # the default
    with tempfile.TemporaryDirectory(prefix="selfdebug-probes-") as tmp:
        project = write_project(problem, Path(tmp) / "work", problem.buggy, hidden=False)
        target = locate(problem.buggy, problem.entry_point)
        settings = RunnerSettings(test_timeout_s=test_timeout_s)
        with ProjectRunner(project.root, settings) as runner:
            started = time.monotonic()
            plain = runner.run(list(project.visible_test_ids))
            failing = feedback.first_failing(plain)
            if failing is None:
                outcome.skipped = "no visible test fails on the buggy code"
                return outcome
            outcome.failing_test = failing
            started = time.monotonic()
            runner.run([failing])
            outcome.plain_s = round(time.monotonic() - started, 3)
            for level in levels:
                result = LevelOutcome(level)
                outcome.levels.append(result)
                try:
                    probed = instrument_function(
                        problem.buggy.encode("utf-8"), problem.entry_point, level
                    ).decode("utf-8")
                except Exception as error:  # any instrumenter failure: reported per level
                    result.error = f"{type(error).__name__}: {error}"
                    continue
                started = time.monotonic()
                run = runner.run([failing], overrides={project.module: probed}, probes=True)
                result.probed_s = round(time.monotonic() - started, 3)
                test = run.by_id().get(failing) or (run.tests[0] if run.tests else None)
                records = test.probes if test is not None else []
                log = feedback.format_log(
                    records,
                    target.start_line,
                    log_chars,
                    capped=bool(test and test.probes_truncated),
                    code=target.code,
                )
                result.records = len(records)
                result.log_chars = len(log)
                result.cut = "lines left out]" in log or "truncated by the probe limit" in log
                shown = shown_lines(log, target.start_line)
                result.shows_fault = bool(shown & set(outcome.faulty_lines))
    return outcome


def summarize(outcomes: list[ProblemProbes], levels: list[str]) -> dict[str, Any]:
    measured = [o for o in outcomes if not o.skipped]
    summary: dict[str, Any] = {"problems": len(outcomes), "measured": len(measured), "levels": {}}
    for level in levels:
        rows = [r for o in measured for r in o.levels if r.level == level and not r.error]
        ratios = [
            r.probed_s / o.plain_s
            for o in measured
            for r in o.levels
            if r.level == level and not r.error and o.plain_s > 0
        ]
        summary["levels"][level] = {
            "runs": len(rows),
            "errors": sum(1 for o in measured for r in o.levels if r.level == level and r.error),
            "shows_fault": sum(r.shows_fault for r in rows),
            "cut": sum(r.cut for r in rows),
            "median_log_chars": statistics.median([r.log_chars for r in rows]) if rows else 0,
            "median_records": statistics.median([r.records for r in rows]) if rows else 0,
            "median_time_ratio": round(statistics.median(ratios), 2) if ratios else 0.0,
        }
    return summary


def render_markdown(summary: dict[str, Any], datasets: list[str]) -> str:
    lines = [
        "## Probe levels: what the probe log shows the model (no model involved)",
        "",
        f"Datasets: {', '.join(datasets)}; {summary['measured']} of {summary['problems']} "
        "problems have a failing visible test on the buggy code.",
        "shows fault = the log as shown (after its cut) has an entry at a line the reference fix "
        "changes; time = probed run / plain run of the failing test.",
        "",
        "| level | runs | shows fault | log cut | median log chars | median records | time |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for level, s in summary["levels"].items():
        lines.append(
            f"| {level} | {s['runs']} | {s['shows_fault']} | {s['cut']} | "
            f"{s['median_log_chars']:g} | {s['median_records']:g} | {s['median_time_ratio']}x |"
        )
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", action="append", required=True, help="JSONL (repeatable)")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma list")
    parser.add_argument("--limit", type=int, default=None, help="first N problems per dataset")
    parser.add_argument("--test-timeout", type=float, default=5.0, help="seconds per test")
    parser.add_argument("--out", type=Path, default=None, help="write report.md/.json here")
    parser.add_argument("--json", action="store_true", help="print the JSON report")


def measure(
    datasets: list[str],
    levels: list[str] | None = None,
    limit: int | None = None,
    test_timeout_s: float = 5.0,
) -> dict[str, Any]:
    from selfdebug.bench.datasets import load_problems, select_problems

    levels = levels or list(LEVELS)
    outcomes = []
    for dataset in datasets:
        for problem in select_problems(load_problems(Path(dataset)), limit=limit):
            outcomes.append(measure_problem(problem, levels, test_timeout_s))
    return {
        "datasets": datasets,
        "summary": summarize(outcomes, levels),
        "problems": [asdict(o) for o in outcomes],
    }


def main(args: argparse.Namespace) -> int:
    levels = [lvl.strip() for lvl in args.levels.split(",") if lvl.strip()]
    unknown = [lvl for lvl in levels if lvl not in LEVELS]
    if unknown:
        print(f"unknown level(s) {', '.join(unknown)}; choose from {', '.join(LEVELS)}")
        return 2
    report = measure(args.dataset, levels, args.limit, args.test_timeout)
    markdown = render_markdown(report["summary"], report["datasets"])
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
        (args.out / "report.md").write_text(markdown, encoding="utf-8")
    print(json.dumps(report, indent=2) if args.json else markdown)
    return 0
