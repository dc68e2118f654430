"""Trust in the server: Recompile runs no program a cloned repository's ``.ckp.toml`` names until the
user trusts the folder (``ckp trust``), and says so once in a window and in the log."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from lsprotocol import types

from tests.copies import copy_tree

from .conftest import SAMPLES, open_doc
from .harness import Session

JWT = "memory-bank/patterns/jwt.md"
ROOT = Path(__file__).resolve().parents[2]


async def recompile(session: Session, uri: str) -> dict[str, object]:
    return await session.request(
        session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="ckp.recompile", arguments=[uri])
        )
    )


async def test_recompile_runs_a_repository_command_only_once_the_folder_is_trusted(tmp_path: Path) -> None:
    ws = tmp_path / "cloned"
    copy_tree(SAMPLES / "mentat", ws)
    (ws / ".git").mkdir()
    pwned = tmp_path / "PWNED"
    command = f"sh -c {shlex.quote(f'touch {pwned}')}"
    (ws / ".ckp.toml").write_text(f'[llm]\nprovider = "command"\ncommand = {json.dumps(command)}\n')

    async with Session.indexed(ws) as session:
        uri = open_doc(session.client, ws / JWT)
        await recompile(session, uri)
        assert not pwned.exists()
        shown = [m.message for m in session.client.messages if "ignored" in m.message]
        assert len(shown) == 1 and f"ckp trust {ws}" in shown[0] and "llm.command" in shown[0]
        await recompile(session, uri)
        assert len([m for m in session.client.messages if "ignored" in m.message]) == 1  # shown once
        logged = [m.message for m in session.client.log_messages if "ignored llm.provider" in m.message]
        assert len(logged) == 2  # logged each time

        trusted = subprocess.run(
            [sys.executable, "-m", "ckp_lsp.cli.main", "trust", str(ws)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
        )
        assert trusted.returncode == 0, trusted.stderr
        await recompile(session, uri)  # the same session: trust counts at once
        assert pwned.exists()
    assert not session.failures()
