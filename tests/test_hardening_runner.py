"""Hostile projects against the runner (issue 16, items 1, 2, 3, 5, 6): each fixture is built
here, and each test fails on the code before the hardening."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from selfdebug.server.runner import (
    ProjectRunner,
    RunnerSettings,
    SandboxUnavailable,
    ShadowCopy,
    ShadowTooLarge,
    find_project_root,
)
from selfdebug.server.runner.discover import Target, likely_test_files
from selfdebug.server.runner.safe_read import UnreadableFile, read_regular
from selfdebug.server.runner.sandbox import bwrap_command, bwrap_path, masked_paths

REPO = Path(__file__).resolve().parents[1]
PASSING_TEST = "def test_ok():\n    assert 1 + 1 == 2\n"


def make_project(root: Path, test_body: str = PASSING_TEST) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "tests" / "test_p.py").write_text(test_body)
    return root


def fake_venv_python(project: Path, leak: Path) -> Path:
    """A committed `.venv/bin/python`: a script that writes the server's key to `leak`, then
    behaves as a Python (so the run can go on when it is allowed to run)."""
    python = project / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        f'#!/bin/sh\necho "key=$OPENAI_API_KEY home=$HOME" >> {leak}\nexec {sys.executable} "$@"\n'
    )
    python.chmod(0o755)
    return python


def test_an_untrusted_projects_interpreter_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-untrusted-0123456789abcdef")
    project = make_project(tmp_path / "cloned")
    leak = tmp_path / "leak.txt"
    fake_venv_python(project, leak)
    with ProjectRunner(project, RunnerSettings(test_timeout_s=5)) as runner:
        result = runner.run(["tests/test_p.py::test_ok"])
    assert runner.interpreter == Path(sys.executable)
    assert result.all_passed, result.error
    assert any("not trusted" in note for note in result.notes)
    assert not leak.exists()  # the repository's script never ran


@pytest.mark.parametrize("isolation", ["auto", "rlimits"])
def test_a_trusted_projects_interpreter_runs_sealed_probe_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolation: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-trusted-0123456789abcdef")
    project = make_project(tmp_path / "trusted")
    outside = tmp_path / "outside"
    outside.mkdir()
    leak = outside / "leak.txt"
    python = fake_venv_python(project, leak)
    settings = RunnerSettings(test_timeout_s=5, trust_project=True, isolation=isolation)  # type: ignore[arg-type]
    from selfdebug.server.runner import project as project_module

    project_module.forget_interpreters()
    with ProjectRunner(project, settings) as runner:
        result = runner.run(["tests/test_p.py::test_ok"])
    assert runner.interpreter == python
    assert result.all_passed, result.error
    # Every start of the script (probe and pytest) was sealed: no write outside the run's folders.
    assert not leak.exists(), leak.read_text()


def test_the_fallback_cannot_write_outside_the_run(tmp_path: Path) -> None:
    home_file = tmp_path / "home-file.txt"
    project = make_project(
        tmp_path / "writer",
        textwrap.dedent(
            f"""
            import pathlib, pytest

            def test_writes_outside():
                with pytest.raises(PermissionError):
                    pathlib.Path({str(home_file)!r}).write_text("x")

            def test_writes_the_users_source():
                with pytest.raises(PermissionError):
                    pathlib.Path({str(tmp_path / "writer" / "pyproject.toml")!r}).write_text("")

            def test_writes_its_own_copy_and_tmp(tmp_path):
                (tmp_path / "ok.txt").write_text("fine")
                pathlib.Path("scratch.txt").write_text("fine")
            """
        ),
    )
    with ProjectRunner(project, RunnerSettings(isolation="rlimits", test_timeout_s=5)) as runner:
        assert runner.isolation == "rlimits"
        assert "WITHOUT a sandbox" in runner.isolation_warning
        result = runner.run(["tests/test_p.py"])
    assert result.all_passed, [(t.nodeid, t.message) for t in result.tests]
    assert not home_file.exists()
    assert (project / "pyproject.toml").read_text().startswith("[project]")


def test_require_sandbox_refuses_the_fallback(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    settings = RunnerSettings(isolation="rlimits", require_sandbox=True)
    with pytest.raises(SandboxUnavailable, match="requireSandbox"):
        ProjectRunner(project, settings)


def test_bwrap_hides_home_and_credentials_but_keeps_the_project(tmp_path: Path) -> None:
    """The mount plan (what bubblewrap is asked to do) for a project inside $HOME."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("secret")
    project = make_project(home / "work" / "proj")
    (project / ".ssh").mkdir()  # a folder of the same name inside the project stays visible
    masks = masked_paths([project], home=str(home), environ={"HOME": str(home)})
    assert home in masks.hidden and project in masks.back
    command = bwrap_command(
        "bwrap", writable=[tmp_path / "run"], readonly=[], cwd=project, argv=["true"],
        keep=[project], home=str(home),
    )  # fmt: skip
    text = " ".join(command)
    assert f"--tmpfs {home}" in text and f"--ro-bind {project} {project}" in text
    assert text.index(f"--tmpfs {home}") < text.index(f"--ro-bind {project} {project}")
    # a project AT the home folder brings ~/.ssh back: it is hidden again
    masks = masked_paths([home], home=str(home), environ={"HOME": str(home)})
    assert home in masks.back and home / ".ssh" in masks.inner


