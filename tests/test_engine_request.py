"""build_request: the default regression guard is the chosen tests' whole files."""

from pathlib import Path

from selfdebug.server.engine import build_request, default_wider_tests


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
    assert default.tests == chosen
    assert default.wider_tests == ["tests/test_calc.py"]
    none = build_request(
        root / "calc.py", "add", tests=chosen, wider_tests=[], project_root=root, cwd=root
    )
    assert none.wider_tests == []
