"""build_request: the default regression guard is the chosen tests' whole files; options set
by the names the flags use land in their groups of the request."""

import dataclasses
from pathlib import Path

import pytest

from selfdebug.server.engine import build_request, default_wider_tests
from selfdebug.server.engine.request import new_request, with_options
from selfdebug.server.engine.types import Budget, DebugRequest, ModelOptions, Reporting, TargetSpec


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_calc.py").write_text(
        "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    return tmp_path


def test_default_wider_tests_are_the_files_of_the_chosen_tests_in_order():
    chosen = ["tests/test_b.py::C::m", "tests/test_a.py::t[1]", "tests/test_b.py::other"]
    assert default_wider_tests(chosen) == ["tests/test_b.py", "tests/test_a.py"]


def test_build_request_guards_with_the_test_file_unless_told_otherwise(tmp_path):
    root = _project(tmp_path)
    chosen = ["tests/test_calc.py::test_add"]
    default = build_request(root / "calc.py", "add", tests=chosen, project_root=root, cwd=root)
    assert default.target.tests == chosen
    assert default.target.wider_tests == ["tests/test_calc.py"]
    none = build_request(
        root / "calc.py", "add", tests=chosen, wider_tests=[], project_root=root, cwd=root
    )
    assert none.target.wider_tests == []


def test_a_session_runs_at_most_forty_found_tests_the_failing_first(tmp_path):
    """Discovery (real pytest runs) finds 60 tests that execute `add`, two of them failing, in
    two files: the session runs 40 for every candidate, both failing ones among them, and the
    other 20 are in the regression guard (their files); the found-by line says so."""
    root = _project(tmp_path)
    (root / "tests" / "test_calc.py").write_text(
        "import pytest\nfrom calc import add\n\n"
        "@pytest.mark.parametrize('n', range(30))\n"
        "def test_zero(n):\n    assert add(n, 0) == n\n"
    )
    (root / "tests" / "test_more.py").write_text(
        "import pytest\nfrom calc import add\n\n"
        "@pytest.mark.parametrize('n', range(28))\n"
        "def test_same(n):\n    assert add(0, 0) + n == n\n\n"
        "def test_one():\n    assert add(1, 1) == 2\n\n"
        "def test_two():\n    assert add(2, 2) == 4\n"
    )
    target = build_request(root / "calc.py", "add", project_root=root, cwd=root).target
    failing = {"tests/test_more.py::test_one", "tests/test_more.py::test_two"}
    assert len(target.tests) == 40 and len(set(target.tests)) == 40
    assert set(target.tests[:2]) == failing
    assert sorted(target.wider_tests) == ["tests/test_calc.py", "tests/test_more.py"]
    assert "runs 40 of them for every candidate" in target.tests_found_by
    assert "the other 20 in the regression check" in target.tests_found_by


def test_options_named_as_the_flags_name_them_land_in_their_groups(tmp_path):
    request = new_request(tmp_path / "m.py", "f", tmp_path, ["t.py::a"])
    transcript = tmp_path / "t.jsonl"
    changed = with_options(
        request, mode="search", auto_search=False, max_turns=3, model_stall_s=5.0, samples=4,
        transcript_path=transcript, tests_found_by="1 named test",
    )  # fmt: skip
    assert (changed.mode, changed.auto_search) == ("search", False)
    assert changed.budget == Budget(max_turns=3, model_stall_s=5.0)
    assert changed.model == ModelOptions(samples=4)
    assert changed.reporting == Reporting(transcript_path=transcript)
    assert changed.target == dataclasses.replace(request.target, tests_found_by="1 named test")
    assert request == new_request(tmp_path / "m.py", "f", tmp_path, ["t.py::a"])  # untouched


def test_a_misspelt_option_fails_loudly_and_each_option_name_is_one_field(tmp_path):
    request = new_request(tmp_path / "m.py", "f", tmp_path, ["t.py::a"])
    with pytest.raises(TypeError, match="max_turn, target"):
        with_options(request, max_turn=3, target=None)  # a group is not an option
    kinds = (DebugRequest, TargetSpec, Budget, ModelOptions, Reporting)
    names = [f.name for kind in kinds for f in dataclasses.fields(kind)]
    assert len(names) == len(set(names))  # else with_options could not tell where one goes