def test_a_test_cannot_read_home_secrets_inside_bubblewrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not bwrap_path():
        pytest.skip("needs bubblewrap (`sudo apt install bubblewrap`)")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    secret = home / ".ssh" / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = abcdefgh12345678\n")
    monkeypatch.setenv("HOME", str(home))
    project = make_project(
        home / "proj",
        textwrap.dedent(
            f"""
            import pathlib, pytest

            @pytest.mark.parametrize("path", {[str(secret), str(home / ".aws" / "credentials")]!r})
            def test_secret_is_hidden(path):
                assert not pathlib.Path(path).exists()

            def test_project_is_visible():
                assert pathlib.Path({str(home / "proj" / "pyproject.toml")!r}).exists()
            """
        ),
    )
    with ProjectRunner(project, RunnerSettings(test_timeout_s=5)) as runner:
        assert runner.isolation == "bwrap"
        result = runner.run(["tests/test_p.py"])
    assert result.total == 3 and result.all_passed, [(t.nodeid, t.message) for t in result.tests]


def test_discovery_reads_only_regular_files(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", "from calc import f\n\ndef test_f():\n    f()\n")
    (project / "calc.py").write_text("def f():\n    return 1\n")
    (project / "tests" / "test_zero.py").symlink_to("/dev/zero")
    os.mkfifo(project / "tests" / "test_fifo.py")
    target = Target("f", None, frozenset({"calc"}), project / "calc.py")
    found: list[list[str]] = []
    worker = threading.Thread(target=lambda: found.append(likely_test_files(project, target)))
    worker.daemon = True  # the old code blocks on the FIFO forever
    worker.start()
    worker.join(timeout=20)
    assert found == [["tests/test_p.py"]]
    for path in (project / "tests" / "test_zero.py", project / "tests" / "test_fifo.py"):
        with pytest.raises(UnreadableFile, match="not a regular file"):
            read_regular(path)
    big = project / "big.py"
    big.write_bytes(b"#" * 2000)
    with pytest.raises(UnreadableFile, match="cap"):
        read_regular(big, cap_bytes=1000)


def test_the_root_never_climbs_above_the_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)  # a home under version control
    workspace = home / "ws"
    (workspace / "pkg").mkdir(parents=True)
    file = workspace / "pkg" / "calc.py"
    file.write_text("def f():\n    return 1\n")
    assert find_project_root(file, workspace) == workspace
    (workspace / "pkg" / "setup.cfg").write_text("")
    assert find_project_root(file, workspace) == workspace / "pkg"


