#!/usr/bin/env bash
# Build the VS Code extension: the selfdebug wheel it carries (client-vscode/bundled/, git-ignored),
# its npm dependencies (when missing or stale), the esbuild bundle, and client-vscode/selfdebug.vsix
# (vsce). The extension installs that wheel into an environment of its own on the user's word
# (client-vscode/src/serverInstall.ts), so the VSIX is all a user needs.
#
#   scripts/vscode/build.sh
#
# Environment: PYTHON, the interpreter whose pip builds the wheel (default: .venv/bin/python, else
# python3).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CLIENT="$REPO/client-vscode"
wheel="$(bash "$REPO/scripts/build_wheel.sh" "$CLIENT/bundled")"
cd "$CLIENT"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run -s package
# The wheel must be in the package (.vscodeignore lets it in): without it the default server
# (importStrategy useBundled) cannot be installed.
if ! python3 -c 'import sys, zipfile; sys.exit(sys.argv[2] not in zipfile.ZipFile(sys.argv[1]).namelist())' \
  selfdebug.vsix "extension/bundled/$(basename "$wheel")"; then
  echo "build.sh: $(basename "$wheel") is missing from selfdebug.vsix" >&2
  exit 1
fi
ls -l "$CLIENT/selfdebug.vsix" "$wheel" >&2
