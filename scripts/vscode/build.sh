#!/usr/bin/env bash
# Build the VS Code extension: install its npm dependencies (when missing or stale), bundle it with
# esbuild and package client-vscode/selfdebug.vsix with vsce. Idempotent and quick when up to date.
#
#   scripts/vscode/build.sh
set -euo pipefail

CLIENT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../client-vscode" && pwd)"
cd "$CLIENT"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run -s package
ls -l "$CLIENT/selfdebug.vsix" >&2
