"""Run folders (server/runner/workdirs.py): where they live, their owner's mark, and which ones a
start removes. Real processes stand for the owners: a live one, one that ended, and a live one
whose pid is marked with another start time (a pid the system gave again)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from selfdebug.server.runner import ProjectRunner
from selfdebug.server.runner.shadow import ShadowCopy
from selfdebug.server.runner.workdirs import (
    OWNER_FILE,
    RUNS_DIR_ENV,
    UNMARKED_GRACE_S,
    Owner,
    make_run_dir,
    read_owner,
    remove_stale,
    runs_dir,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache" / "selfdebug" / "runs"
    monkeypatch.setenv(RUNS_DIR_ENV, str(folder))
    return folder


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process
    process.kill()
    process.wait()


def marked(runs: Path, name: str, owner: Owner) -> Path:
    folder = runs / name
    folder.mkdir(parents=True)
    (folder / "shadow").mkdir()
    (folder / "shadow" / "module.py").write_text("x = 1\n", encoding="utf-8")
    (folder / OWNER_FILE).write_text(json.dumps(asdict(owner)), encoding="utf-8")
    return folder


def test_runs_dir_follows_the_override_then_the_cache_folders(tmp_path: Path) -> None:
    assert runs_dir({RUNS_DIR_ENV: str(tmp_path / "r")}) == tmp_path / "r"
    assert runs_dir({"SELFDEBUG_CACHE_DIR": str(tmp_path / "c")}) == tmp_path / "c" / "runs"
    assert runs_dir({"XDG_CACHE_HOME": str(tmp_path / "x")}) == tmp_path / "x/selfdebug/runs"
    assert runs_dir({}) == Path.home() / ".cache" / "selfdebug" / "runs"


def test_a_run_folder_is_owner_only_with_the_parents_it_made_and_marked_as_ours(
    runs: Path,
) -> None:
    folder = make_run_dir()
    assert folder.parent == runs
    for path in (folder, runs, runs.parent, runs.parent.parent):  # the cache folders it made
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    owner = read_owner(folder)
    assert owner is not None and owner.pid == os.getpid() and owner.started is not None
    assert owner.alive()
    assert remove_stale() == [] and folder.is_dir()  # our own folder: never removed


def test_the_runner_and_a_lone_shadow_copy_work_in_run_folders(runs: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "module.py").write_text("x = 1\n", encoding="utf-8")
    with ProjectRunner(project) as runner:
        assert runner.shadow.root.is_relative_to(runs)
        assert read_owner(runner.shadow.root.parent.parent) is not None
    shadow = ShadowCopy(project)
    assert shadow.root.is_relative_to(runs)
    shadow.close()
    assert list(runs.iterdir()) == []  # both removed their folders on the way out


def test_a_dead_owners_folder_is_removed(runs: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    owner = Owner.of(process.pid)  # read while it runs (or just after: /proc may be gone)
    process.wait()
    folder = marked(runs, "run-dead", owner)
    assert not owner.alive()
    assert remove_stale() == [folder]
    assert not folder.exists()


def test_a_live_owners_folder_is_kept(runs: Path, sleeper: subprocess.Popen[bytes]) -> None:
    folder = marked(runs, "run-live", Owner.of(sleeper.pid))
    assert remove_stale() == []
    assert (folder / "shadow" / "module.py").is_file()
    assert sleeper.poll() is None


def test_a_pid_given_again_to_another_process_is_not_the_owner(
    runs: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    """Same pid, another start time: the owner ended and the pid now names someone else."""
    live = Owner.of(sleeper.pid)
    assert live.started is not None
    folder = marked(runs, "run-reused", replace(live, started=live.started - 1))
    assert remove_stale() == [folder]
    assert sleeper.poll() is None  # the process that has the pid now is left alone


def test_a_folder_from_before_this_boot_is_removed(runs: Path) -> None:
    me = Owner.of(os.getpid())
    if me.boot is None:
        pytest.skip("no boot id here")
    folder = marked(runs, "run-old-boot", replace(me, boot="another-boot"))
    assert remove_stale() == [folder]


def test_another_machines_folder_is_never_judged(runs: Path) -> None:
    """A home shared between machines: their pids mean nothing here."""
    folder = marked(runs, "run-elsewhere", Owner(pid=2**22 + 1, started=1, boot=None, host="x"))
    assert remove_stale() == [] and folder.is_dir()


def test_an_unmarked_folder_is_removed_only_once_it_is_old(runs: Path) -> None:
    young = runs / "run-young"
    old = runs / "run-old"
    for folder in (young, old):
        folder.mkdir(parents=True)
    then = time.time() - UNMARKED_GRACE_S - 60
    os.utime(old, (then, then))
    assert remove_stale() == [old]
    assert young.is_dir()


def test_what_still_runs_in_a_dead_owners_folder_is_stopped(runs: Path) -> None:
    """Without bubblewrap a test process outlives a server killed with -9 (its own session)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    owner = Owner.of(process.pid)
    process.wait()
    folder = marked(runs, "run-orphan", owner)
    orphan = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        cwd=folder / "shadow",
        start_new_session=True,
    )
    try:
        assert remove_stale() == [folder]
        assert orphan.wait(timeout=5) == -9
    finally:
        orphan.kill()
        orphan.wait()


def test_remove_stale_never_raises(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("", encoding="utf-8")
    assert remove_stale(not_a_folder) == []
    assert remove_stale(tmp_path / "missing") == []
