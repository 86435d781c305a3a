"""From what pytest processes reported to the results callers read (`RunResult`, `CollectError`).

Why a module of its own: a run may take several pytest processes (a hung test is killed and the
rest get a fresh one), so results are gathered across them (`RunTally`), and every path and text
must be mapped from the shadow copy back to the user's tree, with instrumented lines mapped to the
original ones and long texts bounded (`ResultAssembler`). None of it starts a process.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from selfdebug.server.runner.events import (
    CollectionError,
    CollectionFailed,
    EventLog,
    FinishedTest,
    ProbesTruncated,
    RawFrame,
)
from selfdebug.server.runner.results import (
    CollectedItem,
    CollectError,
    Frame,
    ProbeRecord,
    RunResult,
    TestResult,
    nodeid_covers,
    nodeid_file,
)
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.shadow import ShadowCopy
from selfdebug.server.runner.supervision import ProcessRun, kill_message

TIMEOUT_KILLS = ("timeout", "run-timeout", "startup")  # a run killed for these `timed_out`


def truncate(text: str, cap: int) -> str:
    """`text` cut in the middle to about `cap` characters, with a marker that says how much."""
    if len(text) <= cap:
        return text
    half = cap // 2
    return f"{text[:half]}\n...[{len(text) - 2 * half} characters truncated]...\n{text[-half:]}"


def line_maps_of(written: Iterable[Path]) -> dict[Path, list[int]]:
    """For each file written for this run (shadow path): instrumented line -> original line, as
    `selfdebug.instrument.line_map` gives it. Read once, before any test can change the file."""
    from selfdebug.instrument import line_map

    maps = {}
    for shadow_path in written:
        try:
            mapping = line_map(shadow_path.read_bytes())
        except OSError:
            continue
        if mapping:
            maps[shadow_path] = mapping
    return maps


@dataclass(frozen=True)
class ResultAssembler:
    """Turns one project's events into results in the user's terms: paths and texts mapped back
    from the shadow copy, instrumented lines to original ones, long texts bounded."""

    shadow: ShadowCopy
    settings: RunnerSettings
    line_maps: Mapping[Path, list[int]] = field(default_factory=dict)  # shadow path -> map

    def map_text(self, text: str) -> str:
        root, user = str(self.shadow.root), str(self.shadow.project_root)
        return text.replace(root, user) if text else text

    def frame(self, raw: RawFrame) -> Frame:
        user = self.shadow.to_user(raw.path)
        if user is None:
            return Frame(raw.path, raw.line, raw.function, raw.code)
        line = raw.line
        mapping = self.line_maps.get(Path(raw.path))
        if mapping is not None and 0 < line <= len(mapping):  # `code` stays what actually ran
            line = mapping[line - 1]
        return Frame(str(user), line, raw.function, raw.code)

    def test_result(self, event: FinishedTest) -> TestResult:
        s = self.settings
        return TestResult(
            nodeid=event.nodeid,
            outcome=event.outcome,
            duration=event.duration,
            exc_type=event.exc_type,
            exc_module=event.exc_module,
            message=self.map_text(truncate(event.message, 4000)),
            assert_left=event.assert_left,
            assert_right=event.assert_right,
            assert_op=event.assert_op,
            frames=[self.frame(f) for f in event.frames],
            stdout=truncate(event.stdout, s.capture_cap_chars),
            stderr=truncate(event.stderr, s.capture_cap_chars),
            longrepr=self.map_text(truncate(event.longrepr, s.longrepr_cap_chars)),
        )

    def killed_result(self, run: ProcessRun, nodeid: str) -> TestResult:
        """The test the watchdog (or a cancel) killed, with its last output."""
        reason = run.kill_reason
        # No start marker left: the output cap dropped it; the newest output is the killed test's.
        text = run.output_of(nodeid).decode("utf-8", "replace")
        return TestResult(
            nodeid=nodeid,
            outcome="timeout" if reason in ("timeout", "run-timeout") else "error",
            duration=self.settings.test_timeout_s if reason == "timeout" else 0.0,
            exc_type={"timeout": "Timeout", "cancelled": "Cancelled"}.get(reason, "Killed"),
            message=self.kill_message(reason),
            stdout=truncate(text, self.settings.capture_cap_chars),
        )

    def kill_message(self, reason: str) -> str:
        return kill_message(reason, self.settings)

    def collected_items(self, events: EventLog) -> list[CollectedItem]:
        return [
            CollectedItem(
                nodeid=entry.nodeid,
                path=self.shadow.to_user(entry.path) or Path(entry.path),
                line=entry.line,
                domain=entry.domain,
            )
            for entry in events.collected()
        ]

    def collect_errors(self, events: EventLog) -> list[CollectError]:
        """One error per file that failed to collect: the exception when the plugin saw it,
        else the last line of pytest's report."""
        errors: dict[str, CollectError] = {}
        for error in events.of(CollectionError):
            errors.setdefault(error.nodeid, self._collect_error(error))
        for failed in events.of(CollectionFailed):
            if failed.nodeid not in errors:
                errors[failed.nodeid] = self._collect_failure(failed)
        return list(errors.values())

    def _collect_error(self, error: CollectionError) -> CollectError:
        return CollectError(
            nodeid=error.nodeid,
            path=str(self.shadow.to_user(error.path) or error.path),
            line=error.line,
            exc_type=error.exc_type,
            message=self.map_text(error.message),
            longrepr=self.map_text(error.longrepr),
        )

    def _collect_failure(self, failed: CollectionFailed) -> CollectError:
        longrepr = self.map_text(failed.longrepr)
        last = longrepr.strip().splitlines()[-1:] or [""]
        path = str(self.shadow.project_root / nodeid_file(failed.nodeid))
        return CollectError(failed.nodeid, path, 0, "CollectError", last[0], longrepr)

    def output_tail(self, run: ProcessRun, chars: int = 3000) -> str:
        return self.map_text(run.output_tail(chars))


