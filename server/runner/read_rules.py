"""What a test process may read when bubblewrap cannot run: the fallback's Landlock read set.

Without bubblewrap nothing hides `$HOME` behind a tmpfs, but on a Landlock kernel the launcher can
allow reading (and running) files below a list of paths only. The list is built here, in the
server, from what a Python test run needs: the system's program, library and config folders,
`/proc` (Landlock's ptrace scoping keeps other processes' `environ` and memory out of reach), the
interpreter's prefixes and every entry of its `sys.path` (its venv and site-packages, wherever
they live), the project itself (read-only) and our tools; the shadow copy, the run's folders and a
few device files are added by the launcher (writable). Like the bubblewrap mounts
(`sandbox.masked_paths`), `$HOME` and the credential paths never come in as a whole: a path that
contains one is replaced by its entries minus it, so a project or venv under `$HOME` stays
readable while `~/.ssh`, `~/.aws`, `~/.netrc` ... do not.

Landlock limits opening, listing and running files; `stat` of a path the test already knows still
answers (a test can learn that `~/.ssh/id_rsa` exists, not read it).
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterable, Mapping
from pathlib import Path

from selfdebug.server.runner.sandbox import CREDENTIAL_ENV, CREDENTIAL_PATHS, HOME_CREDENTIALS

# What any Python run reads: programs, libraries, configuration, interpreters installed outside
# /usr (/opt, Nix, Guix), the process's own /proc files and the CPU and memory facts in /sys.
SYSTEM_READS = (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
    "/nix/store", "/gnu/store", "/proc", "/sys/devices/system", "/sys/kernel/mm",
    "/sys/fs/cgroup",
)  # fmt: skip
# Home folders hold credentials but also interpreters (pyenv, uv) and projects: what is inside
# one may be read, the folder as a whole never.
HOME_WALLS = ("/root",)


def landlock_reads(
    paths: Iterable[Path | str],
    *,
    home: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """The paths (resolved) a test may read, for the launcher's `landlock_read`: `paths` and
    SYSTEM_READS, each split around the home folders and credential paths it contains."""
    walls, secrets = _walls_and_secrets(home, environ)
    granted: list[str] = []
    for path in (*SYSTEM_READS, *_config_links(), *paths):
        resolved = os.path.realpath(path)
        if os.path.exists(resolved):
            granted += _around(resolved, walls, secrets)
    return list(dict.fromkeys(granted))


def _config_links() -> list[str]:
    """Where the links in /etc lead outside the system folders (`resolv.conf` ->
    `/run/systemd/resolve/...`): Landlock checks the target, not the link."""
    try:
        entries = list(os.scandir("/etc"))
    except OSError:
        return []
    targets = []
    for entry in entries:
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            if os.path.isfile(target) and target.startswith(("/run/", "/var/")):
                targets.append(target)
    return targets


def _walls_and_secrets(
    home: str | None, environ: Mapping[str, str] | None
) -> tuple[set[str], set[str]]:
    """Walls: folders readable only below (home folders). Secrets: never readable, nor anything
    below them. Both resolved, and only those the test could read at all."""
    environ = os.environ if environ is None else environ
    homes = {home or environ.get("HOME") or os.path.expanduser("~"), *HOME_WALLS}
    try:
        homes.add(pwd.getpwuid(os.getuid()).pw_dir)  # the real one, when $HOME was changed
    except KeyError:
        pass
    homes = {text for text in homes if os.path.isabs(text) and text != "/"}
    secrets = [os.path.join(h, name) for h in homes for name in HOME_CREDENTIALS]
    secrets += [path for path in CREDENTIAL_PATHS if path not in HOME_WALLS]
    secrets += [environ[name] for name in CREDENTIAL_ENV if os.path.isabs(environ.get(name, ""))]
    return _reachable(homes), _reachable(secrets)


def _reachable(paths: Iterable[str]) -> set[str]:
    """The paths that exist and that this user can read or enter (others need no rule)."""
    found = set()
    for text in paths:
        path = os.path.realpath(text)
        if os.path.exists(path) and (os.access(path, os.R_OK) or os.access(path, os.X_OK)):
            found.add(path)
    return found


def _around(root: str, walls: set[str], secrets: set[str]) -> list[str]:
    """`root`, or its entries when it holds a wall or a secret (recursively, without following
    links: a link's target is allowed only where it is allowed itself)."""
    if any(_under(root, secret) for secret in secrets):
        return []
    inside = {path for path in walls | secrets if path != root and _under(path, root)}
    if not inside:
        return [root]
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError:
        return []
    granted: list[str] = []
    for entry in entries:
        child = os.path.join(root, entry.name)
        if child in inside or entry.is_symlink():
            continue
        granted += _around(child, walls, secrets)
    return granted


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
