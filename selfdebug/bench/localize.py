"""Where a real case's function ranks when the session starts from its failure (issue 35):
`selfdebug bench localize --dataset docs/bench/real --repos DIR`.

For each case, in a fresh clone with the bug and the project's own environment: the judge files
run once to find the case's failing tests, then the project's functions are ranked for the
first of them alone (engine/suspects/: the failing test and the tests of its file, every
project line traced), as `selfdebug fix --test NODEID` ranks them. Prints one row per case (the
case function's rank, the first suspect) and how many are ranked 1st, in the top 3 and top 5.
With `--search`, the edit search then runs on the top suspects as a from-the-failure walk's
first stage does (suspects/repair.py), and a second rank counts its evidence: the suspects
where an edit made failing tests pass go first (`ranked_by_evidence`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.bench.project_env import DEFAULT_ENV_CACHE
from selfdebug.bench.real_cases import (
    CaseError,
    RealCase,
    cases_with_ids,
    clone_case,
    requested_ids,
)
from selfdebug.bench.repair_report import ranks_within

if TYPE_CHECKING:
    from selfdebug.server.engine.from_failure import FailureWalk
    from selfdebug.server.engine.suspects.rank import Suspect
    from selfdebug.server.engine.types import DebugRequest, DebugResult
    from selfdebug.server.runner import ProjectRunner


@dataclass
class CaseRank:
    id: str
    failing_test: str = ""
    rank: int | None = None  # 1-based rank of the case's function; None: not among them
    suspects: int = 0
    first: str = ""  # the first suspect
    evidence_rank: int | None = None  # with --search: the rank once the search's edits count
    tests_run: int = 0
    problem: str = ""
    seconds: float = 0.0


def rank_case(
    case: RealCase,
    repos: Path,
    cache: Path,
    test_timeout_s: float,
    python: Path | None = None,
    search: bool = False,
) -> CaseRank:
    from selfdebug.bench.project_env import ensure_environment, hold
    from selfdebug.bench.real_check import run_judge
    from selfdebug.server.engine.from_failure import FailureJob, held, localize
    from selfdebug.server.engine.suspects.rank import rank_of
    from selfdebug.server.runner import ProjectRunner, RunnerSettings

    ranked = CaseRank(id=case.id)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="selfdebug-localize-") as tmp:
            buggy = clone_case(case, repos, Path(tmp) / "buggy" / case.checkout, buggy=True)
            with hold(case, buggy, cache) if python is None else contextlib.nullcontext():
                own = python or ensure_environment(case, buggy, cache)
                judged = run_judge(case, buggy, own, test_timeout_s)
                failing = [t.nodeid for t in judged.tests if not t.ok]
                if not failing:
                    ranked.problem = "no judge test fails with the bug"
                    return ranked
                ranked.failing_test = failing[0]
                settings = RunnerSettings(interpreter=str(own), test_timeout_s=test_timeout_s)
                runner = ProjectRunner(buggy, settings)
                wanted = f"{case.path}::{case.qualname}"
                # the search's sessions as a walk of the search alone (no model)
                session = {"cwd": buggy, "mode": "search"}
                job = FailureJob(buggy, (failing[0],), session, model_suspects=0,
                                 localize_timeout_s=900.0)  # fmt: skip
                try:
                    walk = localize(job, held(runner))
                    found = walk.found
                    if search and found.suspects:
                        ranked.evidence_rank = _rank_after_search(walk, runner, wanted)
                finally:
                    runner.close()
        ranked.problem = found.error
        ranked.suspects, ranked.tests_run = len(found.suspects), found.tests_run
        ranked.first = found.suspects[0].target if found.suspects else ""
        ranked.rank = rank_of(wanted, found.suspects)
    except CaseError as error:
        ranked.problem = str(error)
    finally:
        ranked.seconds = round(time.monotonic() - started, 1)
    return ranked


def _rank_after_search(walk: FailureWalk, runner: ProjectRunner, wanted: str) -> int | None:
    """The walk's edit-search stage on the top suspects (no model; a fix that breaks its
    function's own tests refused, as the walk does), then where `wanted` ranks once the
    suspects where its edits made failing tests pass go first."""
    from selfdebug.server.backends.no_model import NoModelBackend
    from selfdebug.server.engine import run_session
    from selfdebug.server.engine.from_failure import WalkHooks, held, repair
    from selfdebug.server.engine.suspects.rank import rank_of

    def run(_suspect: Suspect, request: DebugRequest) -> DebugResult:
        return run_session(request, NoModelBackend(), runner=runner)

    repair(walk, WalkHooks(run), held(runner))
    return rank_of(wanted, walk.ranked_after())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from selfdebug.bench.real_check import add_case_arguments

    add_case_arguments(parser)
    parser.add_argument(
        "--search",
        action="store_true",
        help="also run the edit search on the top suspects and rank again with its evidence "
        "(the suspects where an edit made failing tests pass first)",
    )


def measure(
    dataset: Path,
    repos: Path,
    env_cache: Path = DEFAULT_ENV_CACHE,
    ids: list[str] | None = None,
    test_timeout_s: float = 30.0,
    on_case: Any = None,
    python: Path | None = None,
    search: bool = False,
) -> dict[str, Any]:
    ranks = []
    for case in cases_with_ids(dataset, ids):
        ranked = rank_case(case, repos, env_cache, test_timeout_s, python, search)
        ranks.append(ranked)
        if on_case is not None:
            on_case(ranked)
    counted = [r for r in ranks if not r.problem]
    within = ranks_within([r.rank for r in counted])
    after = ranks_within([r.evidence_rank for r in counted])
    return {
        "cases": len(ranks),
        "ranked": len(counted),
        "top1": within[1],
        "top3": within[3],
        "top5": within[5],
        **({"after_search": {f"top{k}": n for k, n in after.items()}} if search else {}),
        "mean_seconds": round(sum(r.seconds for r in ranks) / len(ranks), 1) if ranks else 0.0,
        "ranks": [asdict(r) for r in ranks],
    }


def _row(ranked: CaseRank, search: bool) -> str:
    rank = "-" if ranked.rank is None else str(ranked.rank)
    after = "-" if ranked.evidence_rank is None else str(ranked.evidence_rank)
    what = ranked.problem or f"first: {ranked.first}"
    return (
        f"| {ranked.id} | {ranked.failing_test} | {rank} | {f'{after} | ' if search else ''}"
        f"{ranked.suspects} | {ranked.tests_run} | {ranked.seconds:.0f} | {what} |"
    )


def main(args: argparse.Namespace) -> int:
    if not args.json:
        after = "after the search | " if args.search else ""
        print(f"| case | failing test given | rank | {after}suspects | tests run | s | note |")
        print("| --- " * (8 if args.search else 7) + "|")
    report = measure(
        args.dataset,
        args.repos,
        args.env_cache,
        requested_ids(args.ids),
        args.test_timeout,
        on_case=None if args.json else lambda r: print(_row(r, args.search), flush=True),
        python=args.python,
        search=args.search,
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        n = report["ranked"]
        print(
            f"\n{n} of {report['cases']} cases ranked: 1st {report['top1']}, top 3 "
            f"{report['top3']}, top 5 {report['top5']}; {report['mean_seconds']} s a case"
        )
        if args.search:
            after = report["after_search"]
            print(f"after the edit search: 1st {after['top1']}, top 3 {after['top3']}, "
                  f"top 5 {after['top5']}")  # fmt: skip
    return 0