def uncollected(
    requested: list[str], collected: list[str], collect_errors: list[CollectError]
) -> list[TestResult]:
    """Requested tests that never got collected (their file failed to import, say, after a
    candidate fix removed a name): each is an error carrying the reason, not silently gone."""
    if not collected and not collect_errors:
        return []
    missing = []
    for nodeid in requested:
        if "::" not in nodeid or any(nodeid_covers(nodeid, c) for c in collected):
            continue
        file = nodeid_file(nodeid)
        error = next((e for e in collect_errors if e.nodeid == file), None)
        message = error.describe() if error else "not collected"
        exc_type = error.exc_type if error else "NotCollected"
        missing.append(
            TestResult(nodeid, "error", exc_type=exc_type, message=message,
                       longrepr=error.longrepr if error else "")
        )  # fmt: skip
    return missing


def attach_probes(
    tests: Iterable[TestResult], records: Iterable[ProbeRecord | ProbesTruncated]
) -> None:
    """Give each test the probe records written while it ran."""
    by_id = {t.nodeid: t for t in tests}
    for record in records:
        if isinstance(record, ProbesTruncated):
            targets = [by_id[record.test]] if record.test in by_id else by_id.values()
            for truncated in targets:
                truncated.probes_truncated = True
        elif record.test in by_id:
            by_id[record.test].probes.append(record)


@dataclass
class RunTally:
    """What the pytest processes of one run found, gathered in collection order."""

    assembler: ResultAssembler
    results: dict[str, TestResult] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # the first collection's order
    errors: list[str] = field(default_factory=list)  # run-level problems, in order
    collect_errors: list[CollectError] = field(default_factory=list)
    kill_reasons: list[str] = field(default_factory=list)
    exit_code: int | None = None
    probe_records: list[ProbeRecord | ProbesTruncated] = field(default_factory=list)

    def add(self, run: ProcessRun) -> list[CollectError]:
        """Take one process's results; returns the collection errors it met."""
        self.exit_code = run.exit_code
        collected_ids = run.events.collected_ids()
        if collected_ids and not self.order:
            self.order = collected_ids
        for event in run.events.results():
            self.results[event.nodeid] = self.assembler.test_result(event)
        if run.kill_reason:
            self.kill_reasons.append(run.kill_reason)
            killed = run.killed_nodeid
            if killed and killed not in self.results:
                self.results[killed] = self.assembler.killed_result(run, killed)
                if killed not in self.order:
                    self.order.append(killed)
        new_errors = self.assembler.collect_errors(run.events)
        self.collect_errors += new_errors
        self.errors.extend(e.describe() for e in new_errors)
        self.probe_records += run.probe_records
        return new_errors

    def note_silent_exit(self, run: ProcessRun, new_errors: list[CollectError]) -> None:
        """A process that collected, ran and reported nothing: its output says why."""
        said = run.kill_reason or run.events.collected_ids() or new_errors or run.events.results()
        if not said:
            tail = self.assembler.output_tail(run)
            self.errors.append(tail or f"pytest exited with code {run.exit_code} before any test")

    def remaining(self) -> list[str]:
        """Collected tests without a result yet."""
        return [nodeid for nodeid in self.order if nodeid not in self.results]

    def result(
        self, requested: list[str], *, isolation: str, probes: bool, cancelled: bool
    ) -> RunResult:
        """Every test in collection order (then any other with a result), the requested ones
        that never got collected, and what went wrong for the run as a whole."""
        last_kill = self.kill_reasons[-1] if self.kill_reasons else ""
        not_run = f"not run: {self.assembler.kill_message(last_kill) if last_kill else 'not run'}"
        ordered = self.order + [n for n in self.results if n not in self.order]
        tests = [
            self.results.get(n) or TestResult(n, "error", exc_type="NotRun", message=not_run)
            for n in ordered
        ]
        tests += uncollected(requested, self.order, self.collect_errors)
        if probes:
            attach_probes(tests, self.probe_records)
        errors = list(self.errors)
        if not tests and last_kill:
            errors.append(self.assembler.kill_message(last_kill) + " before any test ran")
        return RunResult(
            tests=tests,
            isolation=isolation,
            duration=0.0,
            timed_out=any(r in TIMEOUT_KILLS for r in self.kill_reasons),
            cancelled=cancelled,
            error=self.assembler.map_text("\n".join(dict.fromkeys(errors))),
            exit_code=self.exit_code,
        )
