"""The project's own environment, nothing of ours inside it (issue 23: item 2, findings 2, 3, 6).

Real pytest runs on the fixture projects of tests/fixtures/projects/, copied to a temp folder;
`venvproj` gets a real `.venv` (made once per session, offline: tests/helpers/project_env.py)
holding pytest, a test dependency (`tinydep`), a pytest plugin whose fixture its tests use
(`pytest-tinyplugin`) and the project itself, installed editable. Each test failed on the code
before this change (the docstrings say how)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.project_env import build_wheel, make_venv, pip_install
from lsprotocol.types import (
    ClientCapabilities,
    DidOpenTextDocumentParams,
    ExecuteCommandParams,
    InitializeParams,
    TextDocumentItem,
    WorkspaceClientCapabilities,
    WorkspaceFolder,
)
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from selfdebug.server.runner import ProjectRunner, RunnerSettings
from selfdebug.server.runner import project as project_module
from selfdebug.server.runner.project import resolve_interpreter

FIXTURES = Path(__file__).parent / "fixtures" / "projects"
PACKAGES = ("tinydep", "pytest-tinyplugin")  # installed in venvproj's .venv only


def copy_fixture(name: str, where: Path) -> Path:
    root = where / name
    shutil.copytree(FIXTURES / name, root)
    return root


@pytest.fixture(scope="session")
def venvproj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`venvproj` with its `.venv`: pytest, tinydep, pytest-tinyplugin, and `pip install -e .`
    of the project (pointing at this folder, the user's)."""
    base = tmp_path_factory.mktemp("venvproj")
    root = copy_fixture("venvproj", base)
    wheels = [build_wheel(FIXTURES / "packages" / name, base / "wheels") for name in PACKAGES]
    python = make_venv(root / ".venv")
    pip_install(python, *wheels, build_wheel(root, base / "wheels", editable=True))
    return root


def trusted(**changes: object) -> RunnerSettings:
    return RunnerSettings(test_timeout_s=30, trust_project=True, **changes)  # type: ignore[arg-type]


