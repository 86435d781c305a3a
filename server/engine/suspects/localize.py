"""The runs behind a failure's ranking: the failing tests once as usual (their tracebacks and
failing lines), then they and the tests beside them (the same files) once with the project's
lines traced (server/runner/spectrum_runner.py), then a second ring: the test files that name one
of the top suspects, so that each suspect is also seen where it works (a file of two tests says
little about the functions its failing test runs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from selfdebug.server.cancel import CancelToken
from selfdebug.server.engine.suspects.rank import FailureEvidence, Suspect, rank_functions
from selfdebug.server.runner import ProjectRunner
from selfdebug.server.runner.results import Frame, RunResult, nodeid_file
from selfdebug.server.runner.spectrum_runner import TestSpectrum, spectrum

RING_SUSPECTS = 5  # the suspects whose tests make the second ring
RING_FILES = 8  # test files in the second ring at most, nearest to their suspect first


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
    ran: dict[str, TestSpectrum] = dict(spectra.tests)
    frames = [_relative(f, root) for t in run.tests if not t.ok for f in t.frames]
    evidence = FailureEvidence(
        frames=[f for f in frames if f is not None],
        failing_lines=[t.frames[0].code for t in run.tests if not t.ok and t.frames],
    )
    found.suspects = rank_functions(ran, root, evidence)
    ring = second_ring(root, found.suspects[:RING_SUSPECTS], set(beside))
    if ring:
        more = spectrum(runner, ring, cancel=cancel, timeout_s=timeout_s)
        ran.update(more.tests)  # a ring that cannot run leaves the first ranking
        found.suspects = rank_functions(ran, root, evidence)
    found.tests_run = len(ran)
    return found


def second_ring(root: Path, suspects: Sequence[Suspect], done: set[str]) -> list[str]:
    """The test files that name one of `suspects` (as discovery finds a function's tests) and
    are not among `done`: RING_FILES at most, taken in turns from the suspects (best first),
    each suspect's nearest file first, so that one suspect with many test files does not fill
    the ring alone."""
    from itertools import chain, zip_longest

    from selfdebug.server.runner.discover import likely_test_files, make_target
    from selfdebug.server.runner.discover_exec import nearness

    per_suspect: list[list[str]] = []
    for suspect in suspects:
        file = root / suspect.file
        try:
            named = likely_test_files(root, make_target(root, file, suspect.qualname))
        except (OSError, ValueError):
            continue
        named.sort(key=lambda p: nearness(p, file, root))
        per_suspect.append([Path(p).as_posix() for p in named if Path(p).as_posix() not in done])
    in_turns = chain.from_iterable(zip_longest(*per_suspect))
    return list(dict.fromkeys(p for p in in_turns if p is not None))[:RING_FILES]


def _relative(frame: Frame, root: Path) -> Frame | None:
    try:
        path = Path(frame.path).resolve().relative_to(root.resolve())
    except ValueError:
        return None
    return Frame(path.as_posix(), frame.line, frame.function, frame.code)
