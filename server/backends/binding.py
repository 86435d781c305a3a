"""Which llama-cpp-python we build, with which CMake flags, and how to repair a bad build.

Why these flags: a default source build of llama.cpp uses `-march=native` (GGML_NATIVE). On a CPU
with Intel AMX that compiles ggml's AMX kernels, and the first decode dies with SIGSEGV in
`ggml_backend_amx_mul_mat`; a wheel built natively on one machine can also use instructions another
lacks. GGML_NATIVE=OFF with AVX2/FMA/F16C/BMI2 spelled out builds the same code on every x86-64
machine and runs on every CPU since 2013 (Haswell, Zen), AMX or not; measured side by side with a
native build in README "Models". `-DLLAVA_BUILD=OFF`: we never use the multimodal library.

Pip caches a built wheel by the sdist, not by CMAKE_ARGS, so an old native wheel is reused
silently: scripts/setup.sh builds ours into a folder keyed by these flags, and when the model
process crashes the message names `reinstall_command()`.

Standard library only: scripts/setup.sh runs this file with the system Python before any venv
exists (`python3 server/backends/binding.py cmake-args`).
"""

from __future__ import annotations

import hashlib
import sys

LLAMA_CPP_VERSION = "0.3.36"
PORTABLE_CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON "
    "-DGGML_F16C=ON -DGGML_BMI2=ON"
)
# GPU builds (documented in README; choose one instead of the CPU flags above)
CUDA_CMAKE_ARGS = "-DLLAVA_BUILD=OFF -DGGML_CUDA=on"
METAL_CMAKE_ARGS = "-DLLAVA_BUILD=OFF -DGGML_METAL=on"


def reinstall_command(cmake_args: str = PORTABLE_CMAKE_ARGS) -> str:
    """The exact command that replaces a bad or stale build (bypassing pip's wheel cache)."""
    return (
        f'CMAKE_ARGS="{cmake_args}" pip install --no-cache-dir --force-reinstall --no-deps '
        f"llama-cpp-python=={LLAMA_CPP_VERSION}"
    )


def build_key(cmake_args: str = PORTABLE_CMAKE_ARGS) -> str:
    """Names the wheel folder of one (version, flags) pair, so another build is never reused."""
    return hashlib.sha256(f"{LLAMA_CPP_VERSION} {cmake_args}".encode()).hexdigest()[:12]


def risky_build(system_info: str) -> str:
    """A reason when llama.cpp's own report shows a build that may crash here, else ""."""
    if "AMX_INT8 = 1" in system_info:
        return (
            "this llama.cpp build uses Intel AMX kernels (a -march=native build), which crash "
            "with SIGSEGV on first use; rebuild it with: " + reinstall_command()
        )
    return ""


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "cmake-args"
    flags = sys.argv[2] if len(sys.argv) > 2 else PORTABLE_CMAKE_ARGS
    answers = {"cmake-args": PORTABLE_CMAKE_ARGS, "version": LLAMA_CPP_VERSION}
    print(answers[what] if what in answers else build_key(flags))
