"""Where a project starts and which Python runs its tests.

Tests must run with the project's own interpreter (its dependencies, its pytest plugins), so the
order is: the interpreter the user chose (the editor's selected Python, sent as `pythonPath`, or
`--interpreter`), else the virtualenv active where selfdebug was started (`$VIRTUAL_ENV`, when
it is not our own), else the project's `.venv`/`venv`/`env`/`.env`, else the interpreter running
selfdebug ("ours": `InterpreterChoice.ours`, whose own pytest plugins must then not auto-load
into the user's run). But a `.venv/bin/python` committed to a cloned repository is the
repository's own program: an interpreter inside the project is used only once the user trusts
the project (`trusted`: VS Code's workspace trust or the `trustedWorkspace` setting forwarded by
the client, `--trust-project` on the command line), and even then every start of it, the pytest
probe included, runs inside the same sandbox and allowlisted environment as the tests (the
runner passes the probe runner in).

The project root never climbs above its `boundary` (the workspace folder, or the current
directory for the CLI): a home directory with a `.git` must not become the project.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", ".git")
VENV_DIRS = (".venv", "venv", "env", ".env")


def find_project_root(file: Path | str, boundary: Path | str | None = None) -> Path:
    """The nearest ancestor directory of `file` holding a project marker (pyproject.toml,
    setup.cfg, setup.py, pytest.ini, tox.ini or .git), never above `boundary`; without a marker,
    `boundary` itself. Without a boundary the climb stops below the home directory and `/`, and
    the file's own directory is the fallback."""
    path = Path(file).resolve()
    start = path if path.is_dir() else path.parent
    limit = Path(boundary).resolve() if boundary is not None else None
    if limit is not None and not (start == limit or limit in start.parents):
        limit = None  # the file is not under the boundary: the caller refuses or decides
    stop = {Path("/"), Path.home().resolve()} if limit is None else set()
    for directory in (start, *start.parents):
        if directory in stop:
            break
        if any((directory / marker).exists() for marker in ROOT_MARKERS):
            return directory
        if directory == limit:
            return limit
    return start


def cli_boundary(file: Path | str, cwd: Path | str | None = None) -> Path | None:
    """The CLI's boundary: the current directory when `file` is under it, else none."""
    here = Path(cwd or Path.cwd()).resolve()
    path = Path(file).resolve()
    return here if here in path.parents else None


def project_interpreter(project_root: Path) -> Path | None:
    """The project's own virtualenv python (.venv, venv, env, .env), if it has one."""
    for name in VENV_DIRS:
        found = _venv_python(project_root / name)
        if found is not None:
            return found
    return None


InterpreterSource = Literal["configured", "active", "project", "ours"]


@dataclass(frozen=True)
class InterpreterChoice:
    path: Path
    note: str = ""  # why the project's own interpreter was passed over ("" when it was not)
    # configured: the user's choice (pythonPath, --interpreter); active: $VIRTUAL_ENV; project:
    # the project's own virtualenv; ours: the Python running selfdebug (nothing else was usable)
    source: InterpreterSource = "ours"

    @property
    def ours(self) -> bool:
        """Tests run in selfdebug's own environment: its pytest plugins are not the project's."""
        return self.source == "ours"


