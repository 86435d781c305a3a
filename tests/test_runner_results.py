"""Real pytest runs on the `calc` fixture: outcomes, assertion details, mapped tracebacks,
parametrized and class-based tests, overrides, probes, and the test process's environment."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from selfdebug.server.runner import ProjectRunner, RunnerSettings

FIXTURES = Path(__file__).parent / "fixtures" / "runner"
OPS = "tests/test_ops.py"


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user") / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    return root


@pytest.fixture(scope="module")
def runner(calc: Path):
    with ProjectRunner(calc, RunnerSettings(test_timeout_s=5)) as project_runner:
        yield project_runner


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_outcomes_parametrized_and_class_tests(runner: ProjectRunner) -> None:
    result = runner.run([OPS])
    outcomes = {t.nodeid: t.outcome for t in result.tests}
    assert outcomes == {
        f"{OPS}::test_add_direct": "passed",
        f"{OPS}::test_mean_module": "failed",
        f"{OPS}::test_parse_int[1-1]": "passed",
        f"{OPS}::test_parse_int[ 7 -7]": "passed",
        f"{OPS}::test_parse_int[x-0]": "failed",
        f"{OPS}::TestStack::test_pop_returns_last": "failed",
        f"{OPS}::test_unrelated": "passed",
    }
    assert (result.passed, result.total, result.all_passed) == (4, 7, False)
    assert result.isolation in ("bwrap", "rlimits") and result.error == ""


def test_assertion_in_the_test_gives_left_right_and_test_frame(
    runner: ProjectRunner, calc: Path
) -> None:
    test = runner.run([f"{OPS}::test_mean_module"]).tests[0]
    assert test.exc_type == "AssertionError"
    assert (test.assert_left, test.assert_op, test.assert_right) == ("3.0", "==", "2")
    test_file = calc / OPS
    assert test.frames[-1].path == str(test_file)  # the user's path, not the shadow copy
    assert test.frames[-1].line == _line_of(test_file, "assert ops.mean([1, 2, 3]) == 2")
    assert test.frames[-1].function == "test_mean_module"
    assert test.stdout.strip() == "computing mean"
    assert str(runner.shadow.root) not in test.longrepr
    assert f"{OPS}:{test.frames[-1].line}: AssertionError" in test.longrepr


def test_exception_in_the_function_maps_to_its_user_line(runner: ProjectRunner, calc: Path) -> None:
    test = runner.run([f"{OPS}::test_parse_int[x-0]"]).tests[0]
    assert (test.outcome, test.exc_type) == ("failed", "ValueError")
    assert "invalid literal" in test.message
    assert test.assert_left is None
    innermost = test.frames[-1]
    ops = calc / "calc" / "ops.py"
    assert (innermost.path, innermost.function) == (str(ops), "parse_int")
    assert innermost.line == _line_of(ops, "return int(text.strip())")
    assert innermost.code == "return int(text.strip())"
    assert [f.function for f in test.frames] == ["test_parse_int", "parse_int"]
    assert test.exc_module == ""  # a builtin: no module to name it by


def test_a_library_exception_carries_its_module(runner: ProjectRunner, calc: Path) -> None:
    ops = calc / "calc" / "ops.py"
    raising = ops.read_text().replace(
        "    return int(text.strip())", "    import json\n\n    return json.loads(text)"
    )
    test = runner.run([f"{OPS}::test_parse_int[x-0]"], overrides={ops: raising}).tests[0]
    assert (test.exc_type, test.exc_module) == ("JSONDecodeError", "json.decoder")


def test_class_method_failure(runner: ProjectRunner) -> None:
    test = runner.run([f"{OPS}::TestStack::test_pop_returns_last"]).tests[0]
    assert (test.outcome, test.assert_left, test.assert_right) == ("failed", "1", "2")


def test_override_is_used_for_one_run_only(runner: ProjectRunner, calc: Path) -> None:
    ops = calc / "calc" / "ops.py"
    before = ops.read_bytes()
    fixed = before.decode().replace("(len(values) - 1)", "len(values)")
    nodeid = f"{OPS}::test_mean_module"
    assert runner.run([nodeid], overrides={ops: fixed}).tests[0].outcome == "passed"
    assert runner.run([nodeid]).tests[0].outcome == "failed"
    assert ops.read_bytes() == before


def test_instrumented_override_lines_map_back_and_probes_are_split_per_test(
    runner: ProjectRunner, calc: Path
) -> None:
    instrument = pytest.importorskip("selfdebug.instrument")
    ops = calc / "calc" / "ops.py"
    source = ops.read_bytes()
    instrumented = instrument.instrument_function(source, "parse_int", "lines").decode()
    assert instrumented.count("\n") > source.count(b"\n")  # lines really moved
    ids = [f"{OPS}::test_parse_int[x-0]", f"{OPS}::test_parse_int[1-1]"]
    result = runner.run(ids, overrides={ops: instrumented}, probes=True)
    failing, passing = result.by_id()[ids[0]], result.by_id()[ids[1]]
    assert failing.frames[-1].line == _line_of(ops, "return int(text.strip())")
    assert failing.probes and all(p.test == ids[0] for p in failing.probes)
    assert passing.probes and all(p.test == ids[1] for p in passing.probes)
    assert any(p.kind == "entry" and p.values.get("text") == "'x'" for p in failing.probes)


def test_secrets_never_reach_the_tests(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    canary = "sk-canary-4f1d2c9a"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    monkeypatch.setenv("SOME_TOKEN", canary)
    root = tmp_path / "hostile"
    shutil.copytree(FIXTURES / "hostile", root)
    (root / "target.txt").write_text(str(root))
    with ProjectRunner(root) as project_runner:
        test = project_runner.run(["tests/test_hostile.py::test_prints_environment"]).tests[0]
    assert test.outcome == "passed"
    assert "PATH=" in test.stdout
    assert canary not in test.stdout and "OPENAI_API_KEY" not in test.stdout
    home = next(line for line in test.stdout.splitlines() if line.startswith("HOME="))
    assert home != f"HOME={Path.home()}"


def test_interpreter_without_pytest_explains_how_to_install(tmp_path: Path, calc: Path) -> None:
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    settings = RunnerSettings(interpreter=str(venv / "bin" / "python"))
    with ProjectRunner(calc, settings) as project_runner:
        result = project_runner.run([OPS])
        assert result.tests == []
        assert (
            "pytest is not installed" in result.error and "pip install -e . pytest" in result.error
        )
        # The user installs pytest: the same runner (a long-lived server's) now runs the tests.
        (site,) = venv.glob("lib/python*/site-packages")
        ours = next(p for p in map(Path, sys.path) if (p / "pytest").is_dir())
        (site / "deps.pth").write_text(f"{ours}\n")
        rerun = project_runner.run([OPS])
        assert rerun.tests and all(t.nodeid.startswith(f"{OPS}::") for t in rerun.tests)
        assert "pytest is not installed" not in rerun.error


_FINDER = """import sys
from importlib.machinery import PathFinder
from importlib.util import spec_from_file_location
from pathlib import Path

