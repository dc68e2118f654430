"""The agent-host setup snippets (docs/agents): each has the shape its host reads, each names a
valid ``ckp mcp`` command line, and the README shows them, and the sample bench, as they are."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.cli.main import main, parser

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "docs" / "agents"
README = (ROOT / "README.md").read_text(encoding="utf-8")
TOOLS = {"ckp_route", "ckp_read", "ckp_check", "ckp_compile", "ckp_index"}


def snippet(name: str) -> str:
    return (AGENTS / name).read_text(encoding="utf-8")


def server(config: dict[str, Any], key: str) -> dict[str, Any]:
    """The ``ckp`` entry under the key the host reads its servers from."""
    assert set(config) == {key}, f"the host reads its servers from '{key}' only"
    assert isinstance(config[key], dict) and set(config[key]) == {"ckp"}
    entry = config[key]["ckp"]
    assert isinstance(entry["command"], str) and entry["command"] == "ckp"
    assert isinstance(entry["args"], list) and all(isinstance(a, str) for a in entry["args"])
    return entry


def assert_ckp_mcp(argv: list[str]) -> None:
    """``argv`` (after ``ckp``) is a valid ``ckp mcp`` command line."""
    args = parser(argv).parse_args(argv)
    assert args.command == "mcp" and args.run.__module__ == "ckp_lsp.cli.mcp_cmd"


def test_cursor_reads_mcp_servers_with_a_command_and_args() -> None:
    entry = server(json.loads(snippet("cursor.mcp.json")), "mcpServers")
    assert set(entry) == {"command", "args"}
    assert entry["args"] == ["mcp", "${workspaceFolder}"]
    assert_ckp_mcp(entry["args"])


def test_vs_code_reads_servers_with_a_stdio_type() -> None:
    entry = server(json.loads(snippet("vscode.mcp.json")), "servers")
    assert entry["type"] == "stdio" and set(entry) == {"type", "command", "args"}
    assert_ckp_mcp(entry["args"])


def test_cline_reads_mcp_servers_with_disabled_and_auto_approved_tools() -> None:
    entry = server(json.loads(snippet("cline_mcp_settings.json")), "mcpServers")
    assert entry["disabled"] is False
    # Only reading tools are approved without asking, and each is a tool ckp mcp has.
    assert set(entry["autoApprove"]) <= TOOLS - {"ckp_compile", "ckp_index"}
    assert Path(entry["args"][1]).is_absolute()  # a global settings file: no project to be relative to
    assert_ckp_mcp(entry["args"])


def test_claude_code_adds_a_stdio_server_named_ckp() -> None:
    lines = [line for line in snippet("claude-code.sh").splitlines() if line and not line.startswith("#")]
    assert len(lines) == 1
    words = shlex.split(lines[0])
    assert words[:3] == ["claude", "mcp", "add"]
    before, command = words[: words.index("--")], words[words.index("--") + 1 :]
    assert before[3:] == ["ckp"]  # the server's name, no options that would need a URL
    assert command[0] == "ckp"
    assert_ckp_mcp(command[1:])


@pytest.mark.parametrize(
    ("name", "fence"),
    [
        ("claude-code.sh", "sh"),
        ("cursor.mcp.json", "json"),
        ("vscode.mcp.json", "json"),
        ("cline_mcp_settings.json", "json"),
    ],
)
def test_the_readme_shows_each_snippet_as_it_is(name: str, fence: str) -> None:
    assert f"```{fence}\n{snippet(name)}```" in README


def test_the_readme_shows_the_three_columns_ckp_bench_prints_for_the_sample(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["bench", "samples/mentat/memory-bank", "--queries", "samples/mentat/queries.yaml"]) == 0
    out = capsys.readouterr().out
    block = README.split(
        "$ ckp bench samples/mentat/memory-bank --queries samples/mentat/queries.yaml\n…\n", 1
    )[1]
    shown = block.split("```", 1)[0]
    assert shown.strip() and out.endswith(shown)
    assert re.search(r"\| 11 \| [\d,]+ \| [\d,]+ \(\d+% less\) \| [\d,]+ \(\d+% less\) \|", shown)
