"""What the dynamic test discovery found, remembered per function in the user's cache folder.

Why: finding the tests that execute a function runs test files (seconds on a real suite), and
the editor asks again for every command on the same function ("Run tests", then "Self-debug").
An answer is keyed by the function (project, file, qualname, interpreter) and holds a
fingerprint of the project's Python files and pytest configuration: a file whose size or mtime
changed is hashed again, and a changed content, or a file added or removed, is a miss. The
target's own file is hashed without the function's lines: editing (fixing) the function does not
change which tests run it, editing anything else in its file may.

Where: $SELFDEBUG_CACHE_DIR/discovery, else $XDG_CACHE_HOME/selfdebug/discovery, else
~/.cache/selfdebug/discovery; never inside the user's project.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.server.runner.shadow import is_skipped_dir
from selfdebug.server.runner.workdirs import cache_root

# Bump when what is stored changes meaning (2: the code defined inside a function counts as it,
# and the rest of the suite is searched for a failing test).
VERSION = 2
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini")
MAX_FILES = 20_000  # a bigger tree is not fingerprinted (and not cached)


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
    return cache_root(env) / "discovery"


@dataclass
class Fingerprint:
    """rel path -> (size, mtime_ns, sha256 of the content) for every file that matters."""

    files: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    def same_as(self, other: Fingerprint) -> bool:
        return {k: v[2] for k, v in self.files.items()} == {k: v[2] for k, v in other.files.items()}


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _without_lines(data: bytes, span: tuple[int, int]) -> bytes:
    lines = data.splitlines(keepends=True)
    return b"".join([*lines[: span[0]], b"<target>\n", *lines[span[1] :]])


def fingerprint(
    project_root: Path,
    target_file: Path,
    span: tuple[int, int] | None,
    previous: Fingerprint | None = None,
) -> Fingerprint | None:
    """The project's fingerprint; files whose size and mtime match `previous` keep their hash
    (no read). `span`: the target's 0-based [first, end) lines, left out of its file's hash.
    None when the tree is too big to fingerprint."""
    known = previous.files if previous is not None else {}
    target_rel = target_file.resolve().relative_to(project_root.resolve()).as_posix()
    result = Fingerprint()
    for directory, dirs, files in os.walk(project_root):
        dirs[:] = sorted(d for d in dirs if not is_skipped_dir(os.path.join(directory, d)))
        for name in files:
            if not (name.endswith(".py") or name in CONFIG_FILES):
                continue
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, project_root).replace(os.sep, "/")
            try:
                stat = os.stat(path)
            except OSError:
                continue
            if not os.path.isfile(path):
                continue
            old = known.get(rel)
            if rel != target_rel and old and old[:2] == (stat.st_size, stat.st_mtime_ns):
                result.files[rel] = old
                continue
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if rel == target_rel and span is not None:
                data = _without_lines(data, span)
            result.files[rel] = (stat.st_size, stat.st_mtime_ns, _hash(data))
            if len(result.files) > MAX_FILES:
                return None
    return result


class DiscoveryCache:
    """One JSON file per function: {"version", "fingerprint", "answer"}."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or cache_dir()

    def key(self, project_root: Path, file: Path, qualname: str, interpreter: str) -> str:
        text = json.dumps([VERSION, str(project_root), str(file), qualname, interpreter])
        return _hash(text.encode())[:32]

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def load(
        self, key: str, project_root: Path, file: Path, span: tuple[int, int] | None
    ) -> tuple[dict[str, Any] | None, Fingerprint | None]:
        """(the stored answer when the project is unchanged since, the current fingerprint)."""
        stored: dict[str, Any] | None = None
        previous: Fingerprint | None = None
        try:
            stored = json.loads(self._path(key).read_text(encoding="utf-8"))
            if stored is None or stored.get("version") != VERSION:
                stored = None
            else:
                files = stored["fingerprint"]
                previous = Fingerprint(
                    {k: (int(v[0]), int(v[1]), str(v[2])) for k, v in files.items()}
                )
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            stored = None
        current = fingerprint(project_root, file, span, previous)
        if stored is None or previous is None or current is None or not current.same_as(previous):
            return None, current
        answer = stored.get("answer")
        return (answer if isinstance(answer, dict) else None), current

    def store(self, key: str, current: Fingerprint | None, answer: dict[str, Any]) -> None:
        if current is None:
            return
        record = {"version": VERSION, "fingerprint": current.files, "answer": answer}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(record, out)
            os.replace(temporary, self._path(key))
        except OSError:
            pass  # a cache that cannot be written only costs time
