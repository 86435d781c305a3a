"""Test failures -> LSP diagnostics (`textDocument/publishDiagnostics`), and who owns them.

Why a store: diagnostics of several functions can sit in one file (and a test file can hold the
failures of several functions), but the protocol only publishes the full list per document.
Each debugged function owns its diagnostics, so clearing one function's leaves the others.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol.types import (
    Diagnostic,
    DiagnosticRelatedInformation,
    DiagnosticSeverity,
    Location,
)
from pygls.uris import from_fs_path

from selfdebug.server.lsp.failure_evidence import evidence_lines
from selfdebug.server.lsp.positions import line_range
from selfdebug.server.runner.results import Frame, RunResult, TestResult, nodeid_file

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
    """One line a user can act on: which test, and expected vs actual when pytest knew them."""
    if test.outcome == "timeout":
        return f"{test.nodeid} timed out"
    if test.assert_left is not None and test.assert_right is not None:
        if test.assert_op in (None, "=="):
            detail = f"got {test.assert_left}, expected {test.assert_right}"
        else:
            detail = f"assert {test.assert_left} {test.assert_op} {test.assert_right} is false"
    else:
        first_line = (test.message or "").strip().splitlines()[:1]
        detail = ": ".join(filter(None, [test.exc_type, *first_line])) or test.outcome
    return f"{test.nodeid} failed: {detail}"


def lsp_diagnostics(
    run: RunResult, function: FunctionSpan, project_root: Path
) -> dict[str, list[Diagnostic]]:
    """Diagnostics per document URI for the failed tests of one run."""
    by_uri: dict[str, list[Diagnostic]] = {}
    function_uri = from_fs_path(str(function.path)) or ""
    for test in [t for t in run.tests if not t.ok][:MAX_PER_FUNCTION]:
        inside = [f for f in test.frames if function.contains(f)]
        function_line = inside[-1].line - 1 if inside else function.start_line
        function_location = Location(uri=function_uri, range=line_range(function_line))

        test_file = (project_root / nodeid_file(test.nodeid)).resolve()
        in_test = [f for f in test.frames if _same_file(Path(f.path), test_file)]
        name = function.qualname.rsplit(".", 1)[-1]
        evidence = evidence_lines(test, name, in_test[-1] if in_test else None)
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


@dataclass
class DiagnosticStore:
    """Diagnostics per owner (function URI, qualname); thread-safe, publish-ready per URI."""

    _owned: dict[tuple[str, str], dict[str, list[Diagnostic]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def replace(self, owner: tuple[str, str], by_uri: dict[str, list[Diagnostic]]) -> set[str]:
        """Set an owner's diagnostics; returns every URI whose list changed."""
        with self._lock:
            before = set(self._owned.get(owner, {}))
            if by_uri:
                self._owned[owner] = by_uri
            else:
                self._owned.pop(owner, None)
            return before | set(by_uri)

    def clear(self, owner: tuple[str, str]) -> set[str]:
        return self.replace(owner, {})

    def owners_in(self, uri: str) -> list[tuple[str, str]]:
        with self._lock:
            return [owner for owner in self._owned if owner[0] == uri]

    def for_uri(self, uri: str) -> list[Diagnostic]:
        with self._lock:
            return [d for by_uri in self._owned.values() for d in by_uri.get(uri, [])]
