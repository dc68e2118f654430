#!/usr/bin/env bash
# Install code-server 4.100.3 (VS Code 1.100.3) plus what the VS Code editor test needs:
# Debian's chromium, and playwright-core (npm, from tests/editors/vscode/package-lock.json).
#
# Usage: install-code-server.sh [CACHE_DIR]
#   CACHE_DIR defaults to $CKP_EDITOR_CACHE or ~/.cache/ckp-lsp/editors.
#   Prints the path of the code-server executable on its last line of stdout.
#
# Newer code-server releases need Node 22+, this project tests with Node 20, hence the pin.
# The fixes below each address an install error seen without them (see EDITORS.md):
#   1. pin code-server@4.100.3
#   2. npm_config_unsafe_perm=true (postinstall scripts run as root)
#   3. libkrb5-dev pkg-config build-essential ripgrep from apt (kerberos builds from source)
#   4. pre-seed @vscode/ripgrep's download cache with Debian's rg (no GitHub access)
#   5. npm_config_yes=true (node-pty's postinstall runs `npx node-gyp`)
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
RIPGREP_TAG=v13.0.0-10
RIPGREP_CACHE_VERSION=1.15.11
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${1:-${CKP_EDITOR_CACHE:-$HOME/.cache/ckp-lsp/editors}}"
PREFIX="$CACHE/code-server-$CODE_SERVER_VERSION"
BIN="$PREFIX/node_modules/.bin/code-server"

log() { echo "[install-code-server] $*" >&2; }

# `code-server --version` writes a config file under XDG_CONFIG_HOME: keep that out of ~/.config.
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
cs_version() { XDG_CONFIG_HOME="$SCRATCH" XDG_DATA_HOME="$SCRATCH" "$BIN" --version 2>/dev/null; }

# --- apt packages (fix 3, plus chromium for the browser) -------------------------------
need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || need_apt+=(build-essential)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ "${#need_apt[@]}" -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || { log "need root or sudo to apt-get install ${need_apt[*]}"; exit 1; }
        SUDO="sudo"
    fi
    log "apt-get install ${need_apt[*]}"
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >&2
fi

# --- playwright-core (driver dependency, pinned by package-lock.json) ----------------
if [ ! -d "$HERE/node_modules/playwright-core" ]; then
    log "npm ci in $HERE (playwright-core)"
    (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

# --- code-server ------------------------------------------------------------------------
if [ -x "$BIN" ] && cs_version | grep -q "^$CODE_SERVER_VERSION"; then
    log "code-server $CODE_SERVER_VERSION already installed in $PREFIX"
    echo "$BIN"
    exit 0
fi

log "installing code-server@$CODE_SERVER_VERSION into $PREFIX (about a minute)"
mkdir -p "$PREFIX"

# fix 4: @vscode/ripgrep downloads rg from GitHub in its postinstall; give it Debian's rg.
TMP_ROOT="${TMPDIR:-/tmp}"
RG_CACHE="$TMP_ROOT/vscode-ripgrep-cache-$RIPGREP_CACHE_VERSION"
RG_TARBALL="$RG_CACHE/ripgrep-$RIPGREP_TAG-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$RG_TARBALL" ]; then
    mkdir -p "$RG_CACHE"
    staging="$(mktemp -d)"
    cp "$(command -v rg)" "$staging/rg"
    tar -C "$staging" -czf "$RG_TARBALL" rg
    rm -rf "$staging"
fi

[ -f "$PREFIX/package.json" ] || echo '{"name":"ckp-code-server","private":true}' > "$PREFIX/package.json"
(
    cd "$PREFIX"
    export npm_config_unsafe_perm=true   # fix 2
    export npm_config_yes=true           # fix 5
    npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >&2  # fix 1
)

cs_version >&2
echo "$BIN"
