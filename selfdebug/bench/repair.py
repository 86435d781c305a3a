"""Fix rate per feedback mode: `selfdebug bench repair --dataset FILE.jsonl --modes none,ut,...`.

A `--dataset` that is a folder holds real-bug cases (docs/bench/real: a repository's fix commit and
a patch that puts the bug back; `--repos DIR` holds the checkouts): each runs in a fresh clone with
the project's own environment and no tests named, see `real_repair.py`.

Each (mode, problem) pair runs a real debugging session through the same engine call as the CLI
and the LSP server (`run_session` with a `DebugRequest`) in a throwaway project that holds the
buggy module and the visible tests only. The proposed file is then scored in a fresh copy against
the hidden tests. One JSON line per result is appended to `results.jsonl` as it finishes, so an
interrupted run continues where it stopped; `report.json`, `report.md` and `fixes_by_turn.png` are
written at the end (and the markdown table printed).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfdebug.bench.datasets import DatasetError, Problem, load_problems, select_problems
from selfdebug.bench.everyday_cases import EverydayCase, is_everyday_folder, load_everyday
from selfdebug.bench.funnel import funnel_report
from selfdebug.bench.judge import WRONG, judge_problem
from selfdebug.bench.project_env import DEFAULT_ENV_CACHE
from selfdebug.bench.real_cases import (
    CaseError,
    RealCase,
    is_case_folder,
    load_cases,
    requested_ids,
)
from selfdebug.bench.repair_report import (
    PLOT_FILE,
    ProblemOutcome,
    build_report,
    plot_fixes_by_turn,
    render_markdown,
)
from selfdebug.commands.model_options import add_model_arguments, backend_settings_from
from selfdebug.server.engine.modes import STRATEGIES
from selfdebug.server.engine.types import MODES

if TYPE_CHECKING:
    from selfdebug.server.backends.base import Backend
    from selfdebug.server.backends.settings import BackendSettings
    from selfdebug.server.cancel import CancelToken

DEFAULT_MODES = ",".join(STRATEGIES)  # each mode as it is (`auto` is a plan of them)
RESULTS_FILE = "results.jsonl"
CONFIG_FILE = "config.json"
VISIBLE_POLICY = (
    "the dataset's visible_tests (QuixBugs: first case; HumanEvalFix: docstring examples); for "
    "QuixBugs problems whose first case passes on the buggy code, that case plus "
    "visible_tests_failing (the first case the buggy code fails)"
)
# Settings that change the numbers: a resumed run must use the same ones.
_FINGERPRINT_KEYS = (
    "backend", "model_path", "endpoint_url", "model_name", "max_turns", "samples", "from_failure",
)  # fmt: skip
_NEW_KEYS = {"from_failure": False}  # fingerprint keys added later, with their old meaning

# a one-file benchmark problem, a real repository's bug, or an everyday project's slip
Case = Problem | RealCase | EverydayCase
BackendFactory = Callable[[Case], "Backend"]
ResultCallback = Callable[[ProblemOutcome], None]


@dataclass
class RepairConfig:
    datasets: list[Path]
    out: Path
    modes: list[str] = field(default_factory=lambda: DEFAULT_MODES.split(","))
    max_turns: int = 3
    samples: int = 1
    jobs: int = 1
    limit: int | None = None
    ids: list[str] | None = None
    test_timeout_s: float = 5.0
    session_timeout_s: float | None = None  # DebugRequest.time_budget_s
    report_only: bool = False  # rebuild the report from results.jsonl, run nothing
    backend: BackendSettings | None = None  # None: the default local model
    repos: Path | None = None  # real cases: the folder holding their git checkouts
    env_cache: Path = DEFAULT_ENV_CACHE  # real cases: the projects' environments
    python: Path | None = None  # real cases: this interpreter as it is, no environments made
    from_failure: bool = False  # real cases: given only a failing test (real_from_failure.py)


class ConfigMismatch(ValueError):
    """--out holds results of a run with other settings; resuming would mix the numbers."""


def config_record(config: RepairConfig, backend_name: str) -> dict[str, Any]:
    settings = _settings(config)
    return {
        "datasets": [str(p) for p in config.datasets],
        "modes": config.modes,
        "backend": settings.backend,
        "model_path": settings.model_path,
        "endpoint_url": settings.endpoint_url,
        "model_name": settings.model_name,
        "backend_name": backend_name,
        "max_turns": config.max_turns,
        "samples": config.samples,
        "test_timeout_s": config.test_timeout_s,
        "stall_s": settings.stall_s,  # a model call's limits (not a fingerprint: resumable)
        "call_deadline_s": settings.timeout_s,
        "visible_policy": VISIBLE_POLICY,
        "from_failure": config.from_failure,
    }


def _settings(config: RepairConfig) -> BackendSettings:
    from selfdebug.server.backends.settings import BackendSettings

    return config.backend or BackendSettings()


def check_resumable(out: Path, record: dict[str, Any]) -> None:
    """Refuse to add results made with other settings to an existing --out (ConfigMismatch)."""
    path = out / CONFIG_FILE
    if not path.exists():
        return
    previous = json.loads(path.read_text(encoding="utf-8"))

    # a key newer than the run in `out` has its default there
    def value(settings: dict[str, Any], key: str) -> Any:
        return settings.get(key, _NEW_KEYS.get(key))

    changed = [k for k in _FINGERPRINT_KEYS if value(previous, k) != value(record, k)]
    if changed:
        details = ", ".join(f"{k}: {previous.get(k)!r} -> {record.get(k)!r}" for k in changed)
        raise ConfigMismatch(
            f"{out} holds results made with other settings ({details}); use another --out"
        )


def load_outcomes(out: Path) -> dict[tuple[str, str], ProblemOutcome]:
    """The results so far, keyed by (mode, id); a later line wins; harness errors are not results.

    A torn last line (the process was killed mid-write) is skipped, so that pair runs again.
    """
    path = out / RESULTS_FILE
    outcomes: dict[tuple[str, str], ProblemOutcome] = {}
    if not path.exists():
        return outcomes
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            outcome = ProblemOutcome.from_json(json.loads(line))
        except (ValueError, TypeError):
            continue
        if outcome.harness_error:
            outcomes.pop((outcome.mode, outcome.id), None)
        else:
            outcomes[(outcome.mode, outcome.id)] = outcome
    return outcomes


class _ResultsLog:
    """Appends one JSON line per outcome and flushes it at once (the resume point)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()

    def append(self, outcome: ProblemOutcome) -> None:
        line = json.dumps(outcome.to_json(), ensure_ascii=False) + "\n"
        with self._lock, self._path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()


