"""The supervisor on its own: any command (here not pytest) run sealed in a shadow copy, watched
through the plugin's event stream and killed when its test runs past the timeout, when it
writes too much, or on cancel. What other code (a candidate search) relies on to start processes
the way the runner does."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner.events import StartedTest
from selfdebug.server.runner.sandbox import choose_isolation
from selfdebug.server.runner.settings import RunnerSettings
from selfdebug.server.runner.supervision import MARKER_ENV, ProcessRun, Supervisor

# Says a test started (the plugin's event and stdout marker), prints, then hangs.
HANGS = """
import json, os, sys, time
with open(os.environ["SELFDEBUG_RESULT_STREAM"], "a") as stream:
    stream.write(json.dumps({"event": "start", "nodeid": "t.py::slow"}) + "\\n")
sys.stdout.write("before\\n\\x1e[selfdebug:start] t.py::slow\\n" + OUTPUT + "\\n")
sys.stdout.flush()
time.sleep(60)
"""


def supervisor(tmp_path: Path, **settings: object) -> Supervisor:
    project = tmp_path / "project"
    shadow = tmp_path / "work" / "shadow" / "project"
    project.mkdir()
    shadow.mkdir(parents=True)
    return Supervisor(
        settings=RunnerSettings(**settings),  # type: ignore[arg-type]
        isolation=choose_isolation("auto"),
        interpreter=Path(sys.executable),
        project_root=project,
        shadow_root=shadow,
        work_dir=tmp_path / "work",
    )


def run_script(
    sup: Supervisor, script: str, cancel: CancelToken | None = None
) -> tuple[ProcessRun, float]:
    with sup.run_folder() as folder:
        assert folder.env[MARKER_ENV] == folder.marker and folder.stream.exists()
        started = time.monotonic()
        run = sup.run(folder, [sys.executable, "-c", script], cancel=cancel)
        elapsed = time.monotonic() - started
    assert not folder.path.exists()  # the run's folder goes with the block
    return run, elapsed


def test_a_test_past_its_timeout_is_killed_with_its_own_output(tmp_path: Path) -> None:
    sup = supervisor(tmp_path, test_timeout_s=0.5, grace_s=0.1)
    run, elapsed = run_script(sup, "OUTPUT = 'still in slow'\n" + HANGS)
    assert (run.kill_reason, run.killed_nodeid) == ("timeout", "t.py::slow")
    assert run.events.of(StartedTest) == [StartedTest("t.py::slow")]
    assert run.output_of("t.py::slow") == b"still in slow\n"
    assert elapsed < 10


def test_output_past_the_cap_is_killed_and_bounded(tmp_path: Path) -> None:
    sup = supervisor(tmp_path, test_timeout_s=30, output_cap_bytes=100_000)
    run, elapsed = run_script(sup, "OUTPUT = 'x' * 1_000_000\n" + HANGS)
    assert run.kill_reason == "output" and run.killed_nodeid == "t.py::slow"
    assert len(run.output) <= 100_000 + 65536
    assert elapsed < 10


def test_cancel_kills_the_process_at_once(tmp_path: Path) -> None:
    sup = supervisor(tmp_path, test_timeout_s=30)
    cancel = CancelToken()
    threading.Timer(0.5, cancel.cancel, args=("user",)).start()
    run, elapsed = run_script(sup, "OUTPUT = ''\n" + HANGS, cancel)
    assert run.kill_reason == "cancelled" and run.killed_nodeid == "t.py::slow"
    assert elapsed < 10


@pytest.mark.parametrize("code", [0, 3])
def test_a_process_that_ends_on_its_own_keeps_its_exit_code(tmp_path: Path, code: int) -> None:
    run, _ = run_script(supervisor(tmp_path), f"print('hi'); raise SystemExit({code})")
    assert (run.kill_reason, run.exit_code, run.output_tail()) == ("", code, "hi")
