"""The settings table of vscode-client/README.md is package.json's: made by
vscode-client/scripts/settings_table.py, and this test fails when the two differ."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "vscode-client"
SCRIPT = CLIENT / "scripts" / "settings_table.py"


def load():  # a script, not a package: loaded by path
    spec = importlib.util.spec_from_file_location("settings_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest() -> dict:
    return json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))


def test_the_readme_lists_every_setting_of_package_json_as_the_script_makes_it() -> None:
    readme = (CLIENT / "README.md").read_text(encoding="utf-8")
    assert load().with_table(readme, manifest()) == readme, (
        "run python3 vscode-client/scripts/settings_table.py"
    )
    for name in manifest()["contributes"]["configuration"]["properties"]:
        assert f"| `{name}` |" in readme, name


def test_every_value_of_a_setting_with_fixed_values_is_in_its_row() -> None:
    readme = (CLIENT / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `ckp.index.format` |"))
    for value in ("table", "blocks", "compact"):
        assert f"`{value}`" in row, row


def test_check_fails_when_package_json_gains_a_setting(tmp_path: Path) -> None:
    table = load()
    data = manifest()
    readme = (CLIENT / "README.md").read_text(encoding="utf-8")
    data["contributes"]["configuration"]["properties"]["ckp.new"] = {
        "type": "string",
        "default": "x",
        "description": "New.",
    }
    assert table.with_table(readme, data) != readme
    assert "| `ckp.new` | `x` | New. |" in table.with_table(readme, data)
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr  # the committed README is current