class _SharedBackend:
    """One backend for every session (one model in memory); llama serializes calls itself."""

    def __init__(self, settings: BackendSettings) -> None:
        self._settings = settings
        self._backend: Backend | None = None
        self._lock = threading.Lock()

    def __call__(self, problem: Case) -> Backend:
        with self._lock:
            if self._backend is None:
                from selfdebug.server.backends.factory import make_backend

                self._backend = make_backend(self._settings)
                load = getattr(self._backend, "load", None)  # llama: load now, not in turn 1
                if callable(load):
                    load()
            return self._backend

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()


def _runner_settings(test_timeout_s: float) -> Any:
    from selfdebug.server.runner import RunnerSettings

    return RunnerSettings(test_timeout_s=test_timeout_s)


def score_candidate(
    problem: Problem, candidate: str, workdir: Path, test_timeout_s: float, *, judge: bool = True
) -> dict[str, Any]:
    """Run the visible and hidden tests on `candidate` in a fresh copy the model never sees;
    with `judge`, then the strict verdict (judge.py) against the record's reference fix."""
    from selfdebug.bench.datasets import write_project
    from selfdebug.server.runner import ProjectRunner

    project = write_project(problem, workdir, candidate, hidden=True)
    runner = ProjectRunner(project.root, _runner_settings(test_timeout_s))
    started = time.monotonic()
    try:
        ids = project.visible_test_ids + project.hidden_test_ids
        result = runner.run(ids, timeout_s=test_timeout_s * len(ids) + 60)
    finally:
        runner.close()
    passed = {t.nodeid for t in result.tests if t.ok}
    ids = project.visible_test_ids + project.hidden_test_ids
    scores: dict[str, Any] = {
        "visible_passed": sum(i in passed for i in project.visible_test_ids),
        "visible_total": len(project.visible_test_ids),
        "hidden_passed": sum(i in passed for i in project.hidden_test_ids),
        "hidden_total": len(project.hidden_test_ids),
        "scoring_error": result.error,
    }
    if judge:  # the strict verdict: only a candidate that passes every test can be correct
        if not result.error and ids and all(i in passed for i in ids):
            scores.update(judge_problem(problem, candidate, workdir.parent / "judge").fields())
        else:
            scores.update(WRONG.fields())
    scores["scoring_seconds"] = round(time.monotonic() - started, 3)
    return scores