MAPPING = {"calcpkg": %r}


class _EditableFinder:  # the shape of setuptools' editable finder
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname in MAPPING:
            init = Path(MAPPING[fullname]) / "__init__.py"
            where = [MAPPING[fullname]]
            return spec_from_file_location(fullname, init, submodule_search_locations=where)
        return None


def install():
    sys.meta_path.append(_EditableFinder)
"""


def test_editable_install_imports_the_copy(tmp_path: Path) -> None:
    """`pip install -e .` maps the package to the user's tree; a fix must still be what runs."""
    root = tmp_path / "calc"
    shutil.copytree(FIXTURES / "calc", root)
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    ours = next(p for p in map(Path, sys.path) if (p / "pytest").is_dir())
    (site / "deps.pth").write_text(f"{ours}\n")  # pytest for the project's interpreter
    (site / "__editable___calcpkg_finder.py").write_text(_FINDER % str(root / "calc"))
    (site / "__editable__.calcpkg.pth").write_text(
        "import __editable___calcpkg_finder; __editable___calcpkg_finder.install()\n"
    )
    (root / "tests" / "test_editable.py").write_text(
        "from calcpkg import ops\n\n\ndef test_mean():\n    assert ops.mean([1, 2, 3]) == 2\n"
    )
    ops = root / "calc" / "ops.py"
    fixed = ops.read_text().replace("(len(values) - 1)", "len(values)")
    # the user trusts this project, so its own interpreter runs (sandboxed)
    with ProjectRunner(root, RunnerSettings(trust_project=True)) as project_runner:
        assert project_runner.interpreter == venv / "bin" / "python"
        nodeid = "tests/test_editable.py::test_mean"
        assert project_runner.run([nodeid]).tests[0].outcome == "failed"
        fixed_run = project_runner.run([nodeid], overrides={ops: fixed})
        assert fixed_run.tests[0].outcome == "passed", fixed_run.tests[0].message


def test_a_fix_that_breaks_a_test_files_import_reports_each_test(
    runner: ProjectRunner, calc: Path
) -> None:
    ops = calc / "calc" / "ops.py"
    broken = ops.read_text().replace("def add(a, b):", "def add_renamed(a, b):")
    ids = [f"{OPS}::test_add_direct", "tests/test_more.py::test_full_module_path"]
    result = runner.run(ids, overrides={ops: broken})
    by_id = result.by_id()
    direct = by_id[ids[0]]
    assert (direct.outcome, direct.exc_type) == ("error", "ImportError")
    assert f"{calc / OPS}:" in direct.message and "cannot import name 'add'" in direct.message
    other = by_id[ids[1]]
    assert (other.outcome, other.exc_type) == ("failed", "AttributeError")
    assert "ImportError" in result.error and not result.all_passed
