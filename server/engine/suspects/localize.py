"""The runs behind a failure's ranking: the failing tests once as usual (their tracebacks and
failing lines), then they and the tests beside them (the same files) once with the project's
lines traced (server/runner/spectrum_runner.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.suspects.rank import (
    FailureEvidence,
    Suspect,
    rank_functions,
    test_body_lines,
)
from selfdebug.server.runner import ProjectRunner
from selfdebug.server.runner.results import Frame, RunResult, TestResult, nodeid_file
from selfdebug.server.runner.source_files import read_source_text
from selfdebug.server.runner.spectrum_runner import spectrum


@dataclass
class FailureLocalization:
    failing: list[str]  # the given tests that fail
    suspects: list[Suspect] = field(default_factory=list)  # most suspicious first
    tests_run: int = 0  # tests whose spectra were compared
    run: RunResult | None = None  # the failing tests' own run
    error: str = ""  # why there is no ranking

    @property
    def passed(self) -> bool:
        """The given tests ran and none failed: nothing to localize."""
        return self.run is not None and bool(self.run.tests) and not self.failing

    def table(self, k: int = 5) -> list[str]:
        """The ranking as the CLI prints it."""
        rows = [f"  {i}. {s.target} (score {s.score:.2f}): {s.describe()}"
                for i, s in enumerate(self.suspects[:k], 1)]  # fmt: skip
        return [f"Suspects ({len(self.suspects)} functions the failing tests ran):", *rows]


def localize_failure(
    runner: ProjectRunner,
    root: Path,
    tests: Sequence[str],
    *,
    cancel: CancelToken | None = None,
    timeout_s: float | None = None,
) -> FailureLocalization:
    """Rank the project's functions for the failures of `tests` (node ids relative to `root`)."""
    run = runner.run(list(tests), cancel=cancel, timeout_s=timeout_s)
    failing = [t.nodeid for t in run.tests if not t.ok]
    found = FailureLocalization(failing, run=run)
    if run.error and not run.tests:
        found.error = f"the tests could not run: {run.error}"
        return found
    if not failing:
        found.error = "the tests pass: nothing to localize"
        return found
    beside = sorted({nodeid_file(n) for n in failing})
    spectra = spectrum(runner, [*failing, *beside], cancel=cancel, timeout_s=timeout_s)
    if spectra.error:
        found.error = f"the tests' spectra could not be taken: {spectra.error}"
        return found
    found.tests_run = len(spectra.tests)
    # each failing test's frames inside the project's tree (test files too: the ranking
    # decides what they are), outermost first
    inside = [
        [relative for f in t.frames if (relative := _relative(f, root))]
        for t in run.tests
        if not t.ok
    ]
    evidence = FailureEvidence(
        tracebacks=inside,
        failing_lines=[t.frames[0].code for t in run.tests if not t.ok and t.frames],
        test_lines=[line for t in run.tests if not t.ok for line in _test_lines(t, root)],
    )
    found.suspects = rank_functions(spectra.tests, root, evidence)
    return found


def _test_lines(test: TestResult, root: Path) -> list[str]:
    """The failing test's lines up to where it failed (its frame in its own file)."""
    path = (root / nodeid_file(test.nodeid)).resolve()
    own = [f for f in test.frames if (root / f.path).resolve() == path]
    if not own:
        return []
    try:
        source = read_source_text(path)
    except OSError:
        return []
    return test_body_lines(source, own[0].line)  # the outermost frame in the file: the test


def _relative(frame: Frame, root: Path) -> Frame | None:
    try:
        path = Path(frame.path).resolve().relative_to(root.resolve())
    except ValueError:
        return None
    return Frame(path.as_posix(), frame.line, frame.function, frame.code)