def solve_problem(
    problem: Problem,
    mode: str,
    config: RepairConfig,
    backend: Backend,
    cancel: CancelToken,
    transcript_dir: Path | None = None,
) -> ProblemOutcome:
    """One session on one problem in one mode, then its scoring (harness bugs raise; the caller
    records them as harness errors, retried on resume)."""
    from selfdebug.bench.datasets import write_project
    from selfdebug.server.engine import run_session
    from selfdebug.server.runner import ProjectRunner

    outcome = ProblemOutcome(mode=mode, id=problem.id, source=problem.source)
    with tempfile.TemporaryDirectory(prefix="selfdebug-bench-") as tmp:
        project = write_project(problem, Path(tmp) / "work", problem.buggy, hidden=False)
        transcript = None
        if transcript_dir is not None:
            transcript = transcript_dir / mode / (problem.id.replace("/", "__") + ".jsonl")
            transcript.parent.mkdir(parents=True, exist_ok=True)
        request = project.debug_request(
            problem,
            mode,
            max_turns=config.max_turns,
            samples=config.samples,
            test_timeout_s=config.test_timeout_s,
            time_budget_s=config.session_timeout_s,
            model_stall_s=_settings(config).stall_s,
            model_call_deadline_s=_settings(config).timeout_s,
            transcript_path=transcript,
        )
        runner = ProjectRunner(project.root, _runner_settings(config.test_timeout_s))
        started = time.monotonic()
        try:
            result = run_session(request, backend, runner=runner, cancel=cancel)
        finally:
            runner.close()
        outcome.wall_seconds = round(time.monotonic() - started, 3)
        outcome.record_session(result)
        outcome.visible_total = len(project.visible_test_ids)
        outcome.hidden_total = len(problem.hidden_test_names)
        if result.fixed_file is not None and result.stop_reason != "cancelled":
            scores = score_candidate(
                problem, result.fixed_file, Path(tmp) / "score", config.test_timeout_s
            )
            for key, value in scores.items():
                setattr(outcome, key, value)
    return outcome


def _load(dataset: Path) -> list[Case]:
    if is_everyday_folder(dataset):
        return list(load_everyday(dataset))
    if is_case_folder(dataset):
        return list(load_cases(dataset))
    return list(load_problems(dataset))


def _load_selected(config: RepairConfig) -> list[Case]:
    problems: list[Case] = []
    for dataset in config.datasets:
        loaded = _load(dataset)
        wanted = [i for i in config.ids or [] if i in {p.id for p in loaded}]
        if config.ids and not wanted:
            continue
        problems += select_problems(loaded, wanted or None, config.limit)
    if config.ids:
        missing = set(config.ids) - {p.id for p in problems}
        if missing:
            raise DatasetError(f"unknown problem ids: {', '.join(sorted(missing))}")
    return problems


def run_repair(
    config: RepairConfig,
    *,
    backend_factory: BackendFactory | None = None,
    on_result: ResultCallback | None = None,
    show_progress: bool = True,
) -> dict[str, Any]:
    """Run every (problem, mode) pair not already in --out, then write and return the report.

    `backend_factory` picks the backend of each problem (tests give each problem its own scripted
    one); by default one backend from `config.backend` serves them all. `on_result` is called
    after each result is saved; if it raises, the run stops (pending pairs stay to be resumed).
    """
    from selfdebug.server.cancel import CancelToken

    unknown = [m for m in config.modes if m not in MODES]
    if unknown:
        raise ValueError(f"unknown modes: {', '.join(unknown)} (known: {', '.join(MODES)})")
    problems = _load_selected(config)
    config.out.mkdir(parents=True, exist_ok=True)
    shared = _SharedBackend(_settings(config)) if backend_factory is None else None
    factory: BackendFactory = backend_factory or shared  # type: ignore[assignment]

    done = load_outcomes(config.out)
    todo = [(p, m) for p in problems for m in config.modes if (m, p.id) not in done]
    if config.report_only:
        todo = []
    backend_name = (
        "per-problem backends" if shared is None else _describe_settings(_settings(config))
    )
    if not any(_uses_model(m) for m in config.modes):
        backend_name = "none (edit search, no model)"
    check_resumable(config.out, config_record(config, backend_name))
    if shared is not None and todo and any(_uses_model(m) for m in config.modes):
        backend_name = factory(problems[0]).name  # load the model once, before the clock starts
    elif not todo and (config.out / CONFIG_FILE).exists():  # nothing to run: keep the real name
        previous = json.loads((config.out / CONFIG_FILE).read_text(encoding="utf-8"))
        backend_name = previous.get("backend_name", backend_name)
    record = config_record(config, backend_name)
    (config.out / CONFIG_FILE).write_text(json.dumps(record, indent=2), encoding="utf-8")

    log = _ResultsLog(config.out / RESULTS_FILE)
    cancel = CancelToken()
    try:
        _run_pairs(todo, config, factory, log, cancel, on_result, show_progress)
    finally:
        if shared is not None:
            shared.close()

    selected_ids = {p.id for p in problems}
    outcomes = [
        o
        for (mode, pid), o in load_outcomes(config.out).items()
        if pid in selected_ids and mode in config.modes
    ]
    n = len(problems)
    return write_report(config.out, outcomes, config.modes, record, n, problems, config.repos)