def outcomes(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {t.nodeid.split("::")[-1]: t.outcome for t in result.tests}


def test_the_projects_venv_runs_its_tests_with_its_dependency_and_plugin(venvproj: Path) -> None:
    """Finding 3: the plugin rewrote `<project>/.venv/.../site-packages` to the copy, which has
    no `.venv`: `ModuleNotFoundError: No module named 'tinydep'`, and the plugin's fixture was
    not found either."""
    with ProjectRunner(venvproj, trusted()) as runner:
        result = runner.run(["tests/test_core.py"])
    assert runner.interpreter == venvproj / ".venv" / "bin" / "python"
    assert not runner.interpreter_choice.ours
    assert result.error == "", result.error
    assert outcomes(result) == {
        "test_scale": "passed",  # a conftest fixture, a marker under --strict-markers
        "test_dependency_from_the_project_venv": "passed",
        "test_fixture_of_the_project_plugin": "passed",
        "test_the_package_comes_from_the_copy": "passed",
    }


def test_an_editable_install_imports_the_candidate_in_the_copy(venvproj: Path) -> None:
    """The editable install points at the user's `src/`; the candidate written into the copy
    is what runs (the test fails with the candidate's value), and the user's file is untouched."""
    core = venvproj / "src" / "venvproj" / "core.py"
    before = core.read_text()
    candidate = "def scale(x):\n    return x * 3\n"
    with ProjectRunner(venvproj, trusted()) as runner:
        result = runner.run(["tests/test_core.py::test_scale"], overrides={core: candidate})
        again = runner.run(["tests/test_core.py::test_scale"])
    assert core.read_text() == before
    [test] = result.tests
    assert test.outcome == "failed", result.error
    assert (test.assert_left, test.assert_right) == ("9", "6")
    assert test.frames[-1].path == str(venvproj / "tests" / "test_core.py")  # the user's path
    assert again.all_passed, again.error


@pytest.mark.parametrize("interpreter", ["ours", "venv"])
def test_a_src_layout_without_an_install_imports_the_candidate(
    tmp_path: Path, venvproj: Path, interpreter: str
) -> None:
    """`srcproj` is installed nowhere: `src/` of the copy is imported, with our Python and with
    another project's venv chosen as the interpreter."""
    root = copy_fixture("srcproj", tmp_path)
    python = str(venvproj / ".venv" / "bin" / "python") if interpreter == "venv" else None
    mathy = root / "src" / "srcproj" / "mathy.py"
    with ProjectRunner(root, RunnerSettings(test_timeout_s=30, interpreter=python)) as runner:
        plain = runner.run(["tests/test_mathy.py"])
        fixed = runner.run(
            ["tests/test_mathy.py"], overrides={mathy: "def add(a, b):\n    return a - b\n"}
        )
    assert plain.all_passed, plain.error
    [test] = fixed.tests
    assert (test.outcome, test.assert_left, test.assert_right) == ("failed", "-1", "5")


def test_the_plugins_of_our_environment_do_not_load_into_the_users_run(tmp_path: Path) -> None:
    """Finding 2: with our interpreter, every plugin installed beside selfdebug auto-loaded
    (pytest-asyncio, pytest-lsp, pytest-reportlog...); under `filterwarnings = ["error"]` a
    plugin's deprecation warning is an INTERNALERROR. Now none loads; pytest-timeout, which we
    use, is named with -p."""
    root = copy_fixture("strictwarn", tmp_path)
    with ProjectRunner(root, RunnerSettings(test_timeout_s=30)) as runner:
        result = runner.run(["tests/test_plain.py"])
    assert runner.interpreter_choice.ours
    assert result.error == "", result.error
    assert outcomes(result) == {
        "test_halve": "passed",
        "test_no_plugin_of_another_environment": "passed",
    }


def test_a_missing_own_package_is_one_line_with_the_fix(tmp_path: Path, venvproj: Path) -> None:
    """Finding 6: a hatch-vcs project has no `_version.py` until it is installed. Before, the
    run said only `ModuleNotFoundError: No module named 'unversioned._version'`."""
    root = copy_fixture("unversioned", tmp_path)
    with ProjectRunner(root, RunnerSettings(test_timeout_s=30)) as runner:
        ours = runner.run(["tests/test_triple.py"])
    first = ours.error.splitlines()[0]
    assert "the project's own package `unversioned` does not import" in first
    assert "No module named 'unversioned._version'" in first
    assert "generates at install time" in first
    assert "python -m venv .venv && .venv/bin/pip install -e . pytest" in first
    assert first in ours.notes  # the editor shows the notes (showMessage)

    python = venvproj / ".venv" / "bin" / "python"
    with ProjectRunner(root, RunnerSettings(test_timeout_s=30, interpreter=str(python))) as runner:
        theirs = runner.run(["tests/test_triple.py"])
        problem = runner.environment_problem()
    expected = f"install it there, `{python} -m pip install -e . pytest`"
    assert theirs.error.splitlines()[0].endswith(expected), theirs.error
    assert problem.endswith(expected), problem  # what `selfdebug doctor PROJECT` says


def test_a_test_dependency_missing_from_our_python_names_it(venvproj: Path) -> None:
    """Untrusted, the project's venv is passed over: our Python lacks `tinydep`, and the run
    says so with the way to give the project its environment."""
    with ProjectRunner(venvproj, RunnerSettings(test_timeout_s=30)) as runner:
        result = runner.run(["tests/test_core.py"])
    first = result.error.splitlines()[0]
    assert first.startswith("the tests import `tinydep`, which selfdebug's own Python"), first
    assert "pip install -e . pytest tinydep" in first
    assert any("not trusted" in note for note in result.notes)


def test_an_environment_without_pytest_says_how_to_install_it(tmp_path: Path) -> None:
    """Before: `install it with: X -m pip install pytest pytest-timeout`, without the project."""
    root = copy_fixture("srcproj", tmp_path)
    python = make_venv(tmp_path / "bare", with_pytest=False, with_pip=False)
    project_module.forget_interpreters()
    with ProjectRunner(root, RunnerSettings(interpreter=str(python))) as runner:
        result = runner.run(["tests/test_mathy.py"])
    assert result.error == (
        f"pytest is not installed in {python}: install the project and pytest into it: "
        f"`{python} -m pip install -e . pytest`"
    )


def test_doctor_project_reports_the_package_that_does_not_import(tmp_path: Path) -> None:
    root = copy_fixture("unversioned", tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "doctor", str(root), "--json", "--backend", "openai"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "VIRTUAL_ENV": ""},
    )
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert done.returncode == 1
    imports = checks["project imports"]
    assert imports["ok"] is False
    assert "`unversioned` does not import" in imports["detail"]
    assert "pip install -e . pytest" in imports["detail"]


def test_doctor_project_passes_for_the_projects_venv(venvproj: Path) -> None:
    argv = ["doctor", str(venvproj), "--json", "--trust-project", "--backend", "openai"]
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["project imports"]["ok"], checks["project imports"]
    assert "`venvproj` import with" in checks["project imports"]["detail"]
    assert str(venvproj / ".venv" / "bin" / "python") in checks["python + pytest"]["detail"]


