"""Recompile and fix-all edit only what the editor shows: never a file it has not open (the edit
could carry no version), never a second header after a byte order mark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from ckp_lsp.core.format.text import BOM
from tests.copies import copy_tree

from .conftest import SAMPLES, action_params, apply_workspace_edit, open_doc
from .harness import Session

JWT = "mentat/memory-bank/patterns/jwt.md"
BROKEN = "broken/memory-bank/http-headers.md"  # two safe fixes


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    copy_tree(SAMPLES, ws)
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


def _shown(session: Session) -> list[types.ShowMessageParams]:
    return list(session.client.messages)


async def test_a_recompile_the_user_declines_is_logged_and_shows_no_message(workspace: Path) -> None:
    """VS Code answers ``applied: false`` with no reason when its Refactor Preview is discarded."""
    path = workspace / JWT
    declined = types.ApplyWorkspaceEditResult(applied=False)
    async with Session.indexed(workspace, answer=lambda _: declined) as session:
        uri = open_doc(session.client, path)
        result = await recompile(session, uri)
        assert result["applied"] is False and result["reason"] == "declined", result
        assert len(session.applied) == 1
        assert _shown(session) == [], _shown(session)
        assert any("declined" in m.message for m in session.client.log_messages)
        assert path.read_text() == text_of(session, uri)


async def test_a_recompile_the_editor_fails_to_apply_is_an_error_with_its_reason(workspace: Path) -> None:
    path = workspace / JWT
    failed = types.ApplyWorkspaceEditResult(applied=False, failure_reason="the file is read-only")
    async with Session.indexed(workspace, answer=lambda _: failed) as session:
        uri = open_doc(session.client, path)
        result = await recompile(session, uri)
        assert result["applied"] is False and result["reason"] == "the file is read-only", result
        shown = _shown(session)
        assert [m.type for m in shown] == [types.MessageType.Error], shown
        assert "the file is read-only" in shown[0].message and "patterns/jwt.md" in shown[0].message


async def test_a_recompile_refused_for_a_document_edited_meanwhile_says_to_run_it_again(
    workspace: Path,
) -> None:
    """VS Code's client also answers a version mismatch without a reason; the version tells."""
    path = workspace / JWT
    sessions: list[Session] = []

    def edit_then_refuse(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client = sessions[0].client
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=2),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(text=path.read_text() + "\nmore\n")
                ],
            )
        )
        return types.ApplyWorkspaceEditResult(applied=False)

    async with Session.indexed(workspace, answer=edit_then_refuse) as session:
        sessions.append(session)
        uri = open_doc(session.client, path)
        result = await recompile(session, uri)
        assert result["applied"] is False and result["reason"] == "document changed", result
        shown = _shown(session)
        assert [m.type for m in shown] == [types.MessageType.Warning], shown
        assert "Recompile again" in shown[0].message
