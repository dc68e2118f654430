"""The extension's manifest and settings code, without VS Code: the Workspace Trust contract
(package.json) and the node unit tests of the code that chooses what is sent to the server, the
interpreter and what is said about the build (vscode-client/test/*.test.ts, `npm test`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[3] / "vscode-client"
MANIFEST = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
#: settings that choose a program, an interpreter, a provider or an endpoint (where a key goes)
CHOOSE_WHAT_RUNS = {
    "ckp.server.path",
    "ckp.server.python",
    "ckp.llm.provider",
    "ckp.llm.command",
    "ckp.llm.baseUrl",
}


def test_untrusted_workspaces_are_supported_in_a_limited_way() -> None:
    trust = MANIFEST["capabilities"]["untrustedWorkspaces"]
    assert trust["supported"] == "limited"
    assert trust["description"]
    restricted = set(trust["restrictedConfigurations"])
    declared = set(MANIFEST["contributes"]["configuration"]["properties"])
    assert restricted <= declared, f"not settings of the extension: {restricted - declared}"
    assert restricted >= CHOOSE_WHAT_RUNS, f"not restricted: {CHOOSE_WHAT_RUNS - restricted}"


def test_every_setting_naming_a_program_or_endpoint_is_restricted() -> None:
    restricted = set(MANIFEST["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"])
    for name in MANIFEST["contributes"]["configuration"]["properties"]:
        leaf = name.rsplit(".", 1)[-1].lower()
        if any(word in leaf for word in ("command", "url", "path", "python", "provider", "endpoint")):
            assert name in restricted, f"{name} chooses what runs or where data goes: restrict it"


def test_the_extension_takes_the_restricted_list_from_its_manifest() -> None:
    # one source of truth: extension.ts hands package.json's list to the settings code
    source = (CLIENT / "src" / "extension.ts").read_text(encoding="utf-8")
    assert "untrustedWorkspaces?.restrictedConfigurations" in source


def test_node_unit_tests() -> None:
    if not shutil.which("node") or not (CLIENT / "node_modules" / "esbuild").exists():
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail("node and vscode-client/node_modules (npm ci) are needed", pytrace=False)
        pytest.skip("node or vscode-client/node_modules missing (cd vscode-client && npm ci)")
    proc = subprocess.run(
        ["npm", "test", "--silent"], cwd=CLIENT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    counts = dict(
        line[2:].split() for line in proc.stdout.splitlines() if line.startswith(("# pass", "# fail"))
    )
    assert counts.get("fail") == "0" and int(counts.get("pass", "0")) >= 10, proc.stdout[-1500:]
