"""The fallback without bubblewrap limits reads too (issue 25, item 1): on a Landlock kernel a
test cannot read the user's secrets in a real home folder outside the shadow copy, nor another
process's environment, while the same run still passes its ordinary tests (standard library,
site-packages, tmp_path, the copy, a child Python). Real pytest runs of the fixture project
tests/fixtures/runner/reader, with the isolation forced to the fallback, and the CLI with
bubblewrap hidden from PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfdebug.server.runner import ProjectRunner, RunnerSettings, RunResult, sandbox
from selfdebug.server.runner.read_rules import landlock_reads

FIXTURE = Path(__file__).parent / "fixtures" / "runner" / "reader"
NORMAL = "tests/test_words.py"
ATTACKS = "tests/test_secrets.py"

needs_landlock = pytest.mark.skipif(
    not sandbox.landlock_abi(), reason="this kernel has no Landlock: reads are not limited"
)


class FakeHome:
    """A real home folder with secrets in it, outside the shadow copy and the allowed paths,
    and the project cloned inside it (where users keep theirs)."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n")
        (self.home / ".netrc").write_text("machine example.com login me password hunter2\n")
        (self.home / ".aws").mkdir()
        (self.home / ".aws" / "credentials").write_text("aws_secret_access_key = abcd1234\n")
        (self.home / "notes.txt").write_text("not a credential, but not the tests' business\n")
        self.project = self.home / "src" / "reader"
        shutil.copytree(FIXTURE, self.project)
        self.secrets = [
            self.home / ".ssh" / "id_rsa",
            self.home / ".netrc",
            self.home / ".aws" / "credentials",
            self.home / "notes.txt",
        ]


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeHome:
    fake = FakeHome(tmp_path)
    monkeypatch.setenv("HOME", str(fake.home))
    return fake


@pytest.fixture
def other_process() -> Iterator[subprocess.Popen[bytes]]:
    """A process of the same user outside the run (an editor, a shell) with a secret in its
    environment."""
    env = {"PATH": os.environ.get("PATH", ""), "OTHER_TOKEN": "tok-never-in-a-test-0123"}
    process = subprocess.Popen(["sleep", "300"], env=env)
    yield process
    process.kill()
    process.wait()


def attack_env(fake: FakeHome, other: subprocess.Popen[bytes]) -> dict[str, str]:
    return {
        "SELFDEBUG_ATTACK_SECRETS": json.dumps([str(p) for p in fake.secrets]),
        "SELFDEBUG_ATTACK_HOME": str(fake.home),
        "SELFDEBUG_ATTACK_OTHER_PID": str(other.pid),
    }


def outcomes(result: RunResult) -> dict[str, str]:
    return {test.nodeid: test.outcome for test in result.tests}


def failures(result: RunResult) -> list[tuple[str, str]]:
    return [(t.nodeid, t.message[:300]) for t in result.tests if t.outcome != "passed"]


@needs_landlock
def test_the_fallback_keeps_home_secrets_and_other_environments_unreadable(
    fake_home: FakeHome, other_process: subprocess.Popen[bytes]
) -> None:
    settings = RunnerSettings(
        isolation="rlimits", test_timeout_s=20, extra_env=attack_env(fake_home, other_process)
    )
    with ProjectRunner(fake_home.project, settings) as runner:
        assert runner.isolation == "rlimits"
        assert "Landlock limits their reads" in runner.isolation_warning
        result = runner.run([NORMAL, ATTACKS])
    assert result.error == "", result.error
    assert result.total == 4 + len(fake_home.secrets) + 4, outcomes(result)
    assert result.all_passed, failures(result)


