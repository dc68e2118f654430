"""Pulled or pushed diagnostics, chosen per client: a change in one file reaches the other open
documents whether or not the client can be told to pull again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from tests.copies import copy_tree

from .conftest import CLIENTS, SAMPLES, change_doc, codes, open_doc
from .harness import Session, wait_for

BANK = "mentat/memory-bank/patterns"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    copy_tree(SAMPLES, ws)
    return ws


def pulls_without_refresh() -> types.ClientCapabilities:
    """Neovim 0.10 and 0.11: pulls an open document's diagnostics, has no diagnostic refresh."""
    caps = client_capabilities(CLIENTS["neovim"])
    assert caps.text_document is not None and caps.text_document.diagnostic is not None
    assert not (caps.workspace and caps.workspace.diagnostics and caps.workspace.diagnostics.refresh_support)
    return caps


def pulls_with_refresh() -> types.ClientCapabilities:
    caps = pulls_without_refresh()
    assert caps.workspace is not None
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


def move_validated_on(session: Session, path: Path) -> None:
    """Open ``path`` and set its VALIDATED to a later month than its relationships carry."""
    uri = open_doc(session.client, path)
    text = path.read_text()
    new = re.sub(r"^VALIDATED:.*$", "VALIDATED:    2026-11", text, count=1, flags=re.M)
    assert new != text
    change_doc(session.client, uri, new, 2)


async def test_a_client_that_cannot_be_told_to_pull_again_gets_open_documents_findings_pushed(
    workspace: Path,
) -> None:
    async with Session.indexed(workspace, "neovim", capabilities=pulls_without_refresh()) as session:
        assert session.server_capabilities.diagnostic_provider is None  # pull is not offered
        jwt = workspace / BANK / "jwt.md"
        jwt_uri = open_doc(session.client, jwt)
        move_validated_on(session, workspace / BANK / "oauth2.md")
        await wait_for(
            lambda: "CKP050" in codes(session.client.diagnostics.get(jwt_uri, [])), "CKP050 pushed to jwt.md"
        )


async def test_a_client_that_can_be_told_to_pull_again_pulls_and_is_told_to(workspace: Path) -> None:
    async with Session.indexed(workspace, "neovim", capabilities=pulls_with_refresh()) as session:
        provider = session.server_capabilities.diagnostic_provider
        assert isinstance(provider, types.DiagnosticOptions) and provider.inter_file_dependencies
        jwt = workspace / BANK / "jwt.md"
        jwt_uri = open_doc(session.client, jwt)
        refreshed = session.client.diagnostic_refresh_count
        move_validated_on(session, workspace / BANK / "oauth2.md")
        await wait_for(
            lambda: session.client.diagnostic_refresh_count > refreshed, "workspace/diagnostic/refresh"
        )
        report = await session.request(
            session.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=jwt_uri))
            )
        )
        assert "CKP050" in codes(report.items)
        assert not session.client.diagnostics.get(jwt_uri)  # pulled, never pushed
