#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run it (README command 2).
# Idempotent: a second run reuses the venv, pip's wheel cache (llama-cpp-python builds from source
# once) and the editor tools cached outside the checkout (CI clones afresh each time).
set -euo pipefail
cd "$(dirname "$0")/.."
export SELFDEBUG_TOOLS_DIR="${SELFDEBUG_TOOLS_DIR:-$HOME/.cache/selfdebug-tools}"

# System packages: bubblewrap (test isolation), chromium + libkrb5-dev (VS Code e2e).
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v chromium >/dev/null || need+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== apt-get install ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "== missing system packages (need root to install): ${need[*]}" >&2
  fi
fi

echo "== python environment (.venv; the llama.cpp binding is built once, see scripts/setup.sh)"
bash scripts/setup.sh dev

echo "== editor tools (code-server, Node 24, playwright-core) and the VS Code extension"
bash scripts/vscode/setup.sh
bash scripts/vscode/build.sh

echo "== lint"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy selfdebug

echo "== tests"
# Every part is installed above, so nothing may be skipped (see tests/conftest.py).
export SELFDEBUG_NO_SKIPS=1
exec .venv/bin/python -m pytest "$@"
