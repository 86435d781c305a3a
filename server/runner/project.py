"""Where a project starts and which Python runs its tests.

Tests must run with the project's own interpreter (its dependencies, its pytest plugins), so we
look for the project's virtualenv before falling back to the interpreter running selfdebug.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", ".git")
VENV_DIRS = (".venv", "venv", "env", ".env")


def find_project_root(file: Path | str) -> Path:
    """The nearest ancestor directory of `file` holding a project marker (pyproject.toml,
    setup.cfg, setup.py, pytest.ini, tox.ini or .git); the file's own directory when none."""
    path = Path(file).resolve()
    start = path if path.is_dir() else path.parent
    for directory in (start, *start.parents):
        if any((directory / marker).exists() for marker in ROOT_MARKERS):
            return directory
    return start


def resolve_interpreter(project_root: Path, configured: str | None) -> Path:
    """The configured interpreter, else the project's virtualenv python, else our own."""
    if configured:
        return Path(configured)
    for name in VENV_DIRS:
        for candidate in (
            project_root / name / "bin" / "python",
            project_root / name / "Scripts" / "python.exe",
        ):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    return Path(sys.executable)


@dataclass(frozen=True)
class InterpreterInfo:
    path: Path
    ok: bool  # runs and has pytest
    pytest_version: str = ""
    has_timeout_plugin: bool = False
    problem: str = ""  # a message for the user when not ok


# Finds pytest without importing it (importing costs a second on a busy machine).
_PROBE = (
    "import importlib.util, sys\n"
    "if importlib.util.find_spec('pytest') is None:\n"
    "    print('NO_PYTEST'); sys.exit(0)\n"
    "t = int(importlib.util.find_spec('pytest_timeout') is not None)\n"
    "try:\n"
    "    from importlib.metadata import version\n"
    "    v = version('pytest')\n"
    "except Exception:\n"
    "    v = '?'\n"
    "print('OK', v, t)\n"
)


# Interpreters found working; one that failed is checked again at the next run, so that a user
# who installs pytest after the first complaint needs no server restart.
_working: dict[Path, InterpreterInfo] = {}


def inspect_interpreter(path: Path) -> InterpreterInfo:
    """Whether the interpreter runs and has pytest (and pytest-timeout); a working one is checked
    once, a failing one every time (the check costs one interpreter start)."""
    info = _working.get(path)
    if info is None:
        info = _check_interpreter(path)
        if info.ok:
            _working[path] = info
    return info


def forget_interpreters() -> None:
    """Check every interpreter afresh (the runner benchmark times a cold start)."""
    _working.clear()


def _check_interpreter(path: Path) -> InterpreterInfo:
    install_hint = f"install it with: {path} -m pip install pytest pytest-timeout"
    if not path.exists():
        return InterpreterInfo(path, False, problem=f"interpreter {path} does not exist")
    try:
        completed = subprocess.run(
            [str(path), "-I", "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return InterpreterInfo(path, False, problem=f"cannot run interpreter {path}: {error}")
    words = completed.stdout.split()
    if not words or words[0] not in ("OK", "NO_PYTEST"):
        detail = (completed.stderr or completed.stdout).strip().splitlines()[-1:] or ["no output"]
        return InterpreterInfo(path, False, problem=f"interpreter {path} failed: {detail[0]}")
    if words[0] == "NO_PYTEST":
        return InterpreterInfo(
            path, False, problem=f"pytest is not installed in {path}; " + install_hint
        )
    return InterpreterInfo(path, True, pytest_version=words[1], has_timeout_plugin=words[2] == "1")
