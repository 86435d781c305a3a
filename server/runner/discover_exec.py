"""Find a function's tests by what they execute: the static candidates, confirmed by running.

Why: a static read links a test to a function only through names it can see. Tests reach
functions through fixtures, wrappers (`split` runs `split_iter`), factories and classes, so the
static answer can miss tests and, for a method name on an unknown receiver, link the wrong ones.
Running the candidate test files once, with the target's function starts counted per test (the
`_selfdebug_calls_v1.py` plugin: nothing else is traced), says which tests actually execute it,
transitive callers included.

Bounded: the files with static evidence run first, then the others that name something that
reaches the target, nearest first (when no file names it: every test file, nearest first); when
no test of those that execute it fails, the rest of the suite, nearest first, for one that does
(self-debugging a function whose linked tests pass would answer "already pass"); the whole run
has a time budget, a hung test is killed by the watchdog and the rest continue. The
answer is cached in the user's cache folder (discovery_cache.py), so the editor's second request
for the same function is instant. What was done is said in one line (`Discovery.summary`):
"3 tests execute `split_iter` (found by running 29 test files, 4.1 s; cached)".
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.instrument.locate import FunctionLocation, locate_function
from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.assembly import ResultAssembler
from selfdebug.server.runner.discover import (
    WEAK,
    DiscoveryError,
    StaticDiscovery,
    TestCandidate,
    in_testpaths,
    no_tests_message,
    rank_collected,
    static_discovery,
    static_plan,
)
from selfdebug.server.runner.discovery_cache import DiscoveryCache
from selfdebug.server.runner.events import EventLog, parse_events
from selfdebug.server.runner.reach import is_test_file
from selfdebug.server.runner.results import CollectResult, nodeid_file
from selfdebug.server.runner.runner import ProjectRunner
from selfdebug.server.runner.safe_read import read_regular
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import is_skipped_dir

PLUGIN = Path(__file__).with_name("_selfdebug_calls_v1.py")
DEFAULT_BUDGET_S = 60.0  # the whole dynamic step (collection included)
MAX_RESTARTS = 3  # fresh pytest processes after a test is killed
RESTART_KILLS = ("timeout", "output", "processes")
LISTED_FILES = 5  # files named in a message


@dataclass
class Discovery:
    """The tests chosen for a function and how they were found."""

    qualname: str
    tests: list[TestCandidate]  # best first
    how: str  # "executed": confirmed by running; "static": by static evidence only
    files_run: list[str] = field(default_factory=list)  # test files run (relative)
    tests_run: int = 0
    seconds: float = 0.0  # the dynamic step (when cached: the original run's)
    cached: bool = False
    static_count: int = 0  # tests with static evidence
    failing: list[str] = field(default_factory=list)  # chosen tests that failed in the run
    warnings: list[str] = field(default_factory=list)  # files that failed to collect ...
    note: str = ""  # why the dynamic check was not used, or that it was cut by the budget

    @property
    def nodeids(self) -> list[str]:
        return [t.nodeid for t in self.tests]

    def summary(self) -> str:
        """One line: which tests, found how ("3 tests execute `f` (found by running ...)")."""
        count = len(self.tests)
        tests = f"{count} test{'' if count == 1 else 's'}"
        name = self.qualname
        if self.how == "executed":
            verb = "executes" if count == 1 else "execute"
            files = len(self.files_run)
            how = f"found by running {files} test file{'' if files == 1 else 's'}"
            how += f", {self.seconds:.1f} s" + ("; cached" if self.cached else "")
            failing = f", {len(self.failing)} failing" if self.failing else ""
            return f"{tests} {verb} `{name}`{failing} ({how})"
        why = f": {self.note}" if self.note else ""
        return f"{tests} of `{name}` by static evidence (not confirmed by running{why})"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tests"] = [{**asdict(t), "file": str(t.file)} for t in self.tests]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Discovery:
        tests = [TestCandidate(**{**t, "file": Path(t["file"])}) for t in data["tests"]]
        return cls(**{**data, "tests": tests})


@dataclass
class CallRun:
    """What one dynamic run saw: per test, how often the target started, and its outcome."""

    calls: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)  # every test that finished
    collected: CollectResult = field(default_factory=lambda: CollectResult([], [], ""))
    seconds: float = 0.0
    out_of_time: bool = False
    error: str = ""


def _target_job(runner: ProjectRunner, file: Path, location: FunctionLocation) -> str:
    """The plugin's job: the function by file (copy and user path), name and definition lines
    (a code object's first line is its first decorator's, or the def's), and the last line of
    its body: the functions defined inside it count as it (a decorator's wrapper runs in the
    tests; the decorator itself ran at import)."""
    files = [str(runner.shadow.to_shadow(file)), str(file)]
    first, last = location.start_line + 1, location.def_line + 1
    end = location.end_line  # exclusive 0-based row = the last row, 1-based
    job = {"files": files, "name": location.name, "first": first, "last": last, "end": end}
    return json.dumps(job)


def run_for_calls(
    runner: ProjectRunner,
    file: Path,
    location: FunctionLocation,
    args: list[str],
    *,
    budget_s: float,
    cancel: CancelToken | None = None,
) -> CallRun:
    """Run `args` (test files, node ids) with the target's starts counted per test; a test killed
    by the watchdog is skipped and the others run in a fresh process."""
    started = time.monotonic()
    result = CallRun()
    deselect: list[str] = []
    job = _target_job(runner, file, location)
    log = EventLog()
    for _attempt in range(MAX_RESTARTS + 1):
        remaining = budget_s - (time.monotonic() - started)
        if remaining <= 0:
            result.out_of_time = True
            break
        extra = [f"--deselect={nodeid}" for nodeid in deselect]
        run = runner.run_plugin(
            PLUGIN, [*args, *extra], job=job, cancel=cancel, timeout_s=remaining
        )
        if not log.has_collected():  # the first process collected everything
            log.extend(parse_events(run.events))
        for event in run.events:
            kind = event.get("event")
            if kind == "calls":
                result.calls[str(event["nodeid"])] = int(event["count"])
            elif kind == "result":
                result.outcomes[str(event["nodeid"])] = str(event.get("outcome", ""))
        if run.cancelled:
            result.error = "cancelled"
            break
        if run.kill_reason == "run-timeout":
            result.out_of_time = True
            break
        if run.kill_reason in RESTART_KILLS and run.killed_nodeid:
            result.outcomes.setdefault(run.killed_nodeid, "timeout")
            deselect = list(result.outcomes)
            continue
        if run.kill_reason:
            result.error = f"the test process was stopped ({run.kill_reason})"
        elif not result.outcomes and not any(e.get("event") == "collected" for e in run.events):
            result.error = run.output_tail[-1500:].strip() or "pytest reported nothing"
        break
    assembler = ResultAssembler(runner.shadow, runner.settings)
    items, errors = assembler.collected_items(log), assembler.collect_errors(log)
    result.collected = CollectResult(items, errors, runner.isolation, error=result.error)
    result.seconds = time.monotonic() - started
    return result


def nearness(test_file: str, target: Path, project_root: Path) -> tuple[int, int, str]:
    """Sort key: a test file named after the target's module first, then the fewest folders
    apart, then the path."""
    stem = target.stem if target.stem != "__init__" else target.parent.name
    named = 0 if stem in Path(test_file).stem else 1
    test_parts = Path(test_file).parent.parts
    target_parts = target.resolve().relative_to(project_root).parent.parts
    common = 0
    for a, b in zip(test_parts, target_parts, strict=False):
        if a != b:
            break
        common += 1
    return named, len(test_parts) + len(target_parts) - 2 * common, test_file


def all_test_files(project_root: Path) -> list[str]:
    found = []
    for directory, dirs, files in os.walk(project_root):
        dirs[:] = sorted(d for d in dirs if not is_skipped_dir(os.path.join(directory, d)))
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(directory, name), project_root)
            if is_test_file(name) and name != "conftest.py" and in_testpaths(project_root, rel):
                found.append(rel)
    return found


def files_to_run(paths: list[str], project_root: Path, file: Path) -> list[str]:
    """The files to run, nearest to the target first (its own module, for its doctests, last);
    when no test file names the target: every test file of the project, nearest first."""
    target_rel = file.relative_to(project_root).as_posix()
    tests = [p for p in paths if p != target_rel] or all_test_files(project_root)
    tests.sort(key=lambda p: nearness(p, file, project_root))
    return [*tests, *(p for p in paths if p == target_rel)]


def discover_tests(
    project_root: Path | str,
    file: Path | str,
    qualname: str,
    settings: RunnerSettings | None = None,
    *,
    runner: ProjectRunner | None = None,
    cancel: CancelToken | None = None,
    budget_s: float = DEFAULT_BUDGET_S,
    cache: DiscoveryCache | None = None,
    use_cache: bool = True,
) -> Discovery:
    """The tests that execute `qualname` in `file`, best first: the static candidates confirmed
    by running them (and the other likely files). Cached per function. Raises DiscoveryError
    when none does (the message names the files run)."""
    project_root = Path(project_root).resolve()
    file = Path(file).resolve()
    try:
        location: FunctionLocation | None = locate_function(read_regular(file), qualname)
    except Exception:  # not found or does not parse: the static step says so
        location = None
    own = runner is None
    runner = runner or ProjectRunner(project_root, settings)
    try:
        store = cache or DiscoveryCache()
        key = store.key(project_root, file, qualname, str(runner.interpreter))
        span = (location.start_line, location.end_line) if location else None
        answer, current = store.load(key, project_root, file, span) if use_cache else (None, None)
        if answer is not None:
            return _from_cache(answer)
        started = time.monotonic()
        if location is None:
            static = static_discovery(project_root, file, qualname, runner, cancel=cancel)
            return _static_only(static, qualname, file, project_root, "")
        # One pytest process collects and runs the likely files: the static ranking reads
        # what it collected, the plugin says which tests ran the function.
        target, paths = static_plan(project_root, file, qualname)
        args = files_to_run(paths, project_root, file)
        left = budget_s - (time.monotonic() - started)
        run = run_for_calls(runner, file, location, args, budget_s=max(left, 1.0), cancel=cancel)
        if not _fails(run) and not run.out_of_time and not run.error:
            left = budget_s - (time.monotonic() - started)
            rest = [p for p in files_to_run([], project_root, file) if p not in args]
            further = _further(runner, file, location, rest, left, cancel)
            if further is not None:
                run, args = _joined(run, further), args + rest
        static = rank_collected(target, qualname, project_root, run.collected, args)
        found = _choose(static, run, qualname, project_root, args)
        found.seconds = time.monotonic() - started
        if run.error and not found.tests:
            return _static_only(static, qualname, file, project_root, run.error)
        message = "" if found.tests else _none_message(found, qualname, static)
        hint = runner.environment_hint(run.collected.errors) if message else ""
        if hint:  # the environment, not the tests: say how to fix it first
            message = f"{hint}\n  ({message})"
        # Not cached when the environment is at fault: installing into it changes no file here.
        if use_cache and not run.out_of_time and not run.error and not hint:
            store.store(key, current, {"found": found.to_json(), "message": message})
        if message:
            raise DiscoveryError(message)
        return found
    finally:
        if own:
            runner.close()


FAILED = ("failed", "error", "timeout")


def _fails(run: CallRun) -> bool:
    """Some test that executed the target failed."""
    return any(run.outcomes.get(nodeid) in FAILED for nodeid in run.calls)


def _further(
    runner: ProjectRunner,
    file: Path,
    location: FunctionLocation,
    rest: list[str],
    budget_s: float,
    cancel: CancelToken | None,
) -> CallRun | None:
    """The rest of the suite, nearest first, in what is left of the budget, when the files
    that name the target hold no failing test of it: a class only the library's own code
    builds (a proxy made inside a container's method) is reached by tests that never name it.
    Its answer only when a test there that executes the target fails; else None (the first
    answer stands: the tests that name the function pass)."""
    if not rest or budget_s < 1.0:
        return None
    further = run_for_calls(runner, file, location, rest, budget_s=budget_s, cancel=cancel)
    return further if _fails(further) else None


def _joined(first: CallRun, second: CallRun) -> CallRun:
    """Two runs of disjoint files as one."""
    collected = CollectResult(
        first.collected.items + second.collected.items,
        first.collected.errors + second.collected.errors,
        first.collected.isolation,
        error=first.collected.error or second.collected.error,
    )
    return CallRun(
        calls={**first.calls, **second.calls},
        outcomes={**first.outcomes, **second.outcomes},
        collected=collected,
        seconds=first.seconds + second.seconds,
        out_of_time=second.out_of_time,
        error=first.error or second.error,
    )


def _from_cache(answer: dict[str, Any]) -> Discovery:
    found = Discovery.from_json(answer["found"])
    found.cached = True
    if answer.get("message"):
        raise DiscoveryError(f"{answer['message']} (cached)")
    return found


def _static_only(
    static: StaticDiscovery, qualname: str, file: Path, project_root: Path, why: str
) -> Discovery:
    """The static answer when the tests could not be run (the module does not import ...)."""
    if not static.candidates:
        raise DiscoveryError(no_tests_message(static, qualname, file, project_root))
    solid = [c for c in static.candidates if c.score >= WEAK] or list(static.candidates)
    note = (
        why.strip().splitlines()[-1][:300] if why.strip() else "the function could not be located"
    )
    return Discovery(
        qualname, solid, "static", static_count=len(static.candidates),
        warnings=static.warnings, note=note,
    )  # fmt: skip


def _choose(
    static: StaticDiscovery, run: CallRun, qualname: str, project_root: Path, args: list[str]
) -> Discovery:
    """The tests that executed the target: those with static evidence first (by evidence),
    then the ones found only by running (a fixture, a wrapper further away), in run order."""
    evidence = {c.nodeid: c for c in static.candidates}
    items = {item.nodeid: item for item in static.items}
    order = {nodeid: index for index, nodeid in enumerate(run.outcomes)}
    chosen = []
    for nodeid, count in run.calls.items():
        runs = f"runs it {count} time{'' if count == 1 else 's'}"
        known = evidence.get(nodeid)
        if known is not None:
            score, reason = max(known.score, WEAK), f"{known.reason}; {runs}"
            path, line = known.file, known.line
        else:
            item = items.get(nodeid)
            path = item.path if item else project_root / nodeid_file(nodeid)
            line = item.line if item else 0
            score, reason = WEAK, f"{runs} (through code its text does not name)"
        chosen.append(TestCandidate(nodeid, path, line, score, reason))

    def rank(candidate: TestCandidate) -> tuple[float, int]:
        known = evidence.get(candidate.nodeid)
        return -(known.score if known else 0.0), order.get(candidate.nodeid, len(order))

    chosen.sort(key=rank)
    files_run = list(dict.fromkeys(nodeid_file(nodeid) for nodeid in run.outcomes))
    note = ""
    if run.out_of_time:
        note = f"stopped by the time budget after {len(files_run)} of {len(args)} files"
    return Discovery(
        qualname,
        chosen,
        "executed",
        files_run=files_run,
        tests_run=len(run.outcomes),
        static_count=len(static.candidates),
        failing=[c.nodeid for c in chosen if run.outcomes.get(c.nodeid) in FAILED],
        warnings=static.warnings,
        note=note,
    )


def _none_message(found: Discovery, qualname: str, static: StaticDiscovery) -> str:
    files = found.files_run
    listed = ", ".join(files[:LISTED_FILES]) + (
        f" and {len(files) - LISTED_FILES} more" if len(files) > LISTED_FILES else ""
    )
    ran = (
        f"ran {found.tests_run} tests in {len(files)} files ({listed})"
        if files
        else "no test file ran"
    )
    static_note = (
        f"; {len(static.candidates)} tests name it but did not run it (skipped?)"
        if static.candidates
        else ""
    )
    broken = "".join(f"\n  {w}" for w in static.warnings)
    return (
        f"no test executes {qualname}: {ran}, {found.seconds:.1f} s{static_note}; "
        f"name tests explicitly (--test NODEID) or write one{broken}"
    )
