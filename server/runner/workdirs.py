"""Every run's working folder (its shadow copy of the project, our tools, each test process's home
and temp), under one folder of ours, marked with its owner so that a later start removes what a
dead owner left.

Why: a run's folder holds a whole copy of the user's project. `kill -9` of the server, or a
SIGTERM that ended `selfdebug fix` before its cleanup, used to leave that copy in /tmp under a
random name that nothing ever removed. Here every folder lives in `runs_dir()` (the user's cache,
~/.cache/selfdebug/runs; $SELFDEBUG_RUNS_DIR overrides it), owner-only (0o700), with an
`owner.json` naming the process that made it: its pid, and that process's start time (Linux:
/proc/PID/stat field 22) so that a pid the system has since given to another process is not
taken for the owner. `remove_stale()`, run when a command starts, stops what still runs in a dead
owner's folder and removes it; a live owner's folder is never touched.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["Owner", "cache_root", "make_run_dir", "remove_stale", "runs_dir"]

CACHE_DIR_ENV = "SELFDEBUG_CACHE_DIR"
RUNS_DIR_ENV = "SELFDEBUG_RUNS_DIR"
OWNER_FILE = "owner.json"
# A folder without its marker is being made (the marker is written right after the folder) or
# was left by a process that died in between: it is removed only once it is this old.
UNMARKED_GRACE_S = 600.0

logger = logging.getLogger(__name__)


def cache_root(env: Mapping[str, str] = os.environ) -> Path:
    """selfdebug's folder in the user's cache: $SELFDEBUG_CACHE_DIR, else
    $XDG_CACHE_HOME/selfdebug, else ~/.cache/selfdebug (test discovery's answers, the runs)."""
    override = env.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "selfdebug"


def runs_dir(env: Mapping[str, str] = os.environ) -> Path:
    """$SELFDEBUG_RUNS_DIR, else `runs` in selfdebug's cache folder."""
    override = env.get(RUNS_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return cache_root(env) / "runs"


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip() or None
    except OSError:
        return None


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """(state, start time in clock ticks after boot) of a process, from /proc/PID/stat; None
    when it does not exist (or there is no /proc)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces and ")": split after it.
    fields = text.rpartition(")")[2].split()
    try:
        return fields[0], int(fields[19])  # fields 3 (state) and 22 (starttime)
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Owner:
    """The process a run folder belongs to, told apart from a later process with the same pid."""

    pid: int
    started: int | None  # /proc/PID/stat starttime; None where there is no /proc
    boot: str | None  # the kernel's boot id: a pid and start time repeat after a reboot
    host: str  # a home shared between machines holds other machines' folders

    @classmethod
    def of(cls, pid: int) -> Owner:
        stat = _proc_stat(pid)
        return cls(pid, stat[1] if stat else None, _boot_id(), socket.gethostname())

    def alive(self) -> bool:
        """Whether the owner still runs. Unsure counts as alive: a live run's copy must never go."""
        if os.name != "posix" or self.host != socket.gethostname():
            return True  # no way to ask (os.kill(pid, 0) is no probe on Windows), or not ours
        boot = _boot_id()
        if self.boot and boot and self.boot != boot:
            return False  # made before this boot
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # it exists, as another user's process: the start time decides
        except (OverflowError, ValueError):
            return False  # not a pid
        if self.started is None:
            return True  # made without /proc: the pid is all there is to go by
        stat = _proc_stat(self.pid)
        if stat is None:
            return _proc_stat(os.getpid()) is None  # gone since; or no /proc to ask at all
        state, started = stat
        return started == self.started and state not in ("Z", "X")  # a zombie has ended


def _ensure(folder: Path) -> Path:
    """`folder`, created where missing with owner-only permissions, its new parents too
    (os.makedirs gives the parents it makes the default permissions)."""
    missing = []
    path = folder
    while not path.exists():
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass
    return folder


def make_run_dir(prefix: str = "run-") -> Path:
    """A new empty folder (0o700) for one run, in `runs_dir()`, marked as this process's. Where
    that folder cannot be made (a read-only home), a plain temporary folder, as before: it works,
    but a crash leaves it behind."""
    try:
        folder = Path(tempfile.mkdtemp(prefix=prefix, dir=_ensure(runs_dir())))
    except OSError as error:
        logger.warning(
            "cannot make a run folder in %s (%s); using the temp folder", runs_dir(), error
        )
        return Path(tempfile.mkdtemp(prefix=f"selfdebug-{prefix}"))
    marker = folder / OWNER_FILE
    try:
        temporary = folder / f".{OWNER_FILE}.tmp"
        temporary.write_text(json.dumps(asdict(Owner.of(os.getpid()))), encoding="utf-8")
        temporary.replace(marker)  # never half a marker: a torn one would look like no owner
    except OSError as error:  # unmarked, another start would take it for an orphan
        shutil.rmtree(folder, ignore_errors=True)
        logger.warning("cannot mark the run folder %s (%s); using the temp folder", folder, error)
        return Path(tempfile.mkdtemp(prefix=f"selfdebug-{prefix}"))
    return folder


def read_owner(folder: Path) -> Owner | None:
    """The owner written in `folder`'s marker; None when there is none (or it is unreadable)."""
    try:
        data = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
        return Owner(
            pid=int(data["pid"]),
            started=None if data["started"] is None else int(data["started"]),
            boot=None if data["boot"] is None else str(data["boot"]),
            host=str(data["host"]),
        )
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _is_stale(folder: Path, now: float) -> bool:
    owner = read_owner(folder)
    if owner is not None:
        return not owner.alive()
    try:
        return now - folder.stat().st_mtime > UNMARKED_GRACE_S
    except OSError:
        return False


def _stop_processes_in(folder: Path) -> None:
    """Kill the processes still working in `folder`: without bubblewrap a test process runs in a
    session of its own and outlives a server killed with -9, writing on in the copy."""
    inside = os.path.realpath(folder)
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return  # no /proc: nothing to find them by
    for pid in pids:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue  # gone, or not ours to see
        if cwd == inside or cwd.startswith(inside + os.sep):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def remove_stale(base: Path | None = None) -> list[Path]:
    """Remove the run folders in `base` (default `runs_dir()`) whose owner has ended, stopping
    what still runs in them first; the folders removed. Never raises: a folder that cannot be
    judged or removed is logged and left for the next start."""
    base = runs_dir() if base is None else base
    try:
        entries = list(os.scandir(base))
    except FileNotFoundError:
        return []
    except OSError as error:
        logger.warning("cannot look for stale run folders in %s: %s", base, error)
        return []
    removed = []
    now = time.time()
    for entry in entries:
        folder = Path(entry.path)
        try:
            if not entry.is_dir(follow_symlinks=False) or not _is_stale(folder, now):
                continue
        except OSError:
            continue
        _stop_processes_in(folder)
        shutil.rmtree(folder, ignore_errors=True)
        if folder.exists():
            logger.warning("cannot remove the stale run folder %s entirely", folder)
            continue
        removed.append(folder)
    if removed:
        logger.info("removed %d run folder(s) left by processes that ended", len(removed))
    return removed
