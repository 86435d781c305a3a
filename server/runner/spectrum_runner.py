"""Launch the spectrum plugin (`_selfdebug_spectrum_v1.py`) through `ProjectRunner.run_plugin`:
for each test, its outcome and the lines of the project's own source files it ran, in one
pytest process. Same shadow copy, sandbox, limits and watchdog as every run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.runner import ProjectRunner

PLUGIN = Path(__file__).with_name("_selfdebug_spectrum_v1.py")


@dataclass(frozen=True)
class TestSpectrum:
    outcome: str  # "passed" | "failed" | "error" | "skipped"
    lines: dict[str, frozenset[int]]  # project file (relative, "/") -> 1-based lines it ran


@dataclass
class SpectrumRun:
    tests: dict[str, TestSpectrum] = field(default_factory=dict)
    error: str = ""


def spectrum(
    runner: ProjectRunner,
    tests: Sequence[str],
    *,
    cancel: CancelToken | None = None,
    timeout_s: float | None = None,
) -> SpectrumRun:
    """Each of `tests` run once with the project's lines traced (one process)."""
    run = runner.run_plugin(
        PLUGIN, list(dict.fromkeys(tests)), job=json.dumps({}), cancel=cancel, timeout_s=timeout_s
    )
    result = SpectrumRun()
    for event in run.events:
        if event.get("event") == "spectrum_test":
            lines = {str(p): frozenset(int(n) for n in ns) for p, ns in event["lines"].items()}
            result.tests[str(event["nodeid"])] = TestSpectrum(str(event["outcome"]), lines)
    if not result.tests:
        result.error = run.kill_reason or run.output_tail or "no test ran"
    return result
