"""The project's own environment for a real-bug case: a virtualenv made once per project, reused.

Why: a real project's tests need its dependencies and pytest plugins, and nothing of ours (a
plugin installed beside selfdebug once broke a project's `filterwarnings = error`). Making a
virtualenv and installing a project costs a minute, so one is made per project and requirements:
the cache key is the checkout's name and the last commit (up to the case's commit) that changed
its packaging files, plus the extras asked for. Each case's fresh clone is then installed
editable into it without dependencies (`pip install --no-deps -e CLONE`), a few seconds, so the
tests import the clone (and the runner's redirect of editable installs points them at its shadow
copy, where the candidate is). One case at a time uses an environment (`hold`).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selfdebug.bench.real_cases import CaseError, RealCase

PACKAGING_FILES = (
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements*.txt",
    "requirements",
    "tox.ini",
)
# What every environment gets besides the project: the runner's needs.
RUNNER_REQUIREMENTS = ("pytest", "pytest-timeout")
READY_FILE = "selfdebug-env.json"
DEFAULT_ENV_CACHE = Path.home() / ".cache" / "selfdebug" / "real-envs"
INSTALL_TIMEOUT_S = 900.0

_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def requirements_commit(clone: Path, commit: str) -> str:
    """The last commit up to `commit` that changed the packaging files (the cache key's part)."""
    completed = subprocess.run(
        ["git", "log", "-1", "--format=%H", commit, "--", *PACKAGING_FILES],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.stdout.strip() or commit


def environment_dir(case: RealCase, clone: Path, cache: Path) -> Path:
    wanted = json.dumps([sorted(case.extras), sorted(case.install), sorted(case.requirements)])
    extra_key = hashlib.sha256(wanted.encode()).hexdigest()[:8]
    packaging = requirements_commit(clone, case.commit)[:12]
    return Path(cache) / f"{case.checkout}-{packaging}-{extra_key}"


def python_of(env: Path) -> Path:
    return env / "bin" / "python"


def _run(command: list[str], log: Path, what: str) -> None:
    with log.open("a", encoding="utf-8") as handle:
        handle.write(f"$ {' '.join(command)}\n")
        handle.flush()
        try:
            completed = subprocess.run(
                command, stdout=handle, stderr=subprocess.STDOUT, timeout=INSTALL_TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            raise CaseError(f"{what}: timed out after {INSTALL_TIMEOUT_S:.0f} s (log: {log})")
    if completed.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        raise CaseError(f"{what} failed (log: {log}): {' | '.join(tail)}")


def ensure_environment(case: RealCase, clone: Path, cache: Path) -> Path:
    """The project's virtualenv (made now unless the cache has it), with `clone` installed
    editable; returns its python. Raises CaseError when the install fails."""
    env = environment_dir(case, clone, cache)
    env.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(env.with_suffix(".lock")):
        if not (env / READY_FILE).is_file():
            shutil.rmtree(env, ignore_errors=True)
            log = env.parent / f"{env.name}.log"
            log.write_text("", encoding="utf-8")
            _run([sys.executable, "-m", "venv", str(env)], log, f"{case.id}: making the venv")
            project = f"{clone}[{','.join(case.extras)}]" if case.extras else str(clone)
            _run(
                [
                    str(python_of(env)),
                    *("-m", "pip", "install", "--quiet", "-e", project),
                    *RUNNER_REQUIREMENTS,
                    *case.install,
                    *(arg for name in case.requirements for arg in ("-r", str(clone / name))),
                ],
                log,
                f"{case.id}: installing {case.checkout} and its test requirements",
            )
            record = {
                "checkout": case.checkout,
                "extras": case.extras,
                "install": case.install,
                "requirements": case.requirements,
            }
            (env / READY_FILE).write_text(json.dumps(record), encoding="utf-8")
        else:
            install_clone(case, env, clone)
    return python_of(env)


def install_clone(case: RealCase, env: Path, clone: Path) -> None:
    """Point the environment's editable install at `clone` (no dependencies: they are there)."""
    log = env.parent / f"{env.name}.log"
    _run(
        [str(python_of(env)), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(clone)],
        log,
        f"{case.id}: installing the clone into the project's environment",
    )


@contextmanager
def hold(case: RealCase, clone: Path, cache: Path) -> Iterator[Path]:
    """One case at a time per environment in this process (its editable install is the case's)."""
    env = environment_dir(case, clone, cache)
    with _locks_guard:
        lock = _locks.setdefault(env, threading.Lock())
    with lock:
        yield env


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Two benchmark processes never build the same environment at once."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
