"""Suite-wide rules.

SELFDEBUG_NO_SKIPS=1 (set by scripts/test.sh, hence by CI) turns every skip into a failure: a
test that needs the real model, bubblewrap or an editor must run where the suite claims to pass,
never be skipped quietly because a part is missing. SELFDEBUG_CACHE_DIR (test discovery's cache)
points at a temporary folder.
"""

from __future__ import annotations

import os
import tempfile

import pytest

_skipped: list[str] = []

# Test discovery caches its answers in the user's cache folder: never the developer's, here.
os.environ.setdefault("SELFDEBUG_CACHE_DIR", tempfile.mkdtemp(prefix="selfdebug-test-cache-"))


def _no_skips() -> bool:
    return os.environ.get("SELFDEBUG_NO_SKIPS", "") not in ("", "0")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if _no_skips() and report.skipped:
        _skipped.append(f"{report.nodeid}: {report.longrepr}")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _no_skips() and report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append(f"{report.nodeid}: {report.longrepr}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _skipped and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    if _skipped:
        terminalreporter.section("skipped, but SELFDEBUG_NO_SKIPS=1 forbids skips", red=True)
        for line in _skipped:
            terminalreporter.write_line(line)


@pytest.fixture
def started_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The node ids of each pytest run the real runner starts (a run its memo answers starts
    none), in order."""
    from selfdebug.server.runner import ProjectRunner

    started: list[list[str]] = []
    real = ProjectRunner._run_with_restarts

    def counting(self, nodeids, *args, **kwargs):  # type: ignore[no-untyped-def]
        started.append(list(nodeids))
        return real(self, nodeids, *args, **kwargs)

    monkeypatch.setattr(ProjectRunner, "_run_with_restarts", counting)
    return started
