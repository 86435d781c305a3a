"""A private copy of the project where tests run, so the user's tree is never written.

Kept across runs: each `sync()` rewrites only files whose source changed (mtime + size) and
repairs anything a test changed or created in the copy, so every run starts from the user's tree
exactly. `overrides` (a candidate fix, an instrumented file, an unsaved buffer) are written for
one run and undone afterwards.

Bounded: a file that is a symlink to somewhere outside the project (a committed link to
`~/.ssh/id_rsa`) or not a regular file is not copied, and the copy as a whole is capped
(`ShadowTooLarge`, with a message that says what to do), so a project root that turned out to be
a home directory fails clearly instead of copying it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from selfdebug.server.runner.source_files import encode_declared
from selfdebug.server.runner.workdirs import make_run_dir

# Directory names never copied: version control, virtualenvs, dependencies, build outputs, caches.
SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".jj", ".venv", "venv", "node_modules", "__pycache__",
        ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".eggs", "build", "dist",
        ".idea", ".cache", "htmlcov", ".hypothesis", "site-packages",
    }
)  # fmt: skip
SKIP_SUFFIXES = (".pyc", ".pyo", ".egg-info", ".dist-info")
MAX_FILE_BYTES = 50 * 1024 * 1024
COPY_WORKERS = 8

Signature = tuple[int, int]  # (mtime_ns, size)


class ShadowTooLarge(RuntimeError):
    """The project holds more than the shadow copy's cap."""


@dataclass
class SyncStats:
    files: int  # files in the copy after the sync
    copied: int  # files (re)written
    removed: int  # stale files deleted from the copy
    seconds: float


def is_skipped_dir(path: str) -> bool:
    """Whether a project directory is left out of the copy (and out of test discovery):
    version control, dependencies, build outputs, caches, and any virtualenv, whatever its name."""
    name = os.path.basename(path)
    if name in SKIP_DIRS or name.endswith(SKIP_SUFFIXES):
        return True
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))