def test_the_cli_prints_the_one_line_fix(tmp_path: Path) -> None:
    root = copy_fixture("unversioned", tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "test", "src/unversioned/__init__.py::triple"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "the project's own package `unversioned` does not import" in output
    assert "pip install -e . pytest" in output


async def test_the_editor_shows_the_one_line_fix(tmp_path: Path) -> None:
    """The LSP path: "Run tests for `triple`" in the unversioned project answers with the error
    and shows it (window/showMessage), the fix included."""
    root = copy_fixture("unversioned", tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFDEBUG_")}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "selfdebug", "serve"], server_env=env
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    folder = from_fs_path(str(root)) or ""
    try:
        await client.initialize_session(
            InitializeParams(
                capabilities=ClientCapabilities(workspace=WorkspaceClientCapabilities()),
                workspace_folders=[WorkspaceFolder(uri=folder, name="unversioned")],
            )
        )
        module = root / "src" / "unversioned" / "__init__.py"
        uri = from_fs_path(str(module)) or ""
        client.text_document_did_open(
            DidOpenTextDocumentParams(TextDocumentItem(uri, "python", 1, module.read_text()))
        )
        answer = await client.workspace_execute_command_async(
            ExecuteCommandParams(
                command="selfdebug.runTests", arguments=[{"uri": uri, "qualname": "triple"}]
            )
        )
        shown = [message.message for message in client.messages]
    finally:
        await client.shutdown_session()
        await client.stop()
    assert "the project's own package `unversioned` does not import" in answer["error"]
    assert any(
        "`unversioned` does not import" in text and "pip install -e . pytest" in text
        for text in shown
    ), shown


def test_the_active_virtualenv_is_the_projects_unless_it_is_ours(tmp_path: Path) -> None:
    venv = tmp_path / "active"
    python = make_venv(venv, with_pytest=False, with_pip=False)
    project = tmp_path / "p"
    project.mkdir()
    chosen = resolve_interpreter(project, None, environ={"VIRTUAL_ENV": str(venv)})
    assert (chosen.path, chosen.source) == (python, "active")
    mine = resolve_interpreter(project, None, environ={"VIRTUAL_ENV": sys.prefix})
    assert mine.ours and mine.path == Path(sys.executable)
    configured = resolve_interpreter(
        project, "/usr/bin/python3", environ={"VIRTUAL_ENV": str(venv)}
    )
    assert configured.source == "configured"


CONFIGS = {
    "pytest.ini": "[pytest]\n{body}",
    "tox.ini": "[tox]\nenvlist = py\n\n[pytest]\n{body}",
    "setup.cfg": "[metadata]\nname = cfgproj\n\n[tool:pytest]\n{body}",
}
CONFIG_BODY = """\
pythonpath = lib
testpaths = checks
addopts = --strict-markers
markers =
    unit: a unit test
filterwarnings =
    error
"""


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_the_projects_pytest_configuration_is_honoured(tmp_path: Path, config: str) -> None:
    """pytest.ini, tox.ini and setup.cfg: `pythonpath` (a `lib/` folder, imported from the
    copy), `testpaths`, `addopts`, markers under --strict-markers, a conftest fixture, and
    `filterwarnings = error` (an INTERNALERROR with our plugins before)."""
    root = tmp_path / "cfgproj"
    (root / "lib").mkdir(parents=True)
    (root / "checks").mkdir()
    (root / config).write_text(CONFIGS[config].format(body=CONFIG_BODY))
    (root / "lib" / "shapes.py").write_text("def area(w, h):\n    return w * h\n")
    (root / "checks" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef side():\n    return 4\n"
    )
    (root / "checks" / "test_shapes.py").write_text(
        "import pytest\nfrom shapes import area\n\n\n@pytest.mark.unit\n"
        "def test_area(side):\n    assert area(side, 2) == 8\n"
    )
    with ProjectRunner(root, RunnerSettings(test_timeout_s=30)) as runner:
        collected = runner.collect()
        plain = runner.run(["checks/test_shapes.py"])
        candidate = runner.run(
            ["checks/test_shapes.py"],
            overrides={root / "lib" / "shapes.py": "def area(w, h):\n    return w + h\n"},
        )
    assert [item.nodeid for item in collected.items] == ["checks/test_shapes.py::test_area"]
    assert plain.all_passed, plain.error
    [test] = candidate.tests
    assert (test.outcome, test.assert_left, test.assert_right) == ("failed", "6", "8")


def test_a_plugin_the_tests_need_from_our_environment_is_named(tmp_path: Path) -> None:
    """The other side of keeping our plugins out: an `async def` test run with our Python (the
    project has no environment) fails, and the run names pytest-asyncio and the fix. Before,
    pytest-asyncio beside selfdebug happened to load."""
    root = copy_fixture("asyncproj", tmp_path)
    with ProjectRunner(root, RunnerSettings(test_timeout_s=30)) as runner:
        result = runner.run(["tests/test_answer.py"])
    assert [t.outcome for t in result.tests] == ["failed"]
    assert result.notes[0].startswith(
        "the tests need a pytest plugin (pytest-asyncio) for `async def` tests"
    ), result.notes
    assert "pip install -e . pytest pytest-asyncio" in result.notes[0]
