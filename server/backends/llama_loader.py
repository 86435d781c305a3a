"""Loads a GGUF into llama.cpp once per process and shares it.

Why a process-wide cache: loading costs a second or more and hundreds of MB, and keeping ONE
`Llama` instance per model is also what makes prefix (KV) reuse work: llama-cpp-python re-evaluates
only the tokens after the longest common prefix with the previous call on the same instance, and
the turns of a debugging session share long prefixes. Loading is lazy (first call, in the caller's
worker thread) and guarded by a lock so that two threads never load the same model twice.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfdebug.server.backends.base import BackendConfigError
from selfdebug.server.backends.gguf_meta import CHAT_TEMPLATE_KEY
from selfdebug.server.backends.guard import CallGuard


def missing_binding() -> str:
    """The message for a missing binding, with the command that installs it for this selfdebug."""
    from selfdebug.server.backends.extras import install_extra_command

    return (
        "the local model backend needs llama-cpp-python; install it with: "
        + install_extra_command("llama")
    )


@dataclass(frozen=True)
class LoadParams:
    model_path: str
    n_gpu_layers: int
    n_ctx: int
    n_threads: int | None
    # Flash attention: on CPU it roughly halves prompt time at 1,500 tokens (measured with
    # `selfdebug bench backend`) and makes later turns cheaper relative to cold ones.
    flash_attn: bool = True


@dataclass
class LoadedModel:
    """A shared `Llama` plus what callers need to use it one at a time."""

    llm: Any  # lookup_decoding.LookupLlama: a llama_cpp.Llama that can verify lookup drafts
    params: LoadParams
    call_lock: threading.Lock = field(default_factory=threading.Lock)
    # The guard of the call now running; llama.cpp's abort callback reads it between graph nodes,
    # so a cancel or deadline also stops a long prompt evaluation, not only token generation, and
    # tells it that llama.cpp is computing (guard.tick).
    active_guard: CallGuard | None = None
    _abort_callback: Any = None  # keeps the ctypes callback alive as long as the model

    @property
    def chat_template(self) -> str | None:
        return self.llm.metadata.get(CHAT_TEMPLATE_KEY) or None


_cache: dict[LoadParams, LoadedModel] = {}
_cache_lock = threading.Lock()


def import_llama_cpp():  # -> the llama_cpp module
    try:
        import llama_cpp
    except ImportError:
        raise BackendConfigError(missing_binding())
    return llama_cpp


def require_binding() -> None:
    """Fail fast (without importing it: that costs a second) when llama-cpp-python is absent."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise BackendConfigError(missing_binding())


def require_model_file(path: Path) -> None:
    if not path.is_file():
        raise BackendConfigError(f"model file not found: {path} (check the model path setting)")


def physical_cores() -> int:
    """Physical cores this process may run on (SMT siblings counted once).

    Why: generation is memory-bound and llama.cpp's threads spin; one thread per physical core is
    the measured sweet spot (`selfdebug bench backend --threads N`), while llama-cpp-python's own
    default (half the logical CPUs) leaves a 2-core machine generating on one thread."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    cores = set()
    for cpu in allowed:
        topology = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            package = (topology / "physical_package_id").read_text().strip()
            core = (topology / "core_id").read_text().strip()
        except OSError:
            cores.add(("cpu", str(cpu)))
            continue
        cores.add((package, core))
    return max(len(cores), 1) if cores else max(os.cpu_count() or 1, 1)


def logical_cpus() -> int:
    """CPUs this process may run on: prompt processing (batch) is compute-bound, uses them all."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return max(os.cpu_count() or 1, 1)


def default_gpu_layers() -> int:
    """All layers on the GPU when this build of llama.cpp can offload, else none."""
    return -1 if import_llama_cpp().llama_supports_gpu_offload() else 0


def load_model(params: LoadParams) -> LoadedModel:
    """The shared model for `params`, loading it on first use (thread-safe)."""
    with _cache_lock:
        loaded = _cache.get(params)
        if loaded is None:
            loaded = _load(params)
            _cache[params] = loaded
        return loaded


def _load(params: LoadParams) -> LoadedModel:
    llama_cpp = import_llama_cpp()
    from selfdebug.server.backends.lookup_decoding import LookupLlama  # imports llama_cpp

    path = Path(params.model_path)
    require_model_file(path)
    try:
        llm = LookupLlama(
            model_path=str(path),
            n_gpu_layers=params.n_gpu_layers,
            n_ctx=params.n_ctx,
            n_threads=params.n_threads or physical_cores(),
            n_threads_batch=params.n_threads or logical_cpus(),
            flash_attn=params.flash_attn,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as error:
        raise BackendConfigError(f"llama.cpp could not load {path.name}: {error}")
    loaded = LoadedModel(llm=llm, params=params)
    _install_abort_callback(llama_cpp, loaded)
    return loaded


def _install_abort_callback(llama_cpp, loaded: LoadedModel) -> None:
    def should_abort(_data: object) -> bool:
        guard = loaded.active_guard
        if guard is None:
            return False
        guard.tick()  # computing: a long batch on a busy CPU is slow, not stalled
        return guard.stopped

    callback = llama_cpp.ggml_abort_callback(should_abort)
    llama_cpp.llama_set_abort_callback(loaded.llm._ctx.ctx, callback, None)
    loaded._abort_callback = callback