def _walk(
    top: Path, *, descend: Callable[[os.DirEntry[str]], bool], dirs: set[str]
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every non-directory entry below `top` as (relative posix path, entry); the directories
    walked into are added to `dirs`. Unreadable folders are passed over, never raised."""
    stack = [("", str(top))]
    while stack:
        rel_dir, abs_dir = stack.pop()
        try:
            entries = list(os.scandir(abs_dir))
        except OSError:
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if descend(entry):
                    dirs.add(rel)
                    stack.append((rel, entry.path))
                continue
            yield rel, entry


class ShadowCopy:
    """A copy of `project_root` in `base_dir` (default: a run folder of its own, workdirs.py);
    `root` is the copy's project root."""

    def __init__(
        self, project_root: Path, base_dir: Path | None = None, *, cap_bytes: int | None = None
    ) -> None:
        self.project_root = Path(project_root).resolve()
        self.cap_bytes = cap_bytes
        self._own_base = base_dir is None
        base = Path(base_dir) if base_dir else make_run_dir(prefix="shadow-")
        # Keep the project's directory name so paths in messages read naturally.
        self.root = base / (self.project_root.name or "project")
        self.root.mkdir(parents=True, exist_ok=True)
        self._base = base
        # relpath -> (signature of the user's file, signature of our copy)
        self._state: dict[str, tuple[Signature, Signature]] = {}
        self._dirs: set[str] = set()
        # The user's tree as the last sync saw it (names and signatures): equal keys, equal trees.
        self.tree_key: int | None = None

    # -- path mapping -------------------------------------------------------------------------
    def to_user(self, path: str | Path) -> Path | None:
        """The user's path for a path inside the copy (None when outside it)."""
        text = os.path.abspath(str(path))
        root = str(self.root)
        if text == root:
            return self.project_root
        if text.startswith(root + os.sep):
            return self.project_root / text[len(root) + 1 :]
        return None

    def to_shadow(self, path: str | Path) -> Path:
        rel = Path(path).resolve().relative_to(self.project_root)
        return self.root / rel

    # -- syncing ------------------------------------------------------------------------------
    def _scan_user(self) -> tuple[dict[str, tuple[str, Signature]], set[str]]:
        files: dict[str, tuple[str, Signature]] = {}
        dirs: set[str] = set()
        total = 0
        for rel, entry in _walk(
            self.project_root, descend=lambda e: not is_skipped_dir(e.path), dirs=dirs
        ):
            if entry.name.endswith(SKIP_SUFFIXES):
                continue
            try:
                st = entry.stat(follow_symlinks=True)  # a symlinked file is copied as content
                is_file = entry.is_file(follow_symlinks=True)
                if entry.is_symlink() and not self._inside(os.path.realpath(entry.path)):
                    continue  # a link out of the project (~/.ssh/id_rsa, /dev/zero)
            except OSError:
                continue
            if is_file and st.st_size <= MAX_FILE_BYTES:
                files[rel] = (entry.path, (st.st_mtime_ns, st.st_size))
                total += st.st_size
                if self.cap_bytes is not None and total > self.cap_bytes:
                    raise ShadowTooLarge(
                        f"the project {self.project_root} holds more than "
                        f"{self.cap_bytes / 2**20:.0f} MiB of files to copy for the test runs; "
                        "open the project's own folder (or add a pyproject.toml at its root) so "
                        "a smaller root is chosen"
                    )
        return files, dirs

    def _inside(self, real: str) -> bool:
        root = str(self.project_root)
        return real == root or real.startswith(root + os.sep)

    def _scan_copy(self) -> tuple[dict[str, Signature], set[str]]:
        files: dict[str, Signature] = {}
        dirs: set[str] = set()
        for rel, entry in _walk(self.root, descend=lambda e: True, dirs=dirs):
            try:
                st = entry.stat(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            files[rel] = (st.st_mtime_ns, st.st_size) if is_file else (-1, -1)
        return files, dirs

    def sync(self) -> SyncStats:
        """Make the copy equal to the user's tree (minus skipped dirs); cheap if little changed."""
        started = time.perf_counter()
        user_files, user_dirs = self._scan_user()
        copy_files, copy_dirs = self._scan_copy()
        removed = 0
        # Remove what the user deleted or a test created (files first, then dirs deepest first).
        for rel in copy_files.keys() - user_files.keys():
            _remove(self.root / rel)
            self._state.pop(rel, None)
            removed += 1
        for rel in sorted(copy_dirs - user_dirs, key=len, reverse=True):
            _remove(self.root / rel)
        for rel in sorted(user_dirs - copy_dirs, key=len):
            (self.root / rel).mkdir(parents=True, exist_ok=True)
        stale = [
            (rel, source, user_sig)
            for rel, (source, user_sig) in user_files.items()
            if not (
                (known := self._state.get(rel))
                and known[0] == user_sig
                and copy_files.get(rel) == known[1]
            )
        ]
        # Creating files is latency-bound (the syscalls release the GIL): copy in parallel.
        workers = min(COPY_WORKERS, max(1, len(stale) // 64))
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:
                copies = list(pool.map(self._copy_one, stale))
        else:
            copies = [self._copy_one(item) for item in stale]
        copied = 0
        for (rel, _source, user_sig), copy_sig in zip(stale, copies, strict=True):
            if copy_sig is not None:
                self._state[rel] = (user_sig, copy_sig)
                copied += 1
        self._dirs = user_dirs
        self.tree_key = hash(frozenset((rel, sig) for rel, (_, sig) in user_files.items()))
        return SyncStats(len(user_files), copied, removed, time.perf_counter() - started)

    def _copy_one(self, item: tuple[str, str, Signature]) -> Signature | None:
        rel, source, _user_sig = item
        target = self.root / rel
        try:
            if target.is_symlink() or (target.exists() and not target.is_file()):
                _remove(target)
            shutil.copyfile(source, target)
            st = target.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    @contextlib.contextmanager
    def overridden(self, overrides: Mapping[Path, str] | None) -> Iterator[dict[Path, Path]]:
        """Write `overrides` (user path -> text) into the copy for the duration of the block.

        Yields shadow path -> user path for the files written. The next `sync()` restores them
        (their copy signature no longer matches), so no explicit undo can be forgotten.
        """
        written: dict[Path, Path] = {}
        for user_path, text in (overrides or {}).items():
            target = self.to_shadow(user_path)
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink():
                target.unlink()
            target.write_bytes(encode_declared(text))  # what Python reads back as `text`
            written[target] = Path(user_path).resolve()
        try:
            yield written
        finally:
            for target in written:
                rel = target.relative_to(self.root).as_posix()
                self._state.pop(rel, None)  # force a re-copy (or removal) at the next sync

    def close(self) -> None:
        shutil.rmtree(self._base if self._own_base else self.root, ignore_errors=True)


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass
