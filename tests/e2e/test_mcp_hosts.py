"""Each agent host's setup snippet (docs/agents) starts a working ``ckp mcp``: its command line, with
the host's variable filled in, is started by the MCP SDK's stdio client as the host would."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.copies import copy_tree

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "docs" / "agents"


def command_line(name: str, project: Path) -> list[str]:
    """The command the host runs for snippet ``name``, its project variable filled in."""
    text = (AGENTS / name).read_text(encoding="utf-8")
    if name.endswith(".sh"):
        line = next(x for x in text.splitlines() if x and not x.startswith("#"))
        words = shlex.split(line.replace('"$PWD"', shlex.quote(str(project))))
        argv = words[words.index("--") + 1 :]
    else:
        config = json.loads(text)
        entry = (config.get("mcpServers") or config["servers"])["ckp"]
        argv = [entry["command"], *entry["args"]]
    return [
        a.replace("${workspaceFolder}", str(project)).replace("/path/to/your/project", str(project))
        for a in argv
    ]


@pytest.mark.parametrize(
    "name", ["claude-code.sh", "cursor.mcp.json", "vscode.mcp.json", "cline_mcp_settings.json"]
)
@pytest.mark.parametrize("read_only", [False, True])
async def test_the_snippet_starts_ckp_mcp_on_the_project(name: str, read_only: bool, tmp_path: Path) -> None:
    project = tmp_path / "project"
    copy_tree(ROOT / "samples" / "mentat", project)
    argv = command_line(name, project)
    assert argv[:2] == ["ckp", "mcp"] and argv[2] == str(project)
    if read_only:
        argv.insert(2, "--read-only")  # as the README says: after "mcp"
    # `ckp` of this checkout (the installed script may belong to another copy)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ckp_lsp.cli.main", *argv[1:]],
        env={"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)},
        cwd=str(tmp_path),  # a host may start it anywhere: the path in the snippet names the project
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        routed = await session.call_tool(
            "ckp_route", {"query": "How do the JWT guards protect NestJS routes?"}
        )
    expected = {"ckp_route", "ckp_read", "ckp_check"} | (set() if read_only else {"ckp_compile", "ckp_index"})
    assert names == expected
    assert not routed.is_error and routed.structured_content is not None
    assert "jwt" in [e["concept"] for e in routed.structured_content["loaded"]]