def write_report(
    out: Path,
    outcomes: list[ProblemOutcome],
    modes: list[str],
    record: dict[str, Any],
    n: int,
    cases: list[Case] | None = None,
    repos: Path | None = None,
) -> dict[str, Any]:
    """report.json, report.md and the plot in `out`, for `outcomes` of `n` problems; with
    `cases` (and `repos` for the real ones), each one's repair funnel (funnel.py) from the
    transcripts in `out`."""
    report = build_report(outcomes, modes, record)
    report["coverage"] = {"done": len(outcomes), "planned": n * len(modes)}
    if cases:
        with_upstream = [c for c in cases if not isinstance(c, EverydayCase)]  # not yet read
        report["funnel"] = funnel_report(outcomes, with_upstream, out / "transcripts", repos)
    try:
        plot_fixes_by_turn(report, out / PLOT_FILE)
        report["plot"] = PLOT_FILE  # beside the report: no path of this machine in it
    except ImportError:  # matplotlib is the optional `bench` extra; the numbers stand without it
        report["plot"] = (
            "unavailable: matplotlib is not installed (the `bench` extra: "
            "pip install 'matplotlib>=3.8')"
        )
    (out / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    (out / "report.md").write_text(render_markdown(report), encoding="utf-8")
    return report


def _uses_model(mode: str) -> bool:
    """`search` makes no model call, so a run of only `search` loads no model at all."""
    from selfdebug.server.engine.modes import STRATEGIES

    strategy = STRATEGIES.get(mode)  # type: ignore[call-overload]  # any str; auto is not one
    return strategy is None or strategy.uses_model


def _describe_settings(settings: BackendSettings) -> str:
    if settings.backend == "openai":
        return f"openai:{settings.model_name}@{settings.endpoint_url}"
    from selfdebug.server.backends.models import DEFAULT_MODEL

    return f"llama:{settings.model_path or DEFAULT_MODEL.name}"


def _run_pairs(
    todo: list[tuple[Case, str]],
    config: RepairConfig,
    factory: BackendFactory,
    log: _ResultsLog,
    cancel: CancelToken,
    on_result: ResultCallback | None,
    show_progress: bool,
) -> None:
    """A thread pool where each worker runs one whole session; results are saved as they come."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    def work(problem: Case, mode: str) -> ProblemOutcome:
        try:
            from selfdebug.server.backends.no_model import NoModelBackend

            backend: Backend = NoModelBackend() if not _uses_model(mode) else factory(problem)
            transcripts = config.out / "transcripts"
            if isinstance(problem, EverydayCase):
                from selfdebug.bench.everyday_repair import solve_everyday

                return solve_everyday(problem, mode, config, backend, cancel, transcripts)
            if isinstance(problem, RealCase):
                return _solve_real(problem, mode, config, backend, cancel, transcripts)
            return solve_problem(problem, mode, config, backend, cancel, transcripts)
        except Exception as error:  # a harness bug must not sink the other problems
            return ProblemOutcome(
                mode=mode, id=problem.id, source=problem.source, harness_error=repr(error)
            )

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not show_progress or not todo,
    )
    pool = ThreadPoolExecutor(max_workers=max(1, config.jobs), thread_name_prefix="bench")
    fixed = 0
    with progress:
        task = progress.add_task("repair", total=len(todo))
        pending: set[Future[ProblemOutcome]] = {pool.submit(work, p, m) for p, m in todo}
        try:
            while pending:
                finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in finished:
                    outcome = future.result()
                    if outcome.stop_reason == "cancelled" and cancel.cancelled:
                        continue  # stopped by us: not a result, it runs again on resume
                    log.append(outcome)
                    fixed += outcome.fixed_hidden
                    progress.update(
                        task,
                        advance=1,
                        description=escape(
                            f"repair ({fixed} fixed; last {outcome.mode} {outcome.id})"
                        ),
                    )
                    if on_result is not None:
                        on_result(outcome)
        except BaseException:
            cancel.cancel("benchmark stopped")
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    pool.shutdown(wait=True)


def _solve_real(
    case: RealCase,
    mode: str,
    config: RepairConfig,
    backend: Backend,
    cancel: CancelToken,
    transcript_dir: Path,
) -> ProblemOutcome:
    from selfdebug.bench.real_repair import RealRunOptions, solve_real_case

    transcript = transcript_dir / mode / (case.id.replace("/", "__") + ".jsonl")
    transcript.parent.mkdir(parents=True, exist_ok=True)
    options = RealRunOptions(
        repos=config.repos,
        env_cache=config.env_cache,
        mode=mode,
        max_turns=config.max_turns,
        samples=config.samples,
        test_timeout_s=config.test_timeout_s,
        session_timeout_s=config.session_timeout_s,
        model_stall_s=_settings(config).stall_s,
        model_call_deadline_s=_settings(config).timeout_s,
        transcript=transcript,
        python=config.python,
    )
    if config.from_failure:  # given only a failing test
        from selfdebug.bench.real_from_failure import solve_from_failure

        return solve_from_failure(case, options, backend, cancel)
    return solve_real_case(case, options, backend, cancel)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dataset",
        action="append",
        required=True,
        type=Path,
        help="JSONL file, or a folder of real-bug cases (docs/bench/real) (repeatable)",
    )
    parser.add_argument(
        "--repos", type=Path, default=None, help="real cases: folder holding their git checkouts"
    )
    parser.add_argument(
        "--env-cache",
        type=Path,
        default=DEFAULT_ENV_CACHE,
        help="real cases: where the projects' environments are kept (one per project)",
    )
    parser.add_argument(
        "--python",
        type=Path,
        default=None,
        help="real cases: run every case with this interpreter (no environments are made)",
    )
    parser.add_argument(
        "--from-failure",
        action="store_true",
        help="real cases: give each session only the case's first failing test, not the "
        "function (the project's functions are ranked for it and the top suspects repaired)",
    )
    parser.add_argument(
        "--modes", default=DEFAULT_MODES, help=f"comma list (default {DEFAULT_MODES})"
    )
    add_model_arguments(parser)
    parser.add_argument("--max-turns", type=int, default=3)
    parser.add_argument("--samples", type=int, default=1, help="candidates per generation")
    parser.add_argument("--jobs", type=int, default=1, help="sessions in parallel")
    parser.add_argument("--limit", type=int, default=None, help="first N problems per dataset")
    parser.add_argument("--ids", nargs="+", default=None, help="only these problem ids")
    parser.add_argument("--test-timeout", type=float, default=5.0, help="seconds per test")
    parser.add_argument(
        "--session-timeout", type=float, default=None, help="time budget of one session (s)"
    )
    parser.add_argument("--out", type=Path, default=Path("bench-out/repair"))
    parser.add_argument("--json", action="store_true", help="print report.json instead of markdown")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--report-only", action="store_true", help="rebuild the report from --out, run nothing"
    )


def config_from_args(args: argparse.Namespace) -> RepairConfig:

    return RepairConfig(
        datasets=list(args.dataset),
        out=args.out,
        modes=[m.strip() for m in args.modes.split(",") if m.strip()],
        max_turns=args.max_turns,
        samples=args.samples,
        jobs=args.jobs,
        limit=args.limit,
        ids=requested_ids(args.ids),
        test_timeout_s=args.test_timeout,
        session_timeout_s=args.session_timeout,
        report_only=args.report_only,
        backend=backend_settings_from(args),
        repos=args.repos,
        env_cache=args.env_cache,
        python=args.python,
        from_failure=args.from_failure,
    )


def main(args: argparse.Namespace) -> int:
    from selfdebug.server.backends.base import BackendError

    try:
        config = config_from_args(args)
        report = run_repair(config, show_progress=not args.no_progress)
    except (DatasetError, CaseError, ConfigMismatch, ValueError, BackendError) as error:
        print(f"selfdebug bench repair: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render_markdown(report))
        plot = config.out / report["plot"]
        shown = plot if plot.exists() else report["plot"]
        print(f"results: {config.out / RESULTS_FILE}; plot: {shown}")
    errors = sum(s["harness_errors"] for s in report["modes"].values())
    return 1 if errors else 0


def measure(config: RepairConfig | None = None, **kwargs: Any) -> dict[str, Any]:
    """The report as a dict (the numbers); `kwargs` fill a RepairConfig when none is given."""
    return run_repair(config or RepairConfig(**kwargs), show_progress=False)