def test_cli_root_is_the_current_directory_without_markers(tmp_path: Path) -> None:
    workspace = tmp_path / "nomarker"
    (workspace / "pkg").mkdir(parents=True)
    (workspace / "tests").mkdir()
    (workspace / "pkg" / "calc.py").write_text("def f():\n    return 1\n")
    (workspace / "tests" / "test_calc.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1] / 'pkg'))\n"
        "from calc import f\n\ndef test_f():\n    assert f() == 1\n"
    )
    completed = subprocess.run(
        [sys.executable, "-m", "selfdebug", "test", "pkg/calc.py::f", "--test",
         "tests/test_calc.py::test_f", "--timeout", "5"],
        cwd=workspace, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "1/1 passed" in completed.stdout


def test_the_shadow_copy_is_capped_and_skips_links_out_of_the_project(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("secret")
    project = make_project(tmp_path / "p")
    (project / "key.txt").symlink_to(outside / "id_rsa")
    (project / "inner.txt").write_text("inner")
    (project / "alias.txt").symlink_to(project / "inner.txt")
    shadow = ShadowCopy(project, tmp_path / "shadow")
    shadow.sync()
    assert not (shadow.root / "key.txt").exists()
    assert (shadow.root / "alias.txt").read_text() == "inner"
    (project / "data.bin").write_bytes(b"0" * 4000)
    with pytest.raises(ShadowTooLarge, match="MiB"):
        ShadowCopy(project, tmp_path / "shadow2", cap_bytes=2000).sync()
    settings = RunnerSettings(shadow_cap_bytes=2000)
    with ProjectRunner(project, settings) as runner:
        result = runner.run(["tests/test_p.py::test_ok"])
    assert not result.tests and "open the project's own folder" in result.error


def test_cli_require_sandbox_and_the_fallback_warning(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    (project / "calc.py").write_text("def f():\n    return 1\n")
    base = [sys.executable, "-m", "selfdebug", "test", str(project / "calc.py") + "::f",
            "--test", "tests/test_p.py::test_ok", "--timeout", "5"]  # fmt: skip
    refused = subprocess.run(
        [*base, "--isolation", "rlimits", "--require-sandbox"],
        cwd=project, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2 and "requireSandbox" in refused.stderr
    warned = subprocess.run(
        [*base, "--isolation", "rlimits"], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert warned.returncode == 0, warned.stdout + warned.stderr
    assert "WITHOUT a sandbox" in warned.stderr and "NOT sandboxed" in warned.stdout
    fix = subprocess.run(
        [sys.executable, "-m", "selfdebug", "fix", str(project / "calc.py") + "::f", "--test",
         "tests/test_p.py::test_ok", "--isolation", "rlimits", "--require-sandbox"],
        cwd=project, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert fix.returncode == 2 and "requireSandbox" in fix.stderr


def test_a_fifo_is_not_a_project_file(tmp_path: Path) -> None:
    """Shadow copies skip FIFOs and devices (they would block the copy)."""
    project = make_project(tmp_path / "p")
    os.mkfifo(project / "pipe.py")
    shadow = ShadowCopy(project, tmp_path / "shadow")
    shadow.sync()
    assert not (shadow.root / "pipe.py").exists()
    assert stat.S_ISFIFO(os.stat(project / "pipe.py").st_mode)


def test_tests_cannot_read_the_servers_environment_in_the_fallback() -> None:
    """`protect_own_environ` (called by every fallback runner) makes /proc/<server>/environ,
    which holds the API keys, unreadable for the test processes it starts. Checked as an
    unprivileged user: root reads any process's memory whatever its dumpable flag."""
    sandbox_py = REPO / "server" / "runner" / "sandbox.py"
    script = textwrap.dedent(
        f"""
        import importlib.util, os, subprocess, sys
        spec = importlib.util.spec_from_file_location("sandbox", {str(sandbox_py)!r})
        sandbox = sys.modules["sandbox"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sandbox)
        os.environ["OPENAI_API_KEY"] = "sk-never-in-a-test-0123456789"
        child = "import sys\\ntry:\\n    open(sys.argv[1], 'rb').read(); print('READ')\\n" \\
                "except PermissionError:\\n    print('DENIED')"
        environ = "/proc/%d/environ" % os.getpid()
        before = subprocess.run([sys.executable, "-c", child, environ], capture_output=True,
                                text=True).stdout.strip()
        sandbox.protect_own_environ()
        after = subprocess.run([sys.executable, "-c", child, environ], capture_output=True,
                               text=True).stdout.strip()
        print(before, after)
        """
    )
    command = [sys.executable, "-c", script]
    if os.getuid() == 0:
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                   "/usr/bin/python3", "-c", script]  # fmt: skip
    completed = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd="/")
    assert completed.stdout.split() == ["READ", "DENIED"], completed.stdout + completed.stderr
