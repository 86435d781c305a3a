"""Launch the edit-search plugin (`_selfdebug_search_v1.py`) through `ProjectRunner.run_plugin`:
line coverage of the target function, and many candidate versions of it judged in one pytest
process per batch. Same shadow copy, sandbox, limits and watchdog as every run; the user's files
are never touched (the buggy text goes in as an override, like every run's).

A candidate that hangs past the in-process alarm gets the process killed by the watchdog; it is
recorded as timed out and the remaining candidates continue in a fresh process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.runner import PluginRun, ProjectRunner

PLUGIN = Path(__file__).with_name("_selfdebug_search_v1.py")
INPUTS = Path(__file__).with_name("_selfdebug_inputs_v1.py")  # imported by the plugin
MAX_RESTARTS = 5


@dataclass(frozen=True)
class TestCoverage:
    outcome: str  # "passed" | "failed" | "error" | "skipped"
    lines: frozenset[int]  # 1-based file lines of the target function that the test ran
    plain_s: float = 0.0  # this test's time without tracing
    covered_s: float = 0.0  # ... and with


@dataclass
class CoverageRun:
    tests: dict[str, TestCoverage] = field(default_factory=dict)
    plain_s: float = 0.0  # all tests, no tracing (measured only on request)
    covered_s: float = 0.0  # all tests, tracing the target only
    error: str = ""

    @property
    def overhead(self) -> float:
        return self.covered_s / self.plain_s if self.plain_s > 0 else 0.0


@dataclass(frozen=True)
class CandidateCode:
    """One version of the function: column-0 text whose first line is file line `first_line`;
    with `outside`, statements run where they are defined before its tests (a constant's new
    value: `[("", "LIMIT = 10")]`, a class attribute's: `[("Outer.Inner", "size = 4")]`), and
    with `defaults`, its def line's default values replace the function's."""

    id: int
    code: str
    first_line: int  # 1-based
    outside: tuple[tuple[str, str], ...] = ()  # (class qualname or "" for the module, statement)
    defaults: bool = False

    def job(self) -> dict[str, Any]:
        """The plugin's view of it (`_selfdebug_search_v1.py`)."""
        job: dict[str, Any] = {"id": self.id, "code": self.code, "first_line": self.first_line}
        if self.outside:
            job["outside"] = [{"namespace": n, "statement": s} for n, s in self.outside]
        if self.defaults:
            job["defaults"] = True
        return job


@dataclass
class Verdict:
    id: int
    outcomes: dict[str, str]  # nodeid -> outcome (chosen tests stop at the first failure)
    problem: str = ""  # did not compile / does not fit the closure
    timed_out: bool = False
    seconds: float = 0.0


@dataclass
class CrossCheckRun:
    """Versions of the function run on generated inputs (_selfdebug_inputs_v1.py): each input's
    text (`[3, 1], 2`), and per version id ("original" or a candidate's id) one outcome per
    input: `ok:<result>`, `raise:<exception type>` or `timeout`."""

    inputs: list[str] = field(default_factory=list)
    outcomes: dict[str, list[str]] = field(default_factory=dict)
    recorded: int = 0  # calls of the function seen in the tests (the inputs' models)
    problems: dict[str, str] = field(default_factory=dict)  # id -> why it did not compile
    error: str = ""
    seconds: float = 0.0


@dataclass
class JudgeRun:
    verdicts: dict[int, Verdict] = field(default_factory=dict)
    chosen: list[str] = field(default_factory=list)  # collected ids of the chosen tests
    wider: list[str] = field(default_factory=list)
    unsteady: set[str] = field(default_factory=set)  # wider tests failing on a re-run, unchanged
    error: str = ""
    cancelled: bool = False
    out_of_time: bool = False
    seconds: float = 0.0


class SearchRunner:
    """Coverage and candidate judging for one target function in one project."""

    def __init__(
        self, runner: ProjectRunner, file: Path, qualname: str, source: str, line: int = 0
    ) -> None:
        self.runner = runner
        self.file = Path(file).resolve()
        self.qualname = qualname
        self.source = source  # the file text the tests import (the buffer, not the disk)
        self.line = line  # the function's first line (1-based, decorators included); 0: unknown

    def _run(
        self,
        job: dict[str, Any],
        tests: Sequence[str],
        cancel: CancelToken | None,
        timeout_s: float | None,
    ) -> PluginRun:
        job = {"file": str(self.shadow_file()), "qualname": self.qualname, "line": self.line,
               **job}  # fmt: skip
        return self.runner.run_plugin(
            PLUGIN,
            list(dict.fromkeys(tests)),
            job=json.dumps(job),
            overrides={self.file: self.source},
            cancel=cancel,
            timeout_s=timeout_s,
        )

    def shadow_file(self) -> Path:
        return self.runner.shadow.to_shadow(self.file)

    def coverage(
        self,
        tests: Sequence[str],
        *,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
        measure: bool = False,
    ) -> CoverageRun:
        """Each test's outcome and the target's lines it ran (one process); with `measure`, also
        the tests' time with and without tracing (the benchmark's overhead figure)."""
        # a hung test is stopped before the watchdog would kill the process, keeping its lines
        test_timeout_s = max(0.5, self.runner.settings.test_timeout_s - 0.5)
        job = {"coverage": True, "measure": measure, "chosen": list(tests),
               "test_timeout_s": test_timeout_s}  # fmt: skip
        run = self._run(job, tests, cancel, timeout_s)
        result = CoverageRun()
        for event in run.events:
            if event.get("event") == "search_coverage":
                result.tests = {
                    nodeid: TestCoverage(
                        str(t["outcome"]),
                        frozenset(int(x) for x in t["lines"]),
                        float(t.get("plain_s", 0.0)),
                        float(t.get("covered_s", 0.0)),
                    )
                    for nodeid, t in event["tests"].items()
                }
                result.plain_s = float(event["plain_s"])
                result.covered_s = float(event["covered_s"])
            elif event.get("event") == "search_error":
                result.error = str(event["message"])
        if not result.tests and not result.error:
            result.error = _failure(run)
        return result

    def crosscheck(
        self,
        candidates: Sequence[CandidateCode],
        tests: Sequence[str],
        *,
        count: int = 200,
        seed: int = 0,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
    ) -> CrossCheckRun:
        """The original and `candidates` on `count` inputs generated from the calls `tests` make
        of the function, in one process (same sandbox; a CPU alarm per call)."""
        import shutil
        import time

        started = time.monotonic()
        tools = self.runner.supervisor.tools
        if not (tools / INPUTS.name).exists():  # the plugin imports it from its own folder
            shutil.copyfile(INPUTS, tools / INPUTS.name)
        per_version_s = max(0.5, min(2.0, self.runner.settings.test_timeout_s / 2 - 0.5))
        job = {
            "chosen": list(tests),
            "test_timeout_s": max(0.5, self.runner.settings.test_timeout_s - 0.5),
            "crosscheck": {"count": count, "seed": seed, "budget_s": per_version_s},
            "candidates": [c.job() for c in candidates],
        }
        run = self._run(job, tests, cancel, timeout_s)
        result = CrossCheckRun()
        for event in run.events:
            if event.get("event") == "search_crosscheck":
                result.inputs = [str(x) for x in event["inputs"]]
                result.outcomes = {str(k): [str(o) for o in v]
                                   for k, v in event["outcomes"].items()}  # fmt: skip
                result.recorded = int(event.get("recorded", 0))
                result.problems = {str(k): str(v) for k, v in event.get("problems", {}).items()}
            elif event.get("event") == "search_error":
                result.error = str(event["message"])
        if not result.outcomes and not result.error:
            result.error = _failure(run)
        result.seconds = time.monotonic() - started
        return result

    def judge(
        self,
        candidates: Sequence[CandidateCode],
        chosen: Sequence[str],
        wider: Sequence[str],
        *,
        cancel: CancelToken | None = None,
        timeout_s: float | None = None,
        stop_after: int = 0,
        per_candidate: Mapping[str, float] | None = None,
        must_pass: Sequence[str] = (),
        failing_first: Sequence[str] = (),
    ) -> JudgeRun:
        """Run every candidate (chosen tests first, wider ones only for those that pass) in as
        few processes as possible; `stop_after` candidates passing all of `must_pass` (default:
        every test) end the batch early. `failing_first`: chosen tests that failed on the
        original, each run for every candidate (not only up to the first failure), so that an
        edit fixing some of them shows, with the wider tests it keeps (the plugin's `_judge`)."""
        import time

        started = time.monotonic()
        result = JudgeRun()
        todo = list(candidates)
        restarts = 0
        while todo:
            remaining = None if timeout_s is None else timeout_s - (time.monotonic() - started)
            if remaining is not None and remaining <= 0:
                result.out_of_time = True
                break
            job = {
                "chosen": list(chosen),
                "test_timeout_s": max(0.5, self.runner.settings.test_timeout_s - 0.5),
                "candidates": [c.job() for c in todo],
                "stop_after": stop_after,
                "must_pass": list(must_pass),
                "failing_first": list(failing_first),
                **(per_candidate or {}),
            }
            run = self._run(job, [*chosen, *wider], cancel, remaining)
            for event in run.events:
                kind = event.get("event")
                if kind == "search_result":
                    verdict = Verdict(
                        id=int(event["id"]),
                        outcomes={str(k): str(v) for k, v in event["outcomes"].items()},
                        problem=str(event.get("problem", "")),
                        timed_out=bool(event.get("timed_out")),
                        seconds=float(event.get("seconds", 0.0)),
                    )
                    result.verdicts[verdict.id] = verdict
                elif kind == "search_ready":
                    result.chosen, result.wider = list(event["chosen"]), list(event["wider"])
                elif kind == "search_unsteady":
                    result.unsteady.update(str(n) for n in event["tests"])
                elif kind == "search_error":
                    result.error = str(event["message"])
            if run.cancelled or (cancel is not None and cancel.cancelled):
                result.cancelled = True
                break
            if result.error:
                break
            killed = run.killed_nodeid or ""
            if run.kill_reason in ("run-timeout",):
                result.out_of_time = True
                break
            parts = killed.split(":")  # "search:<id>[:<test nodeid>]"
            if run.kill_reason and parts[0] == "search" and parts[1:2] and parts[1].isdigit():
                killed_id = int(parts[1])
                result.verdicts[killed_id] = Verdict(killed_id, {}, timed_out=True)
                restarted = "hung"
            elif run.kill_reason or not any(e.get("event") == "search_ready" for e in run.events):
                result.error = _failure(run)
                break
            elif any(e.get("event") == "search_done" for e in run.events):
                break  # finished (or stopped after enough full passes)
            elif (cut := _in_flight(run, result.verdicts)) is not None:
                # the process ended in the middle of the batch (pytest's INTERNALERROR): the
                # candidate it was judging is marked, the others are judged in a new process
                why = f"ended the test process: {_failure(run)[-300:]}"
                result.verdicts[cut] = Verdict(cut, {}, problem=why)
                restarted = "ended"
            else:
                result.error = _failure(run)
                break
            restarts += 1
            todo = [c for c in todo if c.id not in result.verdicts]
            if restarts > MAX_RESTARTS:
                result.error = f"too many candidates {restarted} the test process"
                break
        result.seconds = time.monotonic() - started
        return result


def _in_flight(run: PluginRun, verdicts: Mapping[int, Verdict]) -> int | None:
    """The candidate a process was judging when it ended: the last one it started without a
    verdict; None when it started none."""
    started = [
        int(parts[1])
        for e in run.events
        if e.get("event") == "start"
        and len(parts := str(e.get("nodeid", "")).split(":")) == 2
        and parts[0] == "search"
        and parts[1].isdigit()
    ]
    return next((i for i in reversed(started) if i not in verdicts), None)


def _failure(run: PluginRun) -> str:
    if run.kill_reason:
        return f"the search process was stopped ({run.kill_reason})"
    return run.output_tail[-2000:] or "the search process reported nothing"
