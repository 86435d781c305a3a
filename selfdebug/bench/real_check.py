"""Check every real-bug case: `selfdebug bench real-check --dataset docs/bench/real --repos DIR`.

A case is only worth measuring if it is what it claims: at the fix commit the judge test files
pass, with the bug patch applied at least one of them fails, and the patch changes the named
function only (its lines; nothing else in the file, no test file). Each case is checked in fresh
clones with the project's own environment (made once per project, see `project_env.py`), through
the same runner the benchmark uses. Prints one row per case; exits 1 when any case is broken.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.bench.project_env import DEFAULT_ENV_CACHE
from selfdebug.bench.real_cases import (
    CaseError,
    RealCase,
    cases_with_ids,
    clone_case,
    patched_paths,
    requested_ids,
)


@dataclass
class CaseCheck:
    id: str
    ok: bool = False
    problem: str = ""
    fixed_passed: int = 0
    fixed_total: int = 0
    buggy_passed: int = 0
    buggy_total: int = 0
    failing: list[str] = field(default_factory=list)  # judge tests the bug makes fail
    seconds: float = 0.0


def only_function_changed(case: RealCase, fixed_text: str, buggy_text: str) -> str:
    """What is wrong with the patch; empty when the texts differ only inside the function."""
    from selfdebug.server.engine.target import TargetNotFound, locate

    try:
        before, after = locate(fixed_text, case.qualname), locate(buggy_text, case.qualname)
    except TargetNotFound as error:
        return f"{case.function}: {error}"
    fixed_lines, buggy_lines = fixed_text.splitlines(), buggy_text.splitlines()
    if fixed_lines[: before.start_line] != buggy_lines[: after.start_line]:
        return "the patch changes lines before the function"
    if fixed_lines[before.end_line :] != buggy_lines[after.end_line :]:
        return "the patch changes lines after the function"
    if before.code == after.code:
        return "the patch does not change the function"
    return ""


def run_judge(case: RealCase, clone: Path, python: Path, test_timeout_s: float) -> Any:
    """The judge test files of `case`, run in `clone` with the project's python (a RunResult)."""
    from selfdebug.server.runner import ProjectRunner, RunnerSettings

    settings = RunnerSettings(interpreter=str(python), test_timeout_s=test_timeout_s)
    runner = ProjectRunner(clone, settings)
    try:
        return runner.run(list(case.judge), timeout_s=900.0)
    finally:
        runner.close()


def check_case(
    case: RealCase, repos: Path, cache: Path, test_timeout_s: float, python: Path | None = None
) -> CaseCheck:
    """Fresh clones at the fix commit and with the bug; the judge run in both. `python`: use
    that interpreter as it is instead of the project's environment."""
    from selfdebug.bench.project_env import ensure_environment, hold, install_clone

    check = CaseCheck(id=case.id)
    started = time.monotonic()
    try:
        if patched_paths(case) != [case.path]:
            raise CaseError(f"the patch must change {case.path} only, not {patched_paths(case)}")
        with tempfile.TemporaryDirectory(prefix="selfdebug-real-check-") as tmp:
            fixed = clone_case(case, repos, Path(tmp) / "fixed" / case.checkout, buggy=False)
            buggy = clone_case(case, repos, Path(tmp) / "buggy" / case.checkout, buggy=True)
            check.problem = only_function_changed(
                case,
                (fixed / case.path).read_text(encoding="utf-8"),
                (buggy / case.path).read_text(encoding="utf-8"),
            )
            if check.problem:
                return check
            if python is not None:
                good = run_judge(case, fixed, python, test_timeout_s)
                bad = run_judge(case, buggy, python, test_timeout_s)
            else:
                with hold(case, fixed, cache) as env:
                    own = ensure_environment(case, fixed, cache)
                    good = run_judge(case, fixed, own, test_timeout_s)
                    install_clone(case, env, buggy)
                    bad = run_judge(case, buggy, own, test_timeout_s)
        check.fixed_passed, check.fixed_total = good.passed, good.total
        check.buggy_passed, check.buggy_total = bad.passed, bad.total
        check.failing = [t.nodeid for t in bad.tests if not t.ok]
        if good.error or not good.all_passed:
            failed = [t.nodeid for t in good.tests if not t.ok][:3]
            check.problem = f"the judge fails at the fix commit: {good.error or failed}"
        elif bad.error:
            check.problem = f"the buggy run did not complete: {bad.error}"
        elif not check.failing:
            check.problem = "no judge test fails with the bug"
        else:
            check.ok = True
    except CaseError as error:
        check.problem = str(error)
    finally:
        check.seconds = round(time.monotonic() - started, 1)
    return check


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_case_arguments(parser)


def add_case_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of a benchmark that sets up real cases (this one and `bench localize`)."""
    parser.add_argument(
        "--dataset", type=Path, required=True, help="folder of case folders (docs/bench/real)"
    )
    parser.add_argument(
        "--repos", type=Path, required=True, help="folder holding the cases' git checkouts"
    )
    parser.add_argument(
        "--env-cache",
        type=Path,
        default=DEFAULT_ENV_CACHE,
        help="where the projects' environments are kept (one per project and requirements)",
    )
    parser.add_argument(
        "--python", type=Path, default=None, help="this interpreter as it is (no environments)"
    )
    parser.add_argument("--ids", nargs="+", default=None, help="only these case ids")
    parser.add_argument("--test-timeout", type=float, default=30.0, help="seconds per test")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def measure(
    dataset: Path,
    repos: Path,
    env_cache: Path = DEFAULT_ENV_CACHE,
    ids: list[str] | None = None,
    test_timeout_s: float = 30.0,
    on_check: Any = None,
    python: Path | None = None,
) -> dict[str, Any]:
    cases = cases_with_ids(dataset, ids)
    checks = []
    for case in cases:
        check = check_case(case, repos, env_cache, test_timeout_s, python)
        checks.append(check)
        if on_check is not None:
            on_check(check)
    return {
        "cases": len(checks),
        "ok": sum(c.ok for c in checks),
        "checks": [asdict(c) for c in checks],
    }


def _row(check: CaseCheck) -> str:
    verdict = "ok" if check.ok else f"BROKEN: {check.problem}"
    return (
        f"{check.id:40} fixed {check.fixed_passed}/{check.fixed_total}  buggy "
        f"{check.buggy_passed}/{check.buggy_total}  {check.seconds:6.1f} s  {verdict}"
    )


def main(args: argparse.Namespace) -> int:
    try:
        report = measure(
            args.dataset,
            args.repos,
            args.env_cache,
            requested_ids(args.ids),
            args.test_timeout,
            on_check=None if args.json else lambda check: print(_row(check), flush=True),
            python=args.python,
        )
    except CaseError as error:
        print(f"selfdebug bench real-check: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['ok']} of {report['cases']} cases ok")
    return 0 if report["ok"] == report["cases"] else 1
