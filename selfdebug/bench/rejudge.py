"""Re-score a finished repair run with the strict judge: `selfdebug bench rejudge --results DIR
--out OUT [--dataset PATH] [--repos DIR] [--env-cache DIR]`.

Why: reports made before the judge existed say "fixed" for every candidate that passed the
tests; this gives them the correct / plausible / wrong verdicts without running any session.
Each result's candidate is rebuilt from its `diff` (against the buggy code: a QuixBugs or
HumanEvalFix record's `buggy` module as candidate.py, or a real case's buggy clone), scored
again by the judge tests and judged (judge.py). The same report files as `bench repair` are
written to OUT, with results.jsonl; an interrupted rejudge continues where it stopped. A real
case's visible tests are the found tests its result kept (the first 50).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from selfdebug.bench.datasets import DatasetError, Problem
from selfdebug.bench.project_env import DEFAULT_ENV_CACHE
from selfdebug.bench.real_cases import CaseError, RealCase
from selfdebug.bench.repair import (
    CONFIG_FILE,
    RESULTS_FILE,
    _load,
    _ResultsLog,
    load_outcomes,
    score_candidate,
    write_report,
)
from selfdebug.bench.repair_report import ProblemOutcome, render_markdown


class PatchError(ValueError):
    """A result's diff does not apply to the buggy code (truncated, or another dataset)."""


def apply_diff(folder: Path, diff: str) -> None:
    """Apply a unified diff (paths a/... b/...) to the files under `folder`."""
    completed = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        cwd=folder,
        input=diff,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        lines = (completed.stderr or completed.stdout).strip().splitlines()
        raise PatchError(f"the diff does not apply: {lines[-1] if lines else 'git apply failed'}")


def candidate_module(problem: Problem, diff: str) -> str:
    """The proposed candidate.py: the diff applied to the record's buggy module."""
    from selfdebug.bench.datasets import MODULE_FILE

    with tempfile.TemporaryDirectory(prefix="selfdebug-rejudge-") as tmp:
        path = Path(tmp) / MODULE_FILE
        path.write_text(problem.buggy, encoding="utf-8")
        apply_diff(Path(tmp), diff)
        return path.read_text(encoding="utf-8")


def _rescore_problem(problem: Problem, outcome: ProblemOutcome, test_timeout_s: float) -> None:
    text = candidate_module(problem, outcome.diff)
    with tempfile.TemporaryDirectory(prefix="selfdebug-rejudge-") as tmp:
        scores = score_candidate(problem, text, Path(tmp) / "score", test_timeout_s)
    for key, value in scores.items():
        setattr(outcome, key, value)


def _rescore_real(case: RealCase, outcome: ProblemOutcome, args: argparse.Namespace) -> None:
    from selfdebug.bench.project_env import ensure_environment, hold
    from selfdebug.bench.real_cases import clone_case
    from selfdebug.bench.real_repair import score_real
    from selfdebug.server.runner import RunnerSettings

    with tempfile.TemporaryDirectory(prefix="selfdebug-rejudge-") as tmp:
        clone = clone_case(case, args.repos, Path(tmp) / "score" / case.checkout, buggy=True)
        apply_diff(clone, outcome.diff)
        with hold(case, clone, args.env_cache):
            python = args.python or ensure_environment(case, clone, args.env_cache)
            settings = RunnerSettings(interpreter=str(python), test_timeout_s=args.test_timeout)
            visible = list(outcome.found_tests)
            scores = score_real(case, clone, visible, settings, repos=args.repos)
    outcome.visible_total = len(visible)
    for key, value in scores.items():
        setattr(outcome, key, value)


