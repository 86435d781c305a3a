"""Hostile tests against the real runner: each ends within its timeout + 1 s with the right
outcome, and nothing in the user's tree changes (hashed before and after)."""

from __future__ import annotations

import hashlib
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner import ProjectRunner, RunnerSettings, RunResult

FIXTURES = Path(__file__).parent / "fixtures" / "runner"
HOSTILE = "tests/test_hostile.py"
TIMEOUT = 2.0


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    """A loopback listener outside the sandbox that hostile tests try to reach."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.5)
    yield server
    server.close()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory, listener: socket.socket) -> Path:
    root = tmp_path_factory.mktemp("user") / "hostile"
    shutil.copytree(FIXTURES / "hostile", root)
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\n")
    (root / "target.txt").write_text(str(root))
    (root / "port.txt").write_text(str(listener.getsockname()[1]))
    return root


@pytest.fixture(scope="module")
def runner(hostile: Path) -> Iterator[ProjectRunner]:
    settings = RunnerSettings(test_timeout_s=TIMEOUT, output_cap_bytes=1 << 20, file_size_mb=16)
    with ProjectRunner(hostile, settings) as project_runner:
        yield project_runner


@pytest.fixture(scope="module")
def startup(runner: ProjectRunner) -> float:
    """Wall time of a run whose single test passes at once: pytest's own start-up cost."""
    result = runner.run([f"{HOSTILE}::test_passes"])
    assert result.tests[0].outcome == "passed"
    return result.duration


def run_contained(runner: ProjectRunner, root: Path, startup: float, test: str) -> RunResult:
    before = tree_hash(root)
    result = runner.run([f"{HOSTILE}::{test}"])
    assert result.duration <= startup + TIMEOUT + 1.0, f"{test} took {result.duration:.2f} s"
    assert tree_hash(root) == before, f"{test} changed the user's tree"
    return result


@pytest.mark.parametrize(
    ("test", "outcome", "exc_type", "output"),
    [
        ("test_loops_forever", "timeout", "Timeout", "looping"),
        ("test_catastrophic_regex", "timeout", "Timeout", "matching"),
        ("test_blocks_alarm_signal", "timeout", "Timeout", "alarm blocked, spinning"),
        ("test_fork_loop", "error", "Killed", ""),
        ("test_endless_output", "error", "Killed", "xxxxxxxxxx"),
        ("test_memory_hog", "failed", "MemoryError", ""),
        ("test_huge_file", "failed", "OSError", ""),
    ],
)
def test_runaway_tests_are_stopped(
    runner: ProjectRunner,
    hostile: Path,
    startup: float,
    test: str,
    outcome: str,
    exc_type: str,
    output: str,
) -> None:
    result = run_contained(runner, hostile, startup, test)
    (only,) = result.tests
    assert (only.outcome, only.exc_type) == (outcome, exc_type), only.message
    assert output in only.stdout


def test_setsid_grandchild_does_not_outlive_the_run(
    runner: ProjectRunner, hostile: Path, startup: float
) -> None:
    before = tree_hash(hostile)
    run_contained(runner, hostile, startup, "test_setsid_grandchild")
    time.sleep(1.5)  # the grandchild would write after 1 s
    assert not (hostile / "escaped.txt").exists()
    assert tree_hash(hostile) == before


def test_no_network_to_the_host(
    runner: ProjectRunner, hostile: Path, startup: float, listener: socket.socket
) -> None:
    if runner.isolation != "bwrap":
        pytest.skip("network isolation needs bubblewrap")
    (only,) = run_contained(runner, hostile, startup, "test_loopback_socket").tests
    assert only.outcome == "failed" and only.exc_type == "ConnectionRefusedError"
    with pytest.raises(TimeoutError):
        listener.accept()


