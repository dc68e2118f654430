"""Over stdio: a committed ``memory-bank -> ..`` takes neither the language server nor ``ckp mcp``
outside the repository. A workspace folder or a served folder reached through it is refused with
a message, and a document opened through it is checked in no bank."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from .conftest import open_doc
from .harness import Session

ROOT = Path(__file__).resolve().parents[2]
NOTES = "# Notes\n\nThe sibling's own notes.\n"


def clone_beside_a_sibling(tmp_path: Path) -> Path:
    """``parent/clone`` (a repository) whose ``memory-bank`` links to ``..``, beside ``sibling``,
    a repository with a bank of its own."""
    parent = tmp_path / "parent"
    for name in ("sibling", "clone"):
        (parent / name).mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(parent / name)], check=True)
    (parent / "sibling" / "memory-bank").mkdir()
    (parent / "sibling" / "memory-bank" / "notes.md").write_text(NOTES)
    (parent / "clone" / "memory-bank").symlink_to("..")
    return parent / "clone"


async def test_a_workspace_folder_linked_out_of_its_project_is_refused(tmp_path: Path) -> None:
    clone = clone_beside_a_sibling(tmp_path)
    async with Session.indexed(clone / "memory-bank") as session:
        assert any("leads outside its project" in m for m in session.logs()), session.logs()
        published = session.client.diagnostics  # type: ignore[attr-defined]
        assert not [u for u, d in published.items() if d], published
        assert not session.failures()
    assert not (tmp_path / "parent" / ".ckp-cache").exists()
    assert not (tmp_path / "parent" / "sibling" / "memory-bank" / ".ckp-cache").exists()


async def test_a_document_opened_through_the_link_is_checked_in_no_bank(tmp_path: Path) -> None:
    clone = clone_beside_a_sibling(tmp_path)
    async with Session.indexed(clone) as session:
        uri = open_doc(session.client, clone / "memory-bank" / "sibling" / "memory-bank" / "notes.md")
        await asyncio.sleep(1.5)  # what would be published is published well within this
        published = session.client.diagnostics  # type: ignore[attr-defined]
        assert not published.get(uri) and not [u for u, d in published.items() if d], published
        assert not session.failures()


def test_ckp_mcp_refuses_a_folder_linked_out_of_its_project(tmp_path: Path) -> None:
    clone = clone_beside_a_sibling(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    run = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "mcp", "memory-bank"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert run.returncode == 2
    assert "leads outside its project" in run.stderr and "Traceback" not in run.stderr
