"""The runs behind a failure's ranking: the failing tests once as usual (their tracebacks and
failing lines), then they and the tests beside them (the same files) once with the project's
lines traced (server/runner/spectrum_runner.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.evidence import Evidence
from selfdebug.server.engine.suspects.rank import Suspect, rank_functions
from selfdebug.server.runner import ProjectRunner
from selfdebug.server.runner.results import RunResult, nodeid_file
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
    found.suspects = rank_functions(spectra.tests, root, Evidence.of(run))
    return found
