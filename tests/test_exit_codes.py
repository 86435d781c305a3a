"""Every command's exit codes mean one thing each (selfdebug/exit_codes.py), as a user or a
script sees them: real `selfdebug` processes on small projects, `--mode search` (no model)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from selfdebug import cli, exit_codes
from selfdebug.exit_codes import ExitCode

README = Path(__file__).parent.parent / "README.md"
BUGGY = (
    "def sum_to(n):\n"
    '    """1 + 2 + ... + n."""\n'
    "    total = 0\n"
    "    for i in range(1, n):\n"
    "        total += i\n"
    "    return total\n"
    "\n\n"
    "def greeting(name):\n"
    '    return "Goodbye"\n'
)
TESTS = (
    "from calc import greeting, sum_to\n\n\n"
    "def test_three():\n    assert sum_to(3) == 6\n\n\n"
    "def test_one():\n    assert sum_to(1) == 1\n\n\n"
    "def test_zero():\n    assert sum_to(0) == 0\n\n\n"
    "def test_greeting():\n    assert greeting('Ada') == 'Hello, Ada!'\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\n')
    (root / "calc.py").write_text(BUGGY)
    (root / "test_calc.py").write_text(TESTS)
    return root


def selfdebug(*args: str, cwd: Path, env: dict[str, str] | None = None):
    environ = {k: v for k, v in os.environ.items() if k != "SELFDEBUG_SCRIPTED_REPLIES"}
    return subprocess.run(
        [sys.executable, "-m", "selfdebug", *args],
        cwd=cwd,
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def fix_sum_to(*extra: str, cwd: Path):
    tests = ["--test", "test_calc.py::test_three", "--test", "test_calc.py::test_one"]
    return selfdebug("fix", "calc.py::sum_to", *tests, "--mode", "search", *extra, cwd=cwd)


# -- the table, where a user reads it --
def test_readme_lists_the_same_table_as_the_code():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("Exit codes, the same for every command") :]
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", section.split("\n\n", 2)[1], re.MULTILINE)
    assert {int(code): meaning for code, meaning in rows} == exit_codes.DESCRIPTIONS


@pytest.mark.parametrize("command", [[], ["fix"], ["apply"], ["test"], ["doctor"]])
def test_help_prints_the_exit_codes(command, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main([*command, "--help"])
    assert done.value.code == 0
    assert exit_codes.epilog() in capsys.readouterr().out


# -- fix --
def test_fix_written_exits_0(project):
    done = fix_sum_to("--write", cwd=project)
    assert done.returncode == ExitCode.OK, done.stdout + done.stderr
    assert "Fix found and written" in done.stdout
    assert "range(1, n + 1)" in (project / "calc.py").read_text()


def test_fix_without_a_candidate_exits_1(project):
    test = "test_calc.py::test_greeting"
    done = selfdebug("fix", "calc.py::greeting", "--test", test, "--mode", "search", cwd=project)
    assert done.returncode == ExitCode.NO_FIX, done.stdout + done.stderr
    assert "No candidate passes the chosen tests" in done.stdout


def test_fix_of_a_missing_file_exits_2(project):
    done = selfdebug("fix", "nowhere.py::sum_to", "--mode", "search", cwd=project)
    assert done.returncode == ExitCode.USAGE, done.stdout + done.stderr
    assert "no such file: nowhere.py" in done.stderr


def _make_unwritable(path: Path) -> None:
    """Unwritable even for root (the suite runs as root in its container, where mode bits do
    not stop a write): the immutable attribute, which needs CAP_LINUX_IMMUTABLE and a file
    system that has it (ext4, xfs, btrfs); mode 0444 for anyone else."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        return
    chattr = shutil.which("chattr")
    done = subprocess.run([chattr, "+i", str(path)], capture_output=True) if chattr else None
    if done is None or done.returncode != 0:
        pytest.skip(f"root, and chattr +i does not work here: {done and done.stderr!r}")


def test_fix_that_cannot_be_written_exits_4_with_the_reason_and_the_diff(project):
    source = project / "calc.py"
    _make_unwritable(source)
    try:
        done = fix_sum_to("--write", cwd=project)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(source)], check=True)
    assert done.returncode == ExitCode.NOT_WRITTEN, done.stdout + done.stderr
    assert f"could not write {source}: " in done.stderr
    assert "the fix is shown above" in done.stderr
    assert "Traceback" not in done.stderr
    assert "+    for i in range(1, n + 1):" in done.stdout  # the diff, to apply by hand
    assert source.read_text() == BUGGY