def _venv_python(venv: Path) -> Path | None:
    for candidate in (venv / "bin" / "python", venv / "Scripts" / "python.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def active_virtualenv(environ: Mapping[str, str] | None = None) -> Path | None:
    """The python of the virtualenv activated where selfdebug started (`$VIRTUAL_ENV`: a shell,
    or Neovim started from one), unless that is selfdebug's own environment."""
    value = (os.environ if environ is None else environ).get("VIRTUAL_ENV", "")
    if not value:
        return None
    venv = Path(value)
    with contextlib.suppress(OSError):
        if venv.resolve() == Path(sys.prefix).resolve():
            return None
    return _venv_python(venv)


def resolve_interpreter(
    project_root: Path,
    configured: str | None,
    *,
    trusted: bool = False,
    environ: Mapping[str, str] | None = None,
) -> InterpreterChoice:
    """The configured interpreter, else the active virtualenv's, else the project's virtualenv
    python, else our own. An interpreter inside the project (of any of these) is used only when
    `trusted`."""
    root = Path(project_root).resolve()
    if configured:
        path, source = Path(configured), "configured"
    elif (active := active_virtualenv(environ)) is not None:
        path, source = active, "active"
    elif (found := project_interpreter(root)) is not None:
        path, source = found, "project"
    else:
        return InterpreterChoice(Path(sys.executable))
    inside = root == path.absolute() or root in path.absolute().parents
    if trusted or not inside:
        return InterpreterChoice(path, source=cast(InterpreterSource, source))
    return InterpreterChoice(Path(sys.executable), _untrusted_note(path))


def _untrusted_note(path: Path) -> str:
    return (
        f"the project's interpreter {path} was not used because the project is not trusted; "
        "tests ran with selfdebug's own Python. Trust the workspace in the editor (or pass "
        "--trust-project) to use it."
    )


@dataclass(frozen=True)
class InterpreterInfo:
    path: Path
    ok: bool  # runs and has pytest
    pytest_version: str = ""
    has_timeout_plugin: bool = False
    problem: str = ""  # a message for the user when not ok
    # Its prefixes and sys.path entries: what the fallback's Landlock rules let a test read.
    search_paths: tuple[str, ...] = ()


# Finds pytest without importing it (importing costs a second on a busy machine), and prints
# where the interpreter reads its own files from (one JSON line).
_PROBE = (
    "import importlib.util, json, sys\n"
    "if importlib.util.find_spec('pytest') is None:\n"
    "    print('NO_PYTEST'); sys.exit(0)\n"
    "t = int(importlib.util.find_spec('pytest_timeout') is not None)\n"
    "try:\n"
    "    from importlib.metadata import version\n"
    "    v = version('pytest')\n"
    "except Exception:\n"
    "    v = '?'\n"
    "print('OK', v, t)\n"
    "print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,\n"
    "                  sys.executable, *sys.path]))\n"
)


# Interpreters found working; one that failed is checked again at the next run, so that a user
# who installs pytest after the first complaint needs no server restart.
_working: dict[Path, InterpreterInfo] = {}


ProbeRunner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


def inspect_interpreter(path: Path, run_probe: ProbeRunner) -> InterpreterInfo:
    """Whether the interpreter runs and has pytest (and pytest-timeout); a working one is checked
    once, a failing one every time (the check costs one interpreter start). `run_probe` runs the
    command the way tests run (sandbox, environment, limits): it is the project's program."""
    info = _working.get(path)
    if info is None:
        info = _check_interpreter(path, run_probe)
        if info.ok:
            _working[path] = info
    return info


def forget_interpreters() -> None:
    """Check every interpreter afresh (the runner benchmark times a cold start)."""
    _working.clear()


def _check_interpreter(path: Path, run_probe: ProbeRunner) -> InterpreterInfo:
    install_hint = f"install the project and pytest into it: `{path} -m pip install -e . pytest`"
    if not path.exists():
        return InterpreterInfo(path, False, problem=f"interpreter {path} does not exist")
    try:
        completed = run_probe([str(path), "-I", "-c", _PROBE])
    except (OSError, subprocess.TimeoutExpired) as error:
        return InterpreterInfo(path, False, problem=f"cannot run interpreter {path}: {error}")
    words = completed.stdout.split()
    if not words or words[0] not in ("OK", "NO_PYTEST"):
        detail = (completed.stderr or completed.stdout).strip().splitlines()[-1:] or ["no output"]
        return InterpreterInfo(path, False, problem=f"interpreter {path} failed: {detail[0]}")
    if words[0] == "NO_PYTEST":
        return InterpreterInfo(
            path, False, problem=f"pytest is not installed in {path}: " + install_hint
        )
    return InterpreterInfo(
        path,
        True,
        pytest_version=words[1],
        has_timeout_plugin=words[2] == "1",
        search_paths=_search_paths(completed.stdout),
    )


def _search_paths(stdout: str) -> tuple[str, ...]:
    """The absolute paths of the probe's JSON line (none when it is missing or malformed)."""
    lines = stdout.splitlines()
    try:
        value = json.loads(lines[1]) if len(lines) > 1 else []
    except ValueError:
        return ()
    if not isinstance(value, list):
        return ()
    return tuple(p for p in value if isinstance(p, str) and os.path.isabs(p))
