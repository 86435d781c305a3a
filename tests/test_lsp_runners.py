"""RunnerPool: the server's jobs reuse warm shadow copies, never share one at a time."""

from pathlib import Path

from selfdebug.server.lsp.runners import RunnerPool
from selfdebug.server.runner import RunnerSettings


def _project(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "test_calc.py").write_text(
        "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    return tmp_path


def test_a_returned_runner_is_lent_again_with_its_warm_copy(tmp_path):
    root = _project(tmp_path)
    pool = RunnerPool()
    settings = RunnerSettings()
    with pool.lend(root, settings) as first:
        assert first.run(["test_calc.py::test_add"]).all_passed
    with pool.lend(root, settings) as second:
        assert second is first
        assert second.run(["test_calc.py::test_add"]).all_passed
    shadow = first.shadow.root
    assert shadow.exists()
    pool.close()
    assert not shadow.exists()


def test_busy_runners_are_not_shared_and_settings_keep_copies_apart(tmp_path):
    root = _project(tmp_path)
    pool = RunnerPool(max_idle_per_project=1)
    with pool.lend(root, RunnerSettings()) as a, pool.lend(root, RunnerSettings()) as b:
        assert a is not b
    with pool.lend(root, RunnerSettings(test_timeout_s=3.0)) as other:
        assert other is not a and other is not b
    pool.close()
    # only one idle runner per key was kept: the other was closed when given back
    assert sum(r.shadow.root.exists() for r in (a, b)) == 0


def test_a_runner_lent_again_runs_the_tests_afresh(tmp_path, started_runs):
    """Runs kept for `reuse` answer within one job only: by the next one an installed package
    or the clock may have changed what the tests see."""
    root = _project(tmp_path)
    pool = RunnerPool()
    test = "test_calc.py::test_add"
    with pool.lend(root, RunnerSettings()) as runner:
        assert runner.run([test]).all_passed
        assert runner.run([test], reuse=True).all_passed
        assert len(started_runs) == 1  # the same job: its run answers
    with pool.lend(root, RunnerSettings()) as again:
        assert again is runner
        assert again.run([test], reuse=True).all_passed
    assert len(started_runs) == 2
    pool.close()