@needs_landlock
def test_a_venv_outside_the_project_stays_readable(
    fake_home: FakeHome, other_process: subprocess.Popen[bytes]
) -> None:
    """The interpreter of a venv kept under $HOME (poetry's ~/.cache/pypoetry/virtualenvs):
    its site-packages and the ones a .pth file names are readable, the secrets beside them
    are not."""
    venv = fake_home.home / ".cache" / "pypoetry" / "virtualenvs" / "reader-py3"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout.strip()
    )  # fmt: skip
    (site / "venv_only.py").write_text("WHERE = 'the venv'\n")
    (site / "selfdebug_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    test = fake_home.project / "tests" / "test_venv.py"
    test.write_text("import venv_only\n\ndef test_venv_module():\n    assert venv_only.WHERE\n")
    settings = RunnerSettings(
        interpreter=str(python),
        isolation="rlimits",
        test_timeout_s=20,
        extra_env=attack_env(fake_home, other_process),
    )
    with ProjectRunner(fake_home.project, settings) as runner:
        result = runner.run(["tests/test_venv.py", NORMAL, ATTACKS])
    assert result.error == "", result.error
    assert runner.interpreter == python
    assert result.total == 1 + 4 + len(fake_home.secrets) + 4, outcomes(result)
    assert result.all_passed, failures(result)


def test_the_read_set_leaves_out_home_and_credentials(tmp_path: Path) -> None:
    """The rules themselves: a project AT the home folder brings its files in, never ~/.ssh or
    ~/.netrc; folders around the home folder come in without it; a Python under /root (pyenv,
    uv) is kept, /root itself is not."""
    fake = FakeHome(tmp_path)
    environ = {"HOME": str(fake.home)}
    reads = landlock_reads([fake.home, tmp_path], home=str(fake.home), environ=environ)
    assert str(fake.home / "src") in reads and str(fake.home / "notes.txt") in reads
    for secret in (".ssh", ".netrc", ".aws"):
        assert not any(p == str(fake.home / secret) or p.startswith(f"{fake.home}/{secret}/")
                       for p in reads), secret  # fmt: skip
    assert str(fake.home) not in reads and str(tmp_path) not in reads
    assert "/usr" in reads and "/proc" in reads
    assert not any(p in ("/", "/root", "/tmp", "/dev", "/run") for p in reads)
    if os.access("/etc/shadow", os.R_OK):  # root: /etc comes in entry by entry, without it
        assert "/etc/shadow" not in reads and "/etc/passwd" in reads
    base = Path(os.path.realpath(sys.base_prefix))
    assert any(base == Path(p) or Path(p) in base.parents for p in landlock_reads([base]))


def test_without_landlock_the_warning_says_reads_are_open(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "landlock_abi", lambda: 0)
    assert "reads are NOT limited" in sandbox.isolation_warning("rlimits")
    assert sandbox.protection("rlimits") == "none"
    assert sandbox.protection("bwrap") == "bubblewrap"


def no_bwrap_path(tmp_path: Path) -> str:
    """PATH without bubblewrap: only a folder with the tools the CLI and the tests use."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("sleep", "sh"):
        found = shutil.which(name)
        assert found
        (tools / name).symlink_to(found)
    return f"{Path(sys.executable).parent}{os.pathsep}{tools}"


@needs_landlock
def test_cli_without_bubblewrap_on_path(
    fake_home: FakeHome, other_process: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    """As a user without bubblewrap meets it: `doctor` names the protection in force, and
    `selfdebug test` runs the attacks with the automatic choice (the fallback)."""
    env = {**os.environ, "PATH": no_bwrap_path(tmp_path), "HOME": str(fake_home.home)}
    env.pop("PYTEST_ADDOPTS", None)
    doctor = subprocess.run(
        [sys.executable, "-m", "selfdebug", "doctor", str(fake_home.project), "--json",
         "--backend", "openai", "--endpoint", "http://127.0.0.1:9/v1"],
        capture_output=True, text=True, timeout=300, env=env, cwd=fake_home.project,
    )  # fmt: skip
    report = json.loads(doctor.stdout)
    assert report["protection"] == "landlock read+write", doctor.stdout + doctor.stderr
    sandbox_check = next(c for c in report["checks"] if c["name"] == "sandbox")
    assert "protection: landlock read+write" in sandbox_check["detail"]
    # The attack file, run by `selfdebug test` for the target function; its variables come in
    # through a conftest of the copy (the CLI has no --env).
    names = attack_env(fake_home, other_process)
    (fake_home.project / "tests" / "conftest.py").write_text(
        "import os\n" + "".join(f"os.environ[{k!r}] = {v!r}\n" for k, v in names.items())
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "selfdebug", "test",
         str(fake_home.project / "reader" / "words.py") + "::count_words",
         "--test", ATTACKS, "--test", NORMAL, "--timeout", "20", "--json"],
        capture_output=True, text=True, timeout=300, env=env, cwd=fake_home.project,
    )  # fmt: skip
    print(f"selfdebug test without bubblewrap: {time.monotonic() - started:.2f} s")
    assert "Landlock limits their reads" in done.stderr, done.stderr
    answer = json.loads(done.stdout)
    assert answer["sandboxed"] is False and answer["protection"] == "landlock read+write"
    tests = answer["result"]["tests"]
    assert len(tests) == 4 + len(fake_home.secrets) + 4, done.stdout
    assert all(t["outcome"] == "passed" for t in tests), done.stdout
