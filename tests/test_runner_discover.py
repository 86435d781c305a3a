"""Static discovery on real pytest collections: which tests exercise a function, ranked by
evidence, and clear messages (file and line) when test files do not collect: a broken file is
named, and never hides the tests of the files that collect."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfdebug.server.runner import DiscoveryError, ProjectRunner, find_project_root, find_tests
from selfdebug.server.runner.discover import StaticDiscovery, static_discovery

FIXTURES = Path(__file__).parent / "fixtures" / "runner"


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user") / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    return root


@pytest.fixture(scope="module")
def runner(calc: Path) -> Iterator[ProjectRunner]:
    with ProjectRunner(calc) as project_runner:
        yield project_runner


def found(runner: ProjectRunner, qualname: str) -> dict[str, tuple[float, str]]:
    ops = runner.project_root / "calc" / "ops.py"
    return {
        c.nodeid: (c.score, c.reason)
        for c in find_tests(ops.parent.parent, ops, qualname, runner=runner)
    }


def test_direct_call_through_an_alias_and_module_paths(runner: ProjectRunner) -> None:
    tests = found(runner, "add")
    assert tests == {
        "tests/test_ops.py::test_add_direct": (3.0, "calls plus (imported from calc.ops)"),
        "tests/test_more.py::test_full_module_path": (3.0, "calls calc.ops.add"),
    }


def test_module_attribute_and_helper(runner: ProjectRunner) -> None:
    tests = found(runner, "mean")
    assert list(tests) == [
        "tests/test_ops.py::test_mean_module",
        "tests/test_more.py::test_through_a_helper",
    ]
    assert tests["tests/test_ops.py::test_mean_module"] == (3.0, "calls ops.mean")
    assert tests["tests/test_more.py::test_through_a_helper"] == (
        2.0,
        "via mean_of_pair, which calls calc.ops.mean",
    )


def test_parametrized_cases_and_star_import(runner: ProjectRunner) -> None:
    tests = found(runner, "parse_int")
    assert list(tests) == [
        "tests/test_ops.py::test_parse_int[1-1]",
        "tests/test_ops.py::test_parse_int[ 7 -7]",
        "tests/test_ops.py::test_parse_int[x-0]",
        "tests/test_star.py::test_star_import",
    ]
    assert tests["tests/test_star.py::test_star_import"] == (
        3.0,
        "calls parse_int (from calc.ops *)",
    )


def test_class_method(runner: ProjectRunner) -> None:
    pop = found(runner, "Stack.pop")
    assert pop == {
        "tests/test_ops.py::TestStack::test_pop_returns_last": (
            3.0,
            "uses ops.Stack and calls .pop",
        )
    }
    push = found(runner, "Stack.push")
    assert push["tests/test_ops.py::TestStack::test_pop_returns_last"][0] == 3.0
    assert push["tests/test_more.py::test_through_a_fixture"] == (
        2.0,
        "via filled_stack, which uses Stack (imported from calc.ops) and calls .push",
    )


def test_candidate_points_at_the_test_definition(runner: ProjectRunner, calc: Path) -> None:
    ops = calc / "calc" / "ops.py"
    (candidate,) = find_tests(calc, ops, "Stack.pop", runner=runner)
    assert candidate.file == calc / "tests" / "test_ops.py"
    lines = candidate.file.read_text().splitlines()
    assert lines[candidate.line - 1].strip() == "def test_pop_returns_last(self):"


def test_project_root_is_the_nearest_marker(calc: Path) -> None:
    assert find_project_root(calc / "calc" / "ops.py") == calc
    assert find_project_root(calc / "tests") == calc


def _project(tmp_path: Path, extra: dict[str, str]) -> Path:
    root = tmp_path / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    for rel, text in extra.items():
        (root / rel).write_text(text)
    return root


def test_no_tests_found(tmp_path: Path) -> None:
    root = _project(tmp_path, {})
    ops = root / "calc" / "ops.py"
    ops.write_text(ops.read_text() + "\n\ndef lonely():\n    return 1\n")
    with pytest.raises(DiscoveryError, match=r"no tests found for lonely .*none of the \d+ tests"):
        find_tests(root, ops, "lonely")


def _static(root: Path, qualname: str) -> StaticDiscovery:
    with ProjectRunner(root) as project_runner:
        return static_discovery(root, root / "calc" / "ops.py", qualname, project_runner)


def test_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    broken = "from calc import ops\n\n\ndef test_mean(:\n    assert ops.mean([2]) == 2\n"
    root = _project(tmp_path, {"tests/test_broken.py": broken})
    found = _static(root, "mean")  # the good files' tests are still found ...
    assert "tests/test_ops.py::test_mean_module" in {c.nodeid for c in found.candidates}
    (warning,) = found.warnings  # ... and the broken file is named, with its line
    assert f"{root / 'tests' / 'test_broken.py'}:4: SyntaxError" in warning
    assert "Traceback" not in warning


def test_import_error_names_the_file_and_line(tmp_path: Path) -> None:
    broken = (
        "import os\nfrom calc.ops import lonely, no_such_name\n\n\ndef test_m():\n    lonely()\n"
    )
    root = _project(tmp_path, {"tests/test_imports.py": broken})
    ops = root / "calc" / "ops.py"
    ops.write_text(ops.read_text() + "\n\ndef lonely():\n    return 1\n")
    with pytest.raises(DiscoveryError) as raised:  # its only tests are in the broken file
        find_tests(root, ops, "lonely")
    message = str(raised.value)
    assert f"{root / 'tests' / 'test_imports.py'}:2: ImportError" in message
    assert "no_such_name" in message


def test_an_unrelated_broken_file_does_not_block(tmp_path: Path) -> None:
    root = _project(tmp_path, {"tests/test_other.py": "def test_x(:\n    pass\n"})
    tests = find_tests(root, root / "calc" / "ops.py", "add")
    assert {c.nodeid for c in tests} == {
        "tests/test_ops.py::test_add_direct",
        "tests/test_more.py::test_full_module_path",
    }
