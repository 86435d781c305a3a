"""The user's tree stays byte-identical over 100 real runs, normal, with overrides, with tests
that tamper with their copy, and killed mid-way; and every run sees the user's tree exactly."""

from __future__ import annotations

import hashlib
import random
import shutil
import threading
from pathlib import Path

import pytest

from selfdebug.server.cancel import CancelToken
from selfdebug.server.runner import ProjectRunner, RunnerSettings

FIXTURES = Path(__file__).parent / "fixtures" / "runner"
RUNS = 100
ADD = "tests/test_ops.py::test_add_direct"
MEAN = "tests/test_ops.py::test_mean_module"
TAMPER = "tests/test_tamper.py::test_tamper_with_the_copy"
SLOW = "tests/test_slow.py::test_slow_then_tamper"


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_hundred_runs_leave_the_tree_identical(tmp_path: Path) -> None:
    root = tmp_path / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    before = tree_bytes(root)
    digest = hashlib.sha256(repr(sorted(before.items())).encode()).hexdigest()
    ops = root / "calc" / "ops.py"
    fixed = ops.read_text().replace("(len(values) - 1)", "len(values)")
    # Autoload off: only pytest, pytest-timeout and our plugin start, so 100 runs stay quick.
    settings = RunnerSettings(
        test_timeout_s=2, extra_env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, max_restarts=0
    )
    rng = random.Random(1234)
    counts = {"plain": 0, "override": 0, "cancelled": 0}
    with ProjectRunner(root, settings) as runner:
        for index in range(RUNS):
            kind = ("plain", "override", "cancelled")[index % 3]
            if kind == "plain":
                result = runner.run([TAMPER, ADD, MEAN, SLOW])
                outcomes = [t.outcome for t in result.tests]
                # the tamper tests always find a pristine copy, whatever earlier runs did
                assert outcomes == ["passed", "passed", "failed", "passed"], result.error
            elif kind == "override":
                result = runner.run([MEAN, TAMPER], overrides={ops: fixed})
                assert [t.outcome for t in result.tests] == ["passed", "passed"], result.error
            else:
                cancel = CancelToken()
                timer = threading.Timer(rng.uniform(0.0, 1.0), cancel.cancel)
                timer.start()
                result = runner.run([SLOW, TAMPER], cancel=cancel)
                timer.join()
                assert result.cancelled or [t.outcome for t in result.tests] == [
                    "passed",
                    "passed",
                ]
            counts[kind] += 1
            assert tree_bytes(root) == before, f"run {index} ({kind}) changed the user's tree"
    after = tree_bytes(root)
    assert hashlib.sha256(repr(sorted(after.items())).encode()).hexdigest() == digest
    assert sum(counts.values()) == RUNS


@pytest.mark.parametrize("isolation", ["rlimits"])
def test_fallback_mode_restores_the_copy_too(tmp_path: Path, isolation: str) -> None:
    root = tmp_path / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    before = tree_bytes(root)
    settings = RunnerSettings(
        isolation=isolation, extra_env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    )  # type: ignore[arg-type]
    with ProjectRunner(root, settings) as runner:
        for _ in range(3):
            result = runner.run([SLOW, TAMPER])
            assert [t.outcome for t in result.tests] == ["passed", "passed"]
    assert tree_bytes(root) == before