def rejudge(args: argparse.Namespace, *, show: bool = True) -> dict[str, Any]:
    """Every result of `args.results` with a candidate, scored again and judged, into args.out."""
    results: Path = args.results
    previous: dict[str, Any] = {}
    if (results / CONFIG_FILE).is_file():
        previous = json.loads((results / CONFIG_FILE).read_text(encoding="utf-8"))
    datasets = [Path(d) for d in (args.dataset or previous.get("datasets", []))]
    if not datasets:
        raise DatasetError(f"{results}: no {CONFIG_FILE} naming the datasets; give --dataset")
    if args.test_timeout is None:
        args.test_timeout = float(previous.get("test_timeout_s", 5.0))
    known = {case.id: case for dataset in datasets for case in _load(dataset)}
    outcomes = load_outcomes(results)
    if not outcomes:
        raise DatasetError(f"{results}: no results in {RESULTS_FILE}")
    if args.ids:
        outcomes = {k: o for k, o in outcomes.items() if o.id in set(args.ids)}
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    record = {
        **previous,
        "datasets": [str(d) for d in datasets],
        "rejudged_from": str(results),
    }
    (out / CONFIG_FILE).write_text(json.dumps(record, indent=2), encoding="utf-8")
    done = load_outcomes(out)
    log = _ResultsLog(out / RESULTS_FILE)
    for key, outcome in sorted(outcomes.items()):
        if key in done:
            continue
        started = time.monotonic()
        problem = known.get(outcome.id)
        if outcome.has_candidate and outcome.stop_reason != "cancelled" and problem is not None:
            try:
                if isinstance(problem, RealCase):
                    _rescore_real(problem, outcome, args)
                elif isinstance(problem, Problem):  # an everyday case's is its hidden check's
                    _rescore_problem(problem, outcome, args.test_timeout)
            except (PatchError, CaseError) as error:
                outcome.verdict, outcome.verdict_how = "", f"not rejudged: {error}"[:500]
        elif outcome.has_candidate:
            outcome.verdict_how = "not rejudged: the problem is not in the dataset"
        log.append(outcome)
        if show:
            print(
                f"{outcome.mode} {outcome.id}: {outcome.judged or '-'} "
                f"({time.monotonic() - started:.0f} s) {outcome.differs_on or outcome.verdict_how}",
                file=sys.stderr,
                flush=True,
            )
    final = [o for k, o in load_outcomes(out).items() if k in outcomes]
    modes = list(dict.fromkeys(o.mode for o in final))
    ids = {o.id for o in final}
    return write_report(out, final, modes, record, len(ids))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results", type=Path, required=True, help="a repair run's folder (results.jsonl)"
    )
    parser.add_argument("--out", type=Path, required=True, help="where the new report goes")
    parser.add_argument(
        "--dataset",
        action="append",
        type=Path,
        default=None,
        help="JSONL file or real-case folder (default: the run's config.json) (repeatable)",
    )
    parser.add_argument("--repos", type=Path, default=None, help="real cases: git checkouts")
    parser.add_argument(
        "--env-cache",
        type=Path,
        default=DEFAULT_ENV_CACHE,
        help="real cases: where the projects' environments are kept",
    )
    parser.add_argument(
        "--python", type=Path, default=None, help="real cases: this interpreter, no environments"
    )
    parser.add_argument(
        "--test-timeout", type=float, default=None, help="seconds per test (default: the run's)"
    )
    parser.add_argument("--ids", nargs="+", default=None, help="only these problem ids")
    parser.add_argument("--json", action="store_true", help="print report.json instead of markdown")


def main(args: argparse.Namespace) -> int:
    try:
        report = rejudge(args)
    except (DatasetError, CaseError, ValueError, OSError) as error:
        print(f"selfdebug bench rejudge: {error}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else render_markdown(report))
    return 0


def measure(**kwargs: Any) -> dict[str, Any]:
    """The rejudged report as a dict; `kwargs` are the command's options (results=, out=, ...)."""
    defaults: dict[str, Any] = {
        "dataset": None,
        "repos": None,
        "env_cache": DEFAULT_ENV_CACHE,
        "python": None,
        "test_timeout": None,
        "ids": None,
        "json": False,
    }
    return rejudge(argparse.Namespace(**{**defaults, **kwargs}), show=False)
