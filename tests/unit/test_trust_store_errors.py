"""A trust store that cannot be written: a clear message and exit 1, never a traceback."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = '[llm]\nprovider = "command"\ncommand = ["my-llm"]\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    (folder / ".git").mkdir(parents=True)
    (folder / ".ckp.toml").write_text(SETTINGS, encoding="utf-8")
    return folder


def trust(repo: Path, config_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "trust", str(repo), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CONFIG_HOME": str(config_home), "PYTHONPATH": str(ROOT)},
        timeout=120,
    )


@pytest.mark.parametrize("where", ["config-home-is-a-file", "ckp-is-a-file", "store-is-a-folder"])
def test_a_store_in_the_way_is_a_message_and_exit_1(repo: Path, tmp_path: Path, where: str) -> None:
    home = tmp_path / "config"
    if where == "config-home-is-a-file":
        home.write_text("not a folder")
    elif where == "ckp-is-a-file":
        home.mkdir()
        (home / "ckp").write_text("not a folder")
    else:
        (home / "ckp" / "trusted.json").mkdir(parents=True)
    for args in ((), ("--revoke",)):
        run = trust(repo, home, *args)
        assert "Traceback" not in run.stderr, run.stderr
        assert run.returncode == 1, run
    run = trust(repo, home)
    assert run.stderr.startswith("ckp: cannot keep the trust decision in "), run.stderr
    assert f"{repo / '.ckp.toml'} is not trusted" in run.stderr
    assert "trusted " not in run.stdout


def test_a_full_disk_is_a_message_and_exit_1(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(json, "dump", full)
    assert main(["trust", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "cannot keep the trust decision" in err and "No space left on device" in err
    assert not list((tmp_path / "config" / "ckp").iterdir())  # no temporary file left behind
