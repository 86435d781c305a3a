"""The project's functions ranked for a failure: where to look first.

A function's score is the best Ochiai of its lines (the line-level ranking the search uses,
search/localize.py, over every project file the tests ran), so that a function whose one line
only the failing tests run comes before its caller, whose lines every test runs. Ties go to the
failure's own evidence: a function in the traceback of a failing test, then one the failing
line calls by name, then one the failing test's body calls before it fails (the unit under test,
as test-to-code traceability finds it: the test names what it checks), then the function-level
spectrum (more failing, fewer passing tests).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from selfdebug.server.engine.evidence import NO_EVIDENCE, Evidence, FailingTest
from selfdebug.server.engine.search.localize import ochiai
from selfdebug.server.engine.suspects.origin import statement_at, value_origins
from selfdebug.server.runner.results import Frame, nodeid_file
from selfdebug.server.runner.source_files import read_source_text
from selfdebug.server.runner.spectrum_runner import TestSpectrum


@dataclass(frozen=True)
class Suspect:
    file: str  # relative to the project root, "/"
    qualname: str
    line: int  # its `def` line (1-based)
    score: float  # the best Ochiai of its lines
    failing_hits: int  # failing tests that ran it
    failing_total: int
    passing_hits: int
    passing_total: int
    crashed_in: bool = False  # a failing test's error came from one of its operations
    value_origin: bool = False  # its result is a value the crashing line read (origin.py)
    in_traceback: bool = False
    called_by_failing_line: bool = False
    called_by_test: bool = False  # the failing test's body calls it before the failing line
    failing_tests: tuple[str, ...] = ()  # the failing tests that ran it (node ids)

    @property
    def target(self) -> str:
        return f"{self.file}::{self.qualname}"

    def describe(self) -> str:
        """ "4/4 failing tests run it, 2/212 passing do" (and the failure's own evidence)."""
        text = (
            f"{self.failing_hits}/{self.failing_total} failing tests run it, "
            f"{self.passing_hits}/{self.passing_total} passing do"
        )
        if self.crashed_in:
            text += "; the failing test's error was raised in it"
        elif self.value_origin:
            text += "; it made the value the failing test's error was raised on"
        elif self.in_traceback:
            text += "; in the failure's traceback"
        elif self.called_by_failing_line:
            text += "; the failing line calls it"
        elif self.called_by_test:
            text += "; the failing test calls it"
        return text


def function_spans(source: str) -> list[tuple[str, int, int, int]]:
    """(qualname, first line with decorators, def line, last line) of every function, the
    innermost last among those that hold a line."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    spans: list[tuple[str, int, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                spans.append((name, first, child.lineno, child.end_lineno or child.lineno))
                visit(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return spans


def rank_functions(
    spectra: Mapping[str, TestSpectrum],
    root: Path,
    evidence: Evidence = NO_EVIDENCE,
    *,
    read: Callable[[Path], str] | None = None,
) -> list[Suspect]:
    """Every project function some failing test ran, most suspicious first; `evidence`: the
    failing tests' own reports (their frames and failing lines, engine/evidence.py)."""
    failing = {n for n, t in spectra.items() if t.outcome in ("failed", "error", "timeout")}
    passing = {n for n, t in spectra.items() if t.outcome == "passed"}
    line_runs: dict[tuple[str, int], set[str]] = {}
    for nodeid, test in spectra.items():
        for path, lines in test.lines.items():
            for line in lines:
                line_runs.setdefault((path, line), set()).add(nodeid)
    files = {path for path, _line in line_runs}
    # each failing test's frames inside the root, outermost first; paths relative to it, "/"
    tracebacks = [t.frames_under(root) for t in evidence.failing]
    failing_lines = [t.first_frame.code for t in evidence.failing if t.first_frame is not None]
    test_lines = [line for t in evidence.failing for line in _test_lines(t, root)]
    called = _called_names(failing_lines)  # the line each failing test stopped at
    called_by_test = _called_names(test_lines)
    in_trace = {(f.path, f.line) for traceback in tracebacks for f in traceback}
    crashes = {(tb[-1].path, tb[-1].line) for tb in tracebacks if tb and tb[-1].path in files}
    origins = _value_origins(
        spectra, failing, files, tracebacks, lambda p: (read or _read)(root / p)
    )
    suspects = []
    for path in sorted(files):
        source = (read or _read)(root / path)
        spans = function_spans(source)
        crashed = {line for p, line in crashes if p == path and not _deliberate(source, line)}
        for qualname, first, def_line, last in spans:
            if ".<locals>." in qualname:
                continue  # a nested function is part of the one that defines it: its lines
                # count there, where a fix is made (the session edits named functions)
            inner = range(first, last + 1)  # with the functions nested in it
            runs = [line_runs.get((path, n), set()) for n in inner]
            ran_by: set[str] = set().union(*runs)
            fail_hits = len(ran_by & failing)
            if not fail_hits:
                continue
            best = max(
                (ochiai(len(r & failing), len(failing), len(r & passing)) for r in runs if r),
                default=0.0,
            )
            suspects.append(
                Suspect(
                    path,
                    qualname,
                    def_line,
                    round(best, 6),
                    fail_hits,
                    len(failing),
                    len(ran_by & passing),
                    len(passing),
                    crashed_in=any(n in crashed for n in inner),
                    value_origin=qualname.rsplit(".", 1)[-1] in origins.get(path, ()),
                    in_traceback=any((path, n) in in_trace for n in inner),
                    called_by_failing_line=qualname.rsplit(".", 1)[-1] in called,
                    called_by_test=qualname.rsplit(".", 1)[-1] in called_by_test,
                    failing_tests=tuple(sorted(ran_by & failing)),
                )
            )
    suspects.sort(
        key=lambda s: (
            not s.crashed_in,
            not s.value_origin,
            -s.score,
            not s.in_traceback,
            not s.called_by_failing_line,
            not s.called_by_test,
            -ochiai(s.failing_hits, s.failing_total, s.passing_hits),
            s.file,
            s.line,
        )
    )
    return suspects


def rank_of(target: str, suspects: Sequence[Suspect]) -> int | None:
    """The 1-based place of `target` (file::qualname) among `suspects`; None: not there."""
    targets = [s.target for s in suspects]
    return targets.index(target) + 1 if target in targets else None


def test_body_lines(source: str, line: int) -> list[str]:
    """The lines of the function in `source` (a test file) that holds `line`, from its `def`
    to `line`: what the test did before it failed."""
    spans = [span for span in function_spans(source) if span[1] <= line <= span[3]]
    if not spans:
        return []
    _name, _first, def_line, _last = spans[-1]
    return source.splitlines()[def_line - 1 : line]


def _value_origins(
    spectra: Mapping[str, TestSpectrum],
    failing: set[str],
    files: set[str],
    tracebacks: Sequence[Sequence[Frame]],
    read: Callable[[str], str],
) -> dict[str, set[str]]:
    """Per file, the names of the functions that made a value a failing test crashed on; a
    name counts in the files the crash's traceback passed through (where its calls resolve)."""
    ran: dict[str, frozenset[int]] = {}
    for nodeid in failing:
        for path, lines in spectra[nodeid].lines.items():
            ran[path] = ran.get(path, frozenset()) | lines
    origins: dict[str, set[str]] = {}
    for traceback in tracebacks:
        if not traceback or traceback[-1].path not in files:
            continue
        names = value_origins(traceback, read, ran)
        for frame in traceback:
            if frame.path in files:
                origins.setdefault(frame.path, set()).update(names)
    return origins


def _test_lines(test: FailingTest, root: Path) -> list[str]:
    """The failing test's lines, from its `def` to where it failed (its outermost frame in its
    own file: the test)."""
    own = test.test_file_frames(root)
    if not own:
        return []
    try:
        source = read_source_text((root / nodeid_file(test.nodeid)).resolve())
    except OSError:  # read as Python reads it (BOM, declaration), never failing on bytes
        return []
    return test_body_lines(source, own[0].line)


def _deliberate(source: str, line: int) -> bool:
    """Whether the statement at `line` is a `raise` or an `assert`: an error the code meant to
    raise, about a value that may have gone wrong anywhere before."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return isinstance(statement_at(tree, line), ast.Raise | ast.Assert)


def _read(path: Path) -> str:
    try:
        return read_source_text(path)
    except OSError:
        return ""


_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _called_names(lines: Iterable[str]) -> set[str]:
    return {name for line in lines for name in _CALL.findall(line)}
