#!/usr/bin/env bash
# Build the selfdebug wheel (no dependencies) into OUTDIR, from a clean copy of the files git knows.
#
#   bash scripts/build_wheel.sh OUTDIR      # prints the wheel's path
#
# Why a copy: setuptools builds through build/, and a stale build/lib in the checkout can put a
# deleted module into the wheel. The copy holds what `git ls-files` lists (untracked files that are
# not ignored too, so that a new module is in a local build before it is committed), symlinks kept
# (selfdebug/server -> ../server). Outside a git checkout the build inputs are copied as they are.
# The wheel is pure Python (py3-none-any): its base install runs the search, the tests and a remote
# model; the local model is the `llama` extra.
# Environment: PYTHON, the interpreter whose pip builds it (default: .venv/bin/python, else python3).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: build_wheel.sh OUTDIR}"
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  [ -x "$REPO/.venv/bin/python" ] && PYTHON="$REPO/.venv/bin/python"
fi
inputs=(pyproject.toml README.md selfdebug server instrument prompts client-neovim)

copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$REPO" ls-files -z --cached --others --exclude-standard -- "${inputs[@]}" \
    | (cd "$REPO" && while IFS= read -r -d '' f; do
         if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi  # not deleted meanwhile
       done | tar --null --no-recursion -T - -cf -) \
    | tar -xf - -C "$copy"
else
  (cd "$REPO" && tar --exclude=__pycache__ -cf - "${inputs[@]}") | tar -xf - -C "$copy"
fi

mkdir -p "$out"
rm -f "$out"/selfdebug-*.whl
"$PYTHON" -m pip wheel -q --no-deps --disable-pip-version-check -w "$out" "$copy" >&2
ls "$out"/selfdebug-*-py3-none-any.whl
