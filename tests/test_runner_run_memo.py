"""Real pytest runs on the `calc` fixture answered by an earlier run (`run(reuse=True)`,
run_memo.py): only the same tests on the same program, never a run that was cut short."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from selfdebug.server.runner import ProjectRunner, RunnerSettings

FIXTURES = Path(__file__).parent / "fixtures" / "runner"
OPS = "tests/test_ops.py"
MEAN = f"{OPS}::test_mean_module"


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    root = tmp_path / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    return root


@pytest.fixture
def runner(calc: Path):
    with ProjectRunner(calc, RunnerSettings(test_timeout_s=5)) as project_runner:
        yield project_runner


def test_a_file_run_answers_for_its_tests_and_parametrized_cases(
    runner: ProjectRunner, started_runs: list[list[str]]
) -> None:
    whole = runner.run([OPS])
    some = runner.run([MEAN, f"{OPS}::test_parse_int"], reuse=True)
    assert len(started_runs) == 1
    expected = {t.nodeid: t.outcome for t in whole.tests
                if t.nodeid == MEAN or "test_parse_int[" in t.nodeid}  # fmt: skip
    assert {t.nodeid: t.outcome for t in some.tests} == expected
    assert len(expected) == 4 and (some.passed, some.total) == (2, 4)
    failed = some.by_id()[MEAN]
    assert failed.message == whole.by_id()[MEAN].message != ""


def test_without_reuse_every_run_is_its_own(
    runner: ProjectRunner, started_runs: list[list[str]]
) -> None:
    runner.run([OPS])
    runner.run([MEAN])
    assert len(started_runs) == 2


def test_the_same_program_through_an_override_of_the_files_own_text(
    runner: ProjectRunner, started_runs: list[list[str]], calc: Path
) -> None:
    ops = calc / "calc" / "ops.py"
    runner.run([MEAN])
    again = runner.run([MEAN], overrides={ops: ops.read_text()}, reuse=True)
    assert len(started_runs) == 1 and again.tests[0].outcome == "failed"


def test_another_program_runs_again(
    runner: ProjectRunner, started_runs: list[list[str]], calc: Path
) -> None:
    ops = calc / "calc" / "ops.py"
    fixed = ops.read_text().replace("(len(values) - 1)", "len(values)")
    runner.run([OPS])
    assert runner.run([MEAN], overrides={ops: fixed}, reuse=True).tests[0].outcome == "passed"
    assert len(started_runs) == 2
    # the fixed program's run answers for it, and the original's still for the original
    assert runner.run([MEAN], overrides={ops: fixed}, reuse=True).tests[0].outcome == "passed"
    assert runner.run([MEAN], reuse=True).tests[0].outcome == "failed"
    assert len(started_runs) == 2


def test_a_change_to_the_users_tree_runs_again(
    runner: ProjectRunner, started_runs: list[list[str]], calc: Path
) -> None:
    runner.run([OPS])
    ops = calc / "calc" / "ops.py"
    ops.write_text(ops.read_text().replace("(len(values) - 1)", "len(values)"))
    assert runner.run([MEAN], reuse=True).tests[0].outcome == "passed"
    assert len(started_runs) == 2


def test_tests_the_earlier_run_did_not_request_run_again(
    runner: ProjectRunner, started_runs: list[list[str]]
) -> None:
    runner.run([MEAN])
    wider = runner.run([OPS], reuse=True)
    assert len(started_runs) == 2 and wider.total == 7
    missing = runner.run([f"{OPS}::test_no_such_test"], reuse=True)
    assert len(started_runs) == 3 and missing.total == 0 and missing.error


def test_a_run_cut_short_is_not_kept(
    runner: ProjectRunner, started_runs: list[list[str]], calc: Path
) -> None:
    hanging = "import time\n\n\ndef test_hang():\n    time.sleep(60)\n"
    (calc / "tests" / "test_hang.py").write_text(hanging)
    hang = "tests/test_hang.py::test_hang"
    cut = runner.run([hang], timeout_s=2.0)
    assert cut.timed_out or cut.error
    runner.run([hang], timeout_s=2.0, reuse=True)
    assert len(started_runs) == 2
