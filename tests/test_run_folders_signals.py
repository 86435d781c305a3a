"""A run ends tidily however its process is ended: real `selfdebug` processes, real signals, a
tiny project whose test sleeps (so a run is surely on when the signal comes).

- `selfdebug fix` (a function, or from the failing test) and `selfdebug test` stopped by SIGTERM
  or SIGHUP cancel the run, leave no run folder and no test process, and exit 128 + the signal.

Every run folder lives in SELFDEBUG_RUNS_DIR, pointed at the test's own folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SELFDEBUG = [sys.executable, "-m", "selfdebug"]
CALC = "def add(a, b):\n    return a - b\n"
SLOW_TEST = """\
import os
import time

from calc import add


def test_add():
    with open("started", "w") as handle:  # in the shadow copy: the test runs now
        handle.write(str(os.getpid()))
    time.sleep(60)
    assert add(1, 2) == 3
"""
TEST_ID = "test_calc.py::test_add"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'calc'\n", encoding="utf-8")
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "test_calc.py").write_text(SLOW_TEST, encoding="utf-8")
    return root


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return tmp_path / "runs"


def environment(tmp_path: Path, runs: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_")}
    env["SELFDEBUG_RUNS_DIR"] = str(runs)
    env["SELFDEBUG_CACHE_DIR"] = str(tmp_path / "cache")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_for_the_test(runs: Path, alive: Callable[[], bool], timeout_s: float = 60) -> int:
    """The pid of the slow test once it runs in a shadow copy under `runs`. Polls the file
    system: nothing announces a test process starting."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for started in runs.glob("*/shadow/*/started"):
            text = started.read_text(encoding="utf-8")
            if text:
                return int(text)
        assert alive(), "selfdebug ended before the test started"
        time.sleep(0.05)
    raise AssertionError("the slow test never started")


def folders(runs: Path) -> list[Path]:
    return sorted(runs.iterdir()) if runs.exists() else []


@pytest.mark.parametrize(
    ("command", "signum"),
    [
        (["fix", "calc.py::add", "--test", TEST_ID, "--mode", "search"], signal.SIGTERM),
        (["fix", "--test", TEST_ID, "--mode", "search"], signal.SIGTERM),  # from the failure
        (["test", "calc.py::add", "--test", TEST_ID], signal.SIGHUP),
    ],
    ids=["fix-sigterm", "fix-from-failure-sigterm", "test-sighup"],
)
def test_a_signal_ends_the_cli_run_like_ctrl_c(
    project: Path, runs: Path, tmp_path: Path, command: list[str], signum: int
) -> None:
    process = subprocess.Popen(
        [*SELFDEBUG, *command, "--isolation", "rlimits"],
        cwd=project,
        env=environment(tmp_path, runs),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        test_pid = wait_for_the_test(runs, lambda: process.poll() is None)
        assert folders(runs)
        process.send_signal(signum)
        output, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, output.decode(errors="replace")
    assert folders(runs) == []
    assert not running(test_pid)
