"""Recompile and fix-all edit only what the editor shows: never a file it has not open (the edit
could carry no version), never a second header after a byte order mark."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from ckp_lsp.core.text import BOM

from .conftest import SAMPLES, action_params, apply_workspace_edit, open_doc
from .harness import Session

JWT = "mentat/memory-bank/patterns/jwt.md"
BROKEN = "broken/memory-bank/http-headers.md"  # two safe fixes


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    shutil.copytree(SAMPLES, ws)
    return ws


async def recompile(session: Session, uri: str) -> dict[str, Any]:
    return await session.request(
        session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="ckp.recompile", arguments=[uri])
        )
    )


def text_of(session: Session, uri: str) -> str:
    return session.client.texts[uri][1]  # type: ignore[attr-defined]


async def test_recompile_of_a_file_the_editor_has_not_open_is_refused_and_nothing_is_edited(
    workspace: Path,
) -> None:
    path = workspace / JWT
    async with Session.indexed(workspace) as session:
        before = path.read_bytes()
        result = await recompile(session, path.as_uri())
        assert result["applied"] is False and result["reason"] == "not open", result
        assert not session.applied
        assert path.read_bytes() == before
        assert any("open" in m and "ckp compile" in m for m in session.logs())


async def test_recompile_of_a_document_starting_with_a_bom_keeps_one_header_and_the_bom(
    workspace: Path,
) -> None:
    path = workspace / JWT
    async with Session.indexed(workspace) as session:
        uri = open_doc(session.client, path, BOM + path.read_text())
        result = await recompile(session, uri)
        assert result["applied"] is True, result
        text = text_of(session, uri)
        assert text.startswith(BOM + "CONCEPT:")
        assert text.count("CONCEPT:") == 1 and text.count("VALIDATED:") == 1, text[:600]
        assert text.endswith(path.read_text().split("\n\n", 1)[1])  # the body, byte for byte


async def test_fix_all_fixes_a_document_starting_with_a_bom(workspace: Path) -> None:
    path = workspace / BROKEN
    async with Session.indexed(workspace) as session:
        uri = open_doc(session.client, path, BOM + path.read_text())
        params = action_params(uri, only=["source.fixAll.ckp"])
        actions = await session.request(session.client.text_document_code_action_async(params))
        fixes = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.edit is not None]
        assert len(fixes) == 1, actions
        assert fixes[0].edit is not None
        apply_workspace_edit(session.client, fixes[0].edit)
        text = text_of(session, uri)
        assert text.startswith(BOM + "CONCEPT:") and text.count("CONCEPT:") == 1, text[:600]
        assert text != BOM + path.read_text()
