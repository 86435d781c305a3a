"""Start the test process sealed off, watch its process tree, and kill all of it on demand.

Two modes. `bwrap`: bubblewrap with every namespace unshared (no network, a private pid
namespace that dies with its first process), a read-only root and only the shadow copy and the
run's temp dir writable. `rlimits` (fallback where bubblewrap cannot run): a new session plus
resource limits; processes are found for killing through a marker in their environment, because
a grandchild that calls setsid() leaves the process group.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ENV_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT")


@functools.lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    """The bubblewrap binary when it can actually create a sandbox here (checked once)."""
    path = shutil.which("bwrap")
    if not path:
        return None
    probe = [path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    probe += ["--dev", "/dev", "--proc", "/proc", "true"]
    try:
        completed = subprocess.run(probe, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if completed.returncode == 0 else None


def choose_isolation(requested: str) -> str:
    """'bwrap' or 'rlimits' for a requested mode (auto|bwrap|rlimits)."""
    if requested == "rlimits":
        return "rlimits"
    if bwrap_path():
        return "bwrap"
    if requested == "bwrap":
        raise RuntimeError("bubblewrap was requested but cannot create a sandbox on this machine")
    return "rlimits"


def build_env(
    *,
    home: Path,
    tmp: Path,
    interpreter: Path,
    python_path: Iterable[Path],
    ours: Mapping[str, str],
    passthrough: Iterable[str] = (),
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The test process's environment: an allowlist, never the server's secrets (API keys)."""
    source = os.environ if source is None else source
    env = {name: source[name] for name in (*ENV_ALLOWLIST, *passthrough) if name in source}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    venv = interpreter.parent.parent
    if (venv / "pyvenv.cfg").exists():  # tests that run `python` should get the project's
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{interpreter.parent}{os.pathsep}{env['PATH']}"
    env.update(
        HOME=str(home),
        TMPDIR=str(tmp),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=os.pathsep.join(str(p) for p in python_path),
    )
    env.update(ours)
    return env


def bwrap_command(
    bwrap: str, *, writable: Iterable[Path], readonly: Iterable[Path], cwd: Path, argv: list[str]
) -> list[str]:
    command = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    command += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"]
    for path in readonly:
        command += ["--ro-bind", str(path), str(path)]
    for path in writable:
        command += ["--bind", str(path), str(path)]
    command += ["--chdir", str(cwd), "--", *argv]
    return command


@dataclass
class ProcessTree:
    """The started process (a new session) and what we know to kill all of it."""

    process: subprocess.Popen[bytes]
    marker: tuple[str, str]  # (env name, value) every process of this run inherits
    isolation: str
    killed: bool = False
    _seen: set[int] = field(default_factory=set)

    @property
    def pid(self) -> int:
        return self.process.pid

    def count_processes(self) -> int:
        """Processes descending from the started one (in bwrap, that is the whole pid namespace,
        since orphans there are re-parented to its init)."""
        children: dict[int, list[int]] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            fields = data[data.rfind(b")") + 2 :].split()
            children.setdefault(int(fields[1]), []).append(int(entry.name))
        count, stack = 0, [self.pid]
        while stack:
            for child in children.get(stack.pop(), ()):
                count += 1
                stack.append(child)
        return count

    def _marked_pids(self, keep: int | None = None) -> list[int]:
        needle = f"{self.marker[0]}={self.marker[1]}".encode() + b"\0"
        found = []
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) in (os.getpid(), keep):
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as handle:
                    if needle in handle.read() + b"\0":
                        found.append(int(entry.name))
            except OSError:
                continue
        return found

    def kill(self) -> None:
        """SIGKILL the whole tree: the session's group, and (fallback mode) every process that
        carries this run's marker."""
        self.killed = True
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.kill()
        if self.isolation == "rlimits":
            self._kill_marked(keep=None)

    def reap_leftovers(self, keep: int | None = None) -> None:
        """In fallback mode, kill background processes a test left behind (they carry the
        marker but may have left the process group); `keep` spares pytest itself. In bwrap the
        pid namespace does this when pytest exits."""
        if self.isolation == "rlimits":
            self._kill_marked(keep)

    def _kill_marked(self, keep: int | None) -> None:
        for _ in range(50):  # repeated until none is left: a fork loop keeps spawning
            pids = self._marked_pids(keep)
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
