"""``ckp init --agent-file`` writes no rules through a link that leads out of the project, and
keeps the mode of the file it rewrites."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_init_writes_no_rules_through_an_agent_file_that_links_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True)
    config = ssh / "config"
    config.write_text("Host *\n  IdentitiesOnly yes\n")
    config.chmod(0o600)
    project = git_repo(tmp_path / "clone")
    (project / "CLAUDE.md").symlink_to(config)
    (project / "GEMINI.md").symlink_to(ssh / "not-yet")
    monkeypatch.chdir(project)
    for name in ("CLAUDE.md", "GEMINI.md"):
        assert main(["init", "--agent-file", name]) == 1
        err = capsys.readouterr().err
        assert "leads outside" in err and "Traceback" not in err
    assert config.read_text() == "Host *\n  IdentitiesOnly yes\n"
    assert config.stat().st_mode & 0o777 == 0o600
    assert not (ssh / "not-yet").exists()
    assert (project / "memory-bank").is_dir()  # the bank itself was made


def test_init_keeps_the_mode_of_an_agent_file_it_rewrites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = git_repo(tmp_path / "clone")
    (project / "CLAUDE.md").write_text("# Mine\n")
    (project / "CLAUDE.md").chmod(0o640)
    (project / "AGENT.md").symlink_to("docs/agent.md")
    (project / "docs").mkdir()
    (project / "docs" / "agent.md").write_text("# Agent\n")
    (project / "docs" / "agent.md").chmod(0o604)
    monkeypatch.chdir(project)
    assert main(["init", "--agent-file", "CLAUDE.md"]) == 0
    assert main(["init", "--agent-file", "AGENT.md"]) == 0
    assert (project / "CLAUDE.md").stat().st_mode & 0o7777 == 0o640
    assert (project / "docs" / "agent.md").stat().st_mode & 0o7777 == 0o604
    assert "ckp:rules:start" in (project / "docs" / "agent.md").read_text()
    assert (project / "AGENT.md").is_symlink()
