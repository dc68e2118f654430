"""``ckp mcp`` without the SDK says exactly what to install."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ckp_lsp.cli import mcp_cmd
from ckp_lsp.cli.main import main


def test_without_the_sdk_it_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    assert main(["mcp", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "pip install 'ckp-lsp[mcp]'" in err and err.strip() == f"ckp: {mcp_cmd.MISSING_SDK}"


def test_a_folder_that_does_not_exist_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["mcp", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_the_extra_and_the_test_extra_pin_the_sdk_minor() -> None:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert extras["mcp"] == ["mcp>=2.3,<2.4"] and "mcp>=2.3,<2.4" in extras["test"]
    assert not any(d.startswith("mcp") for d in project["dependencies"])