def test_writes_outside_the_copy_fail(runner: ProjectRunner, hostile: Path, startup: float) -> None:
    if runner.isolation != "bwrap":
        pytest.skip("a read-only root needs bubblewrap")
    home_file = Path.home() / "home-file.txt"
    (writes,) = run_contained(runner, hostile, startup, "test_writes_home_and_git_hooks").tests
    assert writes.outcome == "failed" and "Read-only file system" in writes.message
    assert str(hostile / ".git" / "hooks" / "pre-commit") in writes.message
    (source,) = run_contained(runner, hostile, startup, "test_writes_user_source").tests
    assert source.outcome == "failed" and "Read-only file system" in source.message
    assert not home_file.exists()


def test_a_hard_kill_keeps_finished_results_and_runs_the_rest(
    runner: ProjectRunner, hostile: Path
) -> None:
    ids = [f"{HOSTILE}::{name}" for name in ("test_passes", "test_blocks_alarm_signal")]
    ids.append(f"{HOSTILE}::test_passes_after")
    result = runner.run(ids)
    assert [t.outcome for t in result.tests] == ["passed", "timeout", "passed"]
    assert result.timed_out
    assert "alarm blocked" in result.tests[1].stdout


def test_cancel_kills_the_tree_within_a_second(hostile: Path, startup: float) -> None:
    cancel = CancelToken()
    results: list[RunResult] = []
    with ProjectRunner(hostile, RunnerSettings(test_timeout_s=60)) as patient:
        thread = threading.Thread(
            target=lambda: results.append(
                patient.run([f"{HOSTILE}::test_blocks_alarm_signal"], cancel=cancel)
            )
        )
        thread.start()
        time.sleep(startup + 1.0)  # well inside the endless test
        cancelled_at = time.monotonic()
        cancel.cancel()
        thread.join(timeout=5)
        assert time.monotonic() - cancelled_at < 1.0
    (result,) = results
    assert result.cancelled
    (test,) = result.tests
    assert (test.outcome, test.exc_type) == ("error", "Cancelled")
    assert "alarm blocked" in test.stdout


def test_fallback_isolation_contains_runaways_too(hostile: Path) -> None:
    settings = RunnerSettings(isolation="rlimits", test_timeout_s=TIMEOUT)
    with ProjectRunner(hostile, settings) as fallback:
        assert fallback.isolation == "rlimits"
        startup = fallback.run([f"{HOSTILE}::test_passes"]).duration
        before = tree_hash(hostile)
        ids = [f"{HOSTILE}::test_fork_loop", f"{HOSTILE}::test_setsid_grandchild"]
        result = fallback.run(ids)
    # two pytest processes: the fork loop's is killed, a fresh one runs the second test
    assert result.duration <= 2 * startup + TIMEOUT + 1.0
    assert [t.outcome for t in result.tests] == ["error", "passed"]
    assert result.tests[0].message == "killed: the test started more than 64 processes"
    assert result.isolation == "rlimits"
    time.sleep(1.5)
    assert not (hostile / "escaped.txt").exists()
    assert tree_hash(hostile) == before


def test_without_pytest_timeout_the_watchdog_stops_hung_tests(
    tmp_path: Path, hostile: Path
) -> None:
    """A project interpreter with pytest but not pytest-timeout: the runner says so, and the
    outer watchdog alone still ends a hung test at its timeout with its last output."""
    ours = next(Path(p) for p in sys.path if (Path(p) / "_pytest").is_dir())
    deps = tmp_path / "deps"
    deps.mkdir()
    wanted = {"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py"}
    for entry in ours.iterdir():  # pytest and its own dependencies, nothing else
        if entry.name.split("-")[0] in wanted:
            (deps / entry.name).symlink_to(entry)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "deps.pth").write_text(f"{deps}\n")
    settings = RunnerSettings(interpreter=str(venv / "bin" / "python"), test_timeout_s=TIMEOUT)
    with ProjectRunner(hostile, settings) as bare:
        startup = bare.run([f"{HOSTILE}::test_passes"]).duration
        result = bare.run([f"{HOSTILE}::test_loops_forever", f"{HOSTILE}::test_passes_after"])
    assert any("pytest-timeout is not installed" in note for note in result.notes), result.error
    assert [t.outcome for t in result.tests] == ["timeout", "passed"], result.error
    assert "looping" in result.tests[0].stdout
    assert result.duration <= 2 * startup + TIMEOUT + 1.0