def test_fix_of_a_file_changed_during_the_session_exits_4(project, monkeypatch, capsys):
    """Changing the file while a session runs cannot be timed from outside: `deliver` is given
    the text read before a real session, and the file on disk has changed since."""
    from selfdebug.commands.fix_delivery import deliver
    from selfdebug.server.backends.no_model import NoModelBackend
    from selfdebug.server.engine import build_request, run_session

    monkeypatch.chdir(project)
    source = project / "calc.py"
    tests = ["test_calc.py::test_three", "test_calc.py::test_one"]
    request = build_request(source, "sum_to", tests=tests, mode="search")
    original = source.read_text()
    result = run_session(request, NoModelBackend())
    assert result.success
    edited = original.replace('"""1 + 2 + ... + n."""', '"""The sum of 1..n."""')
    source.write_text(edited)  # the user's edit, meanwhile
    assert deliver(result, request, original, write=True) == ExitCode.NOT_WRITTEN
    assert "changed during the session; not writing" in capsys.readouterr().err
    assert source.read_text() == edited


# -- an internal error, in any command --
def test_a_bug_of_ours_exits_5_in_one_line_with_the_traceback_saved(
    project, monkeypatch, capsys, tmp_path
):
    from selfdebug.commands import fix

    def broken(args):
        Path(args.transcript).write_text('{"event": "session_start"}\n')  # the run so far
        raise ValueError("a bug of ours\nsecond line")

    monkeypatch.setattr(fix, "main", broken)
    monkeypatch.chdir(project)
    monkeypatch.setenv("SELFDEBUG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SELFDEBUG_DEBUG", raising=False)
    code = cli.main(["fix", "calc.py::sum_to", "--transcript", "run.jsonl"])
    err = capsys.readouterr().err
    assert code == ExitCode.INTERNAL
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("selfdebug fix: internal error (ValueError: a bug of ours); ")
    assert "transcript: run.jsonl" in err
    saved = Path(re.search(r"traceback saved to (\S+?);", err).group(1))
    assert saved.parent == tmp_path / "cache" / "errors"
    text = saved.read_text()
    assert "Traceback" in text and "in broken" in text and "second line" in text

    monkeypatch.setenv("SELFDEBUG_DEBUG", "1")
    assert cli.main(["fix", "calc.py::sum_to", "--transcript", "again.jsonl"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "transcript: again.jsonl" in err  # the traceback, asked for


def test_a_session_that_crashes_is_a_bug_of_ours_not_a_failed_session(
    project, monkeypatch, capsys, tmp_path
):
    """run_session reports every session problem in its result; an exception out of it is a
    bug (5, the traceback saved), not "the session failed" (3: the model never answered)."""
    from selfdebug.server import engine

    def crashing(*args, **kwargs):
        raise KeyError("a bug inside the session")

    monkeypatch.setattr(engine, "run_session", crashing)
    monkeypatch.chdir(project)
    monkeypatch.setenv("SELFDEBUG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SELFDEBUG_DEBUG", raising=False)
    code = cli.main(["fix", "calc.py::sum_to", "--mode", "search", "--test", "test_calc.py"])
    err = capsys.readouterr().err
    assert code == ExitCode.INTERNAL, err
    assert "internal error (KeyError: 'a bug inside the session')" in err
    assert "Traceback" not in err


# -- doctor --
def test_doctor_of_a_missing_project_exits_2(tmp_path):
    done = selfdebug("doctor", str(tmp_path / "nonexistent"), "--quick", cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE, done.stdout + done.stderr
    assert f"the project {tmp_path / 'nonexistent'} does not exist" in done.stderr


def test_doctor_with_a_failing_check_exits_1(project):
    done = selfdebug("doctor", str(project), "--quick", "--backend", "openai", cwd=project)
    assert done.returncode == ExitCode.NO_FIX, done.stdout + done.stderr
    assert "[FAIL] endpoint: --backend openai needs --endpoint URL" in done.stdout


# -- test --
def test_test_runs_the_named_tests_without_a_function(project, tmp_path):
    passing = selfdebug("test", "--test", "test_calc.py::test_zero", cwd=project)
    assert passing.returncode == ExitCode.OK, passing.stdout + passing.stderr
    assert "1/1 passed" in passing.stdout
    absolute = f"{project / 'test_calc.py'}::test_three"
    failing = selfdebug("test", "--test", absolute, "--test", absolute[:-5] + "zero", "--json",
                        cwd=tmp_path)  # fmt: skip
    assert failing.returncode == ExitCode.NO_FIX, failing.stdout + failing.stderr
    report = json.loads(failing.stdout)  # the progress went to stderr
    assert report["target"] is None and report["project_root"] == str(project)
    outcomes = {t["nodeid"]: t["outcome"] for t in report["result"]["tests"]}
    assert outcomes == {"test_calc.py::test_three": "failed", "test_calc.py::test_zero": "passed"}


def test_test_without_a_function_or_tests_exits_2(project):
    done = selfdebug("test", cwd=project)
    assert done.returncode == ExitCode.USAGE, done.stdout + done.stderr
    assert "give the function" in done.stderr
