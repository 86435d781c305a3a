"""Test failures -> LSP diagnostics (`textDocument/publishDiagnostics`), and who owns them.

Why a store: diagnostics of several functions can sit in one file (and a test file can hold the
failures of several functions), but the protocol only publishes the full list per document.
Each debugged function owns its diagnostics, so clearing one function's leaves the others.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol.types import (
    Diagnostic,
    DiagnosticRelatedInformation,
    DiagnosticSeverity,
    Location,
)
from pygls.uris import from_fs_path

from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.search.localize import SuspiciousLine
from selfdebug.server.lsp.failure_evidence import evidence_lines
from selfdebug.server.lsp.positions import line_range
from selfdebug.server.runner.results import (
    Frame,
    RunResult,
    TestResult,
    failure_detail,
    nodeid_file,
)

SOURCE = "selfdebug"
MAX_PER_FUNCTION = 20  # a function with 500 failing tests needs a summary, not 500 squiggles


@dataclass(frozen=True)
class FunctionSpan:
    """Where the debugged function is: its file, name and 0-based [start_line, end_line)."""

    path: Path
    qualname: str
    start_line: int
    end_line: int

    def contains(self, frame: Frame) -> bool:
        return (
            _same_file(Path(frame.path), self.path)
            and self.start_line < frame.line <= self.end_line  # frame lines are 1-based
        )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


def failure_message(test: TestResult) -> str:
    """One line a user can act on: which test, and expected vs actual when pytest knew them (the
    model reads the same words: runner/results.failure_detail)."""
    detail = failure_detail(test).splitlines()[0]
    return (
        f"{test.nodeid} {detail}"
        if test.outcome == "timeout"
        else f"{test.nodeid} failed: {detail}"
    )


def lsp_diagnostics(
    run: RunResult, function: FunctionSpan, project_root: Path
) -> dict[str, list[Diagnostic]]:
    """Diagnostics per document URI for the failed tests of one run."""
    by_uri: dict[str, list[Diagnostic]] = {}
    function_uri = from_fs_path(str(function.path)) or ""
    for failing in Evidence.of(run).failing[:MAX_PER_FUNCTION]:
        test = failing.result
        inside = [f for f in test.frames if function.contains(f)]
        function_line = inside[-1].line - 1 if inside else function.start_line
        function_location = Location(uri=function_uri, range=line_range(function_line))

        test_file = (project_root / nodeid_file(test.nodeid)).resolve()
        in_test = failing.test_file_frames(project_root)
        name = function.qualname.rsplit(".", 1)[-1]
        evidence = evidence_lines(failing, name, in_test[-1] if in_test else None)
        message = "\n".join([failure_message(test), *evidence])  # the hover shows every line
        test_location = None
        if in_test:
            test_uri = from_fs_path(str(test_file)) or ""
            test_location = Location(uri=test_uri, range=line_range(in_test[-1].line - 1))
            by_uri.setdefault(test_uri, []).append(
                Diagnostic(
                    range=test_location.range,
                    message=message,
                    severity=DiagnosticSeverity.Error,
                    source=SOURCE,
                    code="test-failure",
                    related_information=[
                        DiagnosticRelatedInformation(
                            location=function_location, message=f"`{function.qualname}` is tested"
                        )
                    ],
                    data={"qualname": function.qualname, "nodeid": test.nodeid},
                )
            )
        related = (
            [DiagnosticRelatedInformation(location=test_location, message="failing assertion")]
            if test_location
            else None
        )
        by_uri.setdefault(function_uri, []).append(
            Diagnostic(
                range=function_location.range,
                message=message,
                severity=DiagnosticSeverity.Error,
                source=SOURCE,
                code="test-failure",
                related_information=related,
                data={"qualname": function.qualname, "nodeid": test.nodeid},
            )
        )
    if run.error and not run.tests:
        by_uri.setdefault(function_uri, []).append(
            Diagnostic(
                range=line_range(function.start_line),
                message=f"tests of `{function.qualname}` could not run: {run.error}",
                severity=DiagnosticSeverity.Error,
                source=SOURCE,
                code="run-error",
            )
        )
    return by_uri


Owner = tuple[str, str]  # (the function's document URI, its qualname)


def suspicious_diagnostics(
    lines: list[SuspiciousLine], function: FunctionSpan, limit: int = 3
) -> dict[str, list[Diagnostic]]:
    """The top suspicious lines of the function as Information diagnostics ("suspicious: run by
    2/2 failing and 0/5 passing tests"); they belong to the function, so they clear with its
    failures."""
    uri = from_fs_path(str(function.path)) or ""
    shown = [
        Diagnostic(
            range=line_range(s.line - 1),
            message=s.describe(),
            severity=DiagnosticSeverity.Information,
            source=SOURCE,
            code="suspicious-line",
            data={"qualname": function.qualname, "score": round(s.score, 3)},
        )
        for s in lines[:limit]
        if function.start_line < s.line <= function.end_line
    ]
    return {uri: shown} if shown else {}


@dataclass
class DiagnosticStore:
    """The server's test diagnostics, all in one place: each owner's diagnostics per URI, the
    text (hash) of the function they were computed for, and which functions were tested (what
    `runOnSave` re-runs). Thread-safe; `for_uri` is publish-ready."""

    _owned: dict[Owner, dict[str, list[Diagnostic]]] = field(default_factory=dict)
    _hashes: dict[Owner, str] = field(default_factory=dict)  # function hash when published
    _tested: dict[Owner, None] = field(default_factory=dict)  # ordered set: first test first
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def replace(self, owner: Owner, by_uri: dict[str, list[Diagnostic]]) -> set[str]:
        """Set an owner's diagnostics; returns every URI whose list changed."""
        with self._lock:
            return self._replace(owner, by_uri)

    def _replace(self, owner: Owner, by_uri: dict[str, list[Diagnostic]]) -> set[str]:
        before = set(self._owned.get(owner, {}))
        if by_uri:
            self._owned[owner] = by_uri
        else:
            self._owned.pop(owner, None)
        return before | set(by_uri)

    def add(
        self, owner: Owner, function_hash: str, by_uri: dict[str, list[Diagnostic]]
    ) -> set[str]:
        """Add to an owner's diagnostics (the suspicious lines beside its failures), only while
        they are still of the function text `function_hash`; returns the URIs to publish."""
        with self._lock:
            if self._hashes.get(owner) != function_hash:
                return set()
            owned = self._owned.setdefault(owner, {})
            for uri, diagnostics in by_uri.items():
                owned.setdefault(uri, []).extend(diagnostics)
            return set(by_uri)

    def record(
        self, owner: Owner, function_hash: str, by_uri: dict[str, list[Diagnostic]]
    ) -> set[str]:
        """An owner's diagnostics from a run of its function as `function_hash` says it was."""
        with self._lock:
            self._hashes[owner] = function_hash
            return self._replace(owner, by_uri)

    def clear(self, owner: Owner) -> set[str]:
        with self._lock:
            self._hashes.pop(owner, None)
            return self._replace(owner, {})

    def drop_outdated(self, uri: str, hash_now: Callable[[str], str | None]) -> set[str]:
        """Clear the owners in `uri` whose function text changed since their run (`hash_now`:
        qualname -> its hash in the document now); returns the URIs to publish again."""
        changed: set[str] = set()
        for owner in self.owners_in(uri):
            with self._lock:
                published = self._hashes.get(owner)
            if hash_now(owner[1]) != published:
                changed |= self.clear(owner)
        return changed

    def note_tested(self, owner: Owner) -> None:
        with self._lock:
            self._tested[owner] = None

    def tested_in(self, uri: str) -> list[str]:
        """Qualnames of the functions of `uri` whose tests have run."""
        with self._lock:
            return [qualname for function_uri, qualname in self._tested if function_uri == uri]

    def owners_in(self, uri: str) -> list[Owner]:
        with self._lock:
            return [owner for owner in self._owned if owner[0] == uri]

    def for_uri(self, uri: str) -> list[Diagnostic]:
        with self._lock:
            return [d for by_uri in self._owned.values() for d in by_uri.get(uri, [])]
