"""Start the test process sealed off, watch its process tree, and kill all of it on demand.

Two modes. `bwrap`: bubblewrap with every namespace unshared (no network, a private pid
namespace that dies with its first process), a read-only root and only the shadow copy and the
run's temp dir writable; `$HOME` and other credential paths are hidden behind empty tmpfs mounts
(the project and the interpreters' own folders are mounted back, read-only), so a test or a model
candidate cannot read `~/.ssh` and raise it into the next prompt. `rlimits` (fallback where
bubblewrap cannot run): a new session plus resource limits, Landlock (where the kernel has it)
so that only the run's folders are writable and only what a test run needs is readable
(read_rules.py: not `$HOME`, not another process's environment), an allowlisted environment, and
our own process made non-dumpable so a test cannot read the server's `/proc/<pid>/environ` (API
keys). It is NOT a sandbox: the network stays open (and without Landlock, reads and writes too),
which is why it is announced everywhere (`isolation_warning`, `protection`) and refused when
`requireSandbox` is set. Processes are found for killing
through a marker in their environment, because a grandchild that calls setsid() leaves the
process group.
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

# Hidden inside bubblewrap even when they are not under $HOME (directories get an empty tmpfs,
# files /dev/null). The variables name credential files that may live anywhere.
CREDENTIAL_PATHS = ("/root", "/run/secrets", "/var/run/secrets", "/etc/shadow", "/etc/gshadow")
CREDENTIAL_ENV = (
    "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "GOOGLE_APPLICATION_CREDENTIALS",
    "KUBECONFIG", "DOCKER_CONFIG", "NETRC", "GNUPGHOME", "PGPASSFILE", "AZURE_CONFIG_DIR",
)  # fmt: skip
# Hidden again when a project or interpreter folder brings part of $HOME back into view.
HOME_CREDENTIALS = (
    ".ssh", ".aws", ".config", ".gnupg", ".netrc", ".docker", ".kube", ".azure",
    ".git-credentials", ".pypirc", ".npmrc", ".local/share/keyrings", ".password-store",
)  # fmt: skip


class SandboxUnavailable(RuntimeError):
    """A sandbox was required (isolation "bwrap" or requireSandbox) but cannot run here."""


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


def choose_isolation(requested: str, *, require_sandbox: bool = False) -> str:
    """'bwrap' or 'rlimits' for a requested mode (auto|bwrap|rlimits). With `require_sandbox`
    the fallback is refused (SandboxUnavailable), whatever was requested."""
    if require_sandbox and requested == "rlimits":
        raise SandboxUnavailable(
            "a sandbox is required (requireSandbox) but isolation is set to rlimits"
        )
    if requested == "rlimits":
        return "rlimits"
    if bwrap_path():
        return "bwrap"
    if requested == "bwrap" or require_sandbox:
        why = "was requested" if requested == "bwrap" else "is required (requireSandbox)"
        raise SandboxUnavailable(
            f"a bubblewrap sandbox {why} but cannot run on this machine. "
            + bubblewrap_install_hint()
        )
    return "rlimits"


def bubblewrap_install_hint() -> str:
    """How to get a working bubblewrap here (for `selfdebug doctor` and our error messages)."""
    if shutil.which("bwrap"):
        return (
            "bwrap is installed but cannot create a sandbox: unprivileged user namespaces are "
            "blocked (on Ubuntu 23.10+ allow them for bwrap with an AppArmor profile, or run "
            "`sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`; elsewhere check "
            "`sysctl kernel.unprivileged_userns_clone user.max_user_namespaces`)."
        )
    ids = _os_release_ids()
    commands = (
        (("debian", "ubuntu"), "sudo apt install bubblewrap"),
        (("fedora", "rhel", "centos"), "sudo dnf install bubblewrap"),
        (("arch",), "sudo pacman -S bubblewrap"),
        (("opensuse", "suse"), "sudo zypper install bubblewrap"),
        (("alpine",), "sudo apk add bubblewrap"),
    )
    for names, command in commands:
        if ids & set(names):
            return f"Install bubblewrap: `{command}`."
    return (
        "Install bubblewrap (package `bubblewrap`: apt, dnf, pacman, zypper and apk all carry "
        "it), then check `bwrap --ro-bind / / true` works as your user."
    )


def _os_release_ids() -> set[str]:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    ids: set[str] = set()
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key in ("ID", "ID_LIKE"):
            ids.update(value.strip().strip('"').lower().split())
    return ids


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none, or not Linux). Checked once."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(LANDLOCK_CREATE_RULESET, None, 0, 1)  # ..._VERSION flag
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


LANDLOCK_CREATE_RULESET = 444  # the same number on every Linux architecture


def protection(isolation: str) -> str:
    """What guards a test run, in the words `selfdebug doctor` prints: "bubblewrap",
    "landlock read+write" (the fallback on a Landlock kernel: reads limited to what a test run
    needs, writes to the run's folders) or "none" (the fallback without Landlock)."""
    if isolation == "bwrap":
        return "bubblewrap"
    return "landlock read+write" if landlock_abi() else "none"


def isolation_warning(isolation: str) -> str:
    """One sentence for the user when tests run without a sandbox ("" under bubblewrap)."""
    if isolation == "bwrap":
        return ""
    if landlock_abi():
        limits = (
            "Landlock limits their reads to the project, its Python and the system folders "
            "(not the rest of your home folder) and their writes to the run's folders, but they "
            "reach the network"
        )
    else:
        limits = (
            "this kernel has no Landlock, so reads are NOT limited: they can read your files "
            "(~/.ssh, ~/.netrc ...), write anywhere you can and reach the network"
        )
    if bwrap_path():  # it works here: the fallback was asked for
        why, hint = "isolation set to rlimits", "Set isolation to auto to use bubblewrap."
    else:
        why, hint = "bubblewrap unavailable", bubblewrap_install_hint()
    return f"tests and model candidates run WITHOUT a sandbox ({why}): {limits}. {hint}"


def protect_own_environ() -> None:
    """Make this process non-dumpable, so a test (same user) cannot read our
    /proc/<pid>/environ, which holds the API keys. Children get it back at exec."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


def keep_paths(interpreters: Iterable[Path]) -> list[Path]:
    """Folders an interpreter needs to start (its venv, the Python it was made from)."""
    kept: list[Path] = []
    for interpreter in interpreters:
        venv = interpreter.parent.parent
        kept.append(venv)
        with contextlib.suppress(OSError):
            kept.append(interpreter.resolve().parent.parent)
        cfg = venv / "pyvenv.cfg"
        with contextlib.suppress(OSError):
            for line in cfg.read_text(encoding="utf-8", errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    kept.append(Path(value.strip()).parent)
    return list(dict.fromkeys(p for p in kept if p != Path("/")))


@dataclass(frozen=True)
class Masks:
    """What bubblewrap hides, in mount order: `hidden` folders get an empty tmpfs, `back` are
    mounted again read-only over them, then `inner` folders (credentials a kept folder brought
    back) get a tmpfs and `files` are replaced by /dev/null."""

    hidden: list[Path]
    back: list[Path]
    inner: list[Path]
    files: list[Path]


def masked_paths(
    keep: Iterable[Path], *, home: str | None = None, environ: Mapping[str, str] | None = None
) -> Masks:
    """Hide `$HOME` and the credential paths; mount the `keep` paths inside them back; hide the
    usual credential folders again where a kept folder brings them into view (a project at ~)."""
    environ = os.environ if environ is None else environ
    home = home if home is not None else environ.get("HOME") or os.path.expanduser("~")
    candidates = [home, *CREDENTIAL_PATHS]
    candidates += [environ[name] for name in CREDENTIAL_ENV if environ.get(name)]
    dirs: list[Path] = []
    files: list[Path] = []
    for text in candidates:
        path = Path(text)
        if not path.is_absolute() or path == Path("/"):
            continue
        if path.is_dir():
            dirs.append(path)
        elif path.is_file():
            files.append(path)
    back = [Path(p) for p in keep if Path(p).exists() and any(_under(Path(p), d) for d in dirs)]
    inner = [d for d in dirs if any(_under(d, b) and d != b for b in back)]
    for folder in back:
        for name in HOME_CREDENTIALS:
            path = Path(home) / name
            if _under(path, folder) and path != folder:
                if path.is_dir():
                    inner.append(path)
                elif path.is_file():
                    files.append(path)
    return Masks(
        hidden=list(dict.fromkeys(dirs)),
        back=list(dict.fromkeys(back)),
        inner=list(dict.fromkeys(inner)),
        files=list(dict.fromkeys(files)),
    )


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


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
    bwrap: str,
    *,
    writable: Iterable[Path],
    readonly: Iterable[Path],
    cwd: Path,
    argv: list[str],
    keep: Iterable[Path] = (),
    home: str | None = None,
) -> list[str]:
    """The bubblewrap command line: read-only root, credentials hidden (`masked_paths`), `keep`
    and `readonly` mounted back read-only, `writable` bound read-write (last, so they win)."""
    writable, readonly = list(writable), list(readonly)
    masks = masked_paths([*keep, *readonly], home=home)
    command = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    command += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"]
    for path in masks.hidden:
        command += ["--tmpfs", str(path)]
    for path in masks.back:
        command += ["--ro-bind", str(path), str(path)]
    for path in masks.inner:
        command += ["--tmpfs", str(path)]
    for path in masks.files:
        command += ["--ro-bind", "/dev/null", str(path)]
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
