"""``ckp init --hooks HOST`` and ``ckp hooks install|remove HOST``: the host's configuration merged
once, every other setting kept, written only inside the project."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.project.hook_config import HOSTS
from tests.copies import copy_tree

ROOT = Path(__file__).resolve().parents[2]
MENTAT = ROOT / "samples" / "mentat" / "memory-bank"

SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
    "env": {"NODE_ENV": "development"},
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./scripts/remind.sh"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "git status"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}
        ],
    },
    "model": "opus",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    proj = tmp_path / "shop"
    copy_tree(MENTAT, proj / "memory-bank")
    monkeypatch.chdir(proj)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return proj


def _ours(settings: dict, event: str) -> list[str]:  # type: ignore[type-arg]
    return [
        h["command"]
        for g in settings["hooks"][event]
        for h in g["hooks"]
        if h["command"].startswith("ckp hook ")
    ]


def test_init_hooks_twice_leaves_one_hook_entry_and_every_other_setting_as_it_was(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(SETTINGS, indent=4) + "\n", encoding="utf-8")
    assert main(["init", str(project), "--hooks", "claude-code"]) == 0
    once = settings.read_bytes()
    assert main(["init", str(project), "--hooks", "claude-code"]) == 0
    assert settings.read_bytes() == once  # the second run changes no byte
    got = json.loads(once)
    assert _ours(got, "UserPromptSubmit") == ["ckp hook claude-code UserPromptSubmit --bank memory-bank"]
    assert _ours(got, "SessionStart") == ["ckp hook claude-code SessionStart --bank memory-bank"]
    # Every other setting and hook is as it was, in its place.
    for key in ("$schema", "permissions", "env", "model"):
        assert got[key] == SETTINGS[key]
    assert got["hooks"]["PreToolUse"] == SETTINGS["hooks"]["PreToolUse"]
    assert got["hooks"]["UserPromptSubmit"][0] == SETTINGS["hooks"]["UserPromptSubmit"][0]
    assert got["hooks"]["SessionStart"][0] == SETTINGS["hooks"]["SessionStart"][0]
    assert len(got["hooks"]["UserPromptSubmit"]) == 2 and len(got["hooks"]["SessionStart"]) == 2
    # Removing takes out ours and only ours.
    assert main(["hooks", "remove", "claude-code", str(project)]) == 0
    assert json.loads(settings.read_text(encoding="utf-8")) == SETTINGS


@pytest.mark.parametrize("host", HOSTS)
def test_install_is_idempotent_and_remove_undoes_it_for_every_host(
    host: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert main(["hooks", "install", host, str(project)]) == 0
    written = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and p not in before}
    assert written and all(b"ckp hook " + host.encode() in data for data in written.values())
    assert main(["hooks", "install", host, str(project)]) == 0
    assert {p: p.read_bytes() for p in written} == written
    assert "already holds the ckp hook" in capsys.readouterr().out
    assert main(["hooks", "remove", host, str(project)]) == 0
    left = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert all(b"ckp hook" not in data for p, data in left.items() if p not in before)
    assert {p: left[p] for p in before} == before


def test_print_shows_the_configuration_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hooks", "install", "cursor", str(project), "--print"]) == 0
    out = capsys.readouterr().out
    assert '"sessionStart"' in out and "ckp hook cursor sessionStart --bank memory-bank" in out
    assert not (project / ".cursor").exists()


def test_a_configuration_that_is_not_json_is_left_alone(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = project / ".codex" / "hooks.json"
    settings.parent.mkdir()
    settings.write_text("{ this is not json", encoding="utf-8")
    assert main(["hooks", "install", "codex", str(project)]) == 1
    assert "is not valid JSON" in capsys.readouterr().err
    assert settings.read_text(encoding="utf-8") == "{ this is not json"


def test_a_hook_file_of_the_users_own_is_kept(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hooks = project / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "UserPromptSubmit").write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    assert main(["hooks", "install", "cline", str(project)]) == 0
    assert (hooks / "UserPromptSubmit").read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"
    assert "is a hook of your own: left as it is" in capsys.readouterr().err
    assert os.access(hooks / "TaskStart", os.X_OK)


def test_never_writes_through_a_link_that_leaves_the_project(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "settings.json").write_text('{"keep": true}\n', encoding="utf-8")
    (project / ".claude").symlink_to(outside)
    assert main(["hooks", "install", "claude-code", str(project)]) == 1
    assert "leads outside the project" in capsys.readouterr().err
    assert (outside / "settings.json").read_text(encoding="utf-8") == '{"keep": true}\n'
    # A link to a folder outside, for a folder that does not exist yet, is refused too.
    (project / ".cursor").symlink_to(outside / "new")
    assert main(["hooks", "install", "cursor", str(project)]) == 1
    assert not (outside / "new").exists()


def test_the_agent_rules_mention_the_hook_once_it_is_installed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agent-rules"]) == 0
    without = capsys.readouterr().out
    assert "**Hook.**" not in without
    assert main(["init", str(project), "--hooks", "claude-code", "--agent-file", "CLAUDE.md"]) == 0
    rules = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert "**Hook.** A prompt hook (`ckp hook`, installed for Claude Code)" in rules
    assert main(["agent-rules"]) == 0
    assert "installed for Claude Code" in capsys.readouterr().out
    main(["hooks", "remove", "claude-code", str(project)])
    assert main(["agent-rules"]) == 0
    assert "**Hook.**" not in capsys.readouterr().out


def test_the_readme_shows_each_hosts_configuration_as_install_writes_it(project: Path) -> None:
    import re

    from ckp_lsp.core.project.hook_config import cline_script, merged

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("What each host gets") : readme.index("What the agent then finds")]
    blocks = re.findall(r"```(json|sh)\n(.*?)```", section, re.DOTALL)
    shown = [json.loads(text) for kind, text in blocks if kind == "json"]
    for host, path in [
        ("claude-code", ".claude/settings.json"),
        ("cursor", ".cursor/hooks.json"),
        ("copilot", ".github/hooks/ckp.json"),
    ]:
        assert json.loads(merged(host, path, None, "memory-bank")) in shown
    script = next(text for kind, text in blocks if kind == "sh")
    assert script == cline_script("UserPromptSubmit", "memory-bank")
