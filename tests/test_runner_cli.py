"""`selfdebug test` end to end: real discovery and real pytest runs on a copy of `calc`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from selfdebug.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "runner"


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user") / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    return root


def test_failing_function_exits_1_with_json_details(
    calc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["test", f"{calc}/calc/ops.py::mean", "--json", "--timeout", "5"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [c["nodeid"] for c in report["candidates"]] == [
        "tests/test_ops.py::test_mean_module",
        "tests/test_more.py::test_through_a_helper",
    ]
    tests = {t["nodeid"]: t for t in report["result"]["tests"]}
    mean = tests["tests/test_ops.py::test_mean_module"]
    assert (mean["outcome"], mean["assert_left"], mean["assert_right"]) == ("failed", "3.0", "2")
    assert mean["frames"][-1]["path"] == str(calc / "tests" / "test_ops.py")
    assert report["result"]["passed"] == 0 and report["result"]["total"] == 2


def test_passing_function_exits_0_with_a_readable_summary(
    calc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["test", f"{calc}/calc/ops.py::add"]) == 0
    out = capsys.readouterr().out
    assert "2/2 passed" in out and "tests/test_ops.py::test_add_direct" in out
    assert "calls plus (imported from calc.ops)" in out


def test_explicit_tests_relative_to_the_current_directory(
    calc: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(calc / "tests")
    code = main(["test", "../calc/ops.py::parse_int", "--test", "test_ops.py::test_parse_int"])
    out = capsys.readouterr().out
    assert code == 1
    assert "2/3 passed" in out
    assert "tests/test_ops.py::test_parse_int[x-0]: ValueError invalid literal" in out
    assert "at calc/ops.py:" in out  # the innermost frame, in the user's file


def test_explicit_test_given_by_absolute_path_runs_in_the_copy(
    calc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    test_file = calc / "tests" / "test_ops.py"
    code = main(["test", f"{calc}/calc/ops.py::mean", "--test", f"{test_file}::test_mean_module"])
    out = capsys.readouterr().out
    assert code == 1
    assert "0/1 passed" in out  # one test, under its project-relative id, not also "not collected"
    assert "tests/test_ops.py::test_mean_module: AssertionError" in out


def test_explicit_test_outside_the_project_exits_2(
    calc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "test_elsewhere.py"
    outside.write_text("def test_x():\n    pass\n")
    assert main(["test", f"{calc}/calc/ops.py::mean", "--test", f"{outside}::test_x"]) == 2
    assert "outside the project" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing.py::f", "no such file"),
        ("calc/ops.py::nope", "no function named 'nope'"),
        ("calc/ops.py", "expected path/to/module.py::function"),
    ],
)
def test_input_errors_exit_2(
    calc: Path, capsys: pytest.CaptureFixture[str], target: str, message: str
) -> None:
    assert main(["test", f"{calc}/{target}"]) == 2
    assert message in capsys.readouterr().err


def test_no_tests_found_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    ops = root / "calc" / "ops.py"
    ops.write_text(ops.read_text() + "\n\ndef lonely():\n    return 1\n")
    assert main(["test", f"{ops}::lonely"]) == 2
    err = capsys.readouterr().err  # which files were run, and what to do
    assert "no test executes lonely: ran " in err and "tests/test_ops.py" in err
    assert "--test NODEID" in err
