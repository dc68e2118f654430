"""A client whose hover also shows the diagnostics and a link's tooltip (VS Code says so in its
``initializationOptions``) gets a hover that does not repeat them; any other client (Neovim)
keeps the whole hover."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.copies import copy_tree

from .conftest import SAMPLES, open_doc, pos
from .harness import Session

JWT = "broken/memory-bank/jwt.md"
VSCODE_SAYS = {
    "ckp": {"staleness": "validated"},
    "editor": {"hoverShowsDiagnostics": True, "hoverShowsLinkTooltips": True},
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    copy_tree(SAMPLES, ws)
    return ws


async def hover_and_links(session: Session, needle: str) -> tuple[str, list[types.DocumentLink]]:
    path = session.workspace / JWT
    uri = open_doc(session.client, path)
    doc = types.TextDocumentIdentifier(uri=uri)
    found = await session.request(
        session.client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=pos(path, needle, 1))
        )
    )
    links = await session.request(
        session.client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc))
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value, links or []


@pytest.mark.parametrize("needle", ["oauth2:2026-03", "2026-03"])
async def test_a_hover_that_shows_the_diagnostic_does_not_repeat_the_stale_warning(
    workspace: Path, needle: str
) -> None:
    async with Session.indexed(workspace, "vscode", initialization_options=VSCODE_SAYS) as session:
        text, links = await hover_and_links(session, needle)
        assert "Stale" not in text and "after this" not in text, text  # CKP050's message says it
        assert "re-validate the relationship" in text or "How OAuth2" in text or "oauth2" in text, text
        if needle.startswith("oauth2"):
            assert "oauth2.md" in text  # the link and the TLDR stay
        # the link's tooltip would repeat the hover's TLDR right below it
        assert links and all(link.tooltip is None for link in links), links


async def test_another_client_keeps_the_stale_warning_and_the_tooltips(workspace: Path) -> None:
    async with Session.indexed(
        workspace, "vscode", initialization_options={"ckp": {"staleness": "validated"}}
    ) as session:
        text, links = await hover_and_links(session, "oauth2:2026-03")
        assert "Stale" in text and "2026-09" in text, text
        assert any(link.tooltip for link in links), links


async def test_a_stale_entry_whose_finding_is_off_keeps_its_warning(workspace: Path) -> None:
    # CKP050 turned off: no diagnostic shows it, so the hover says it
    options = {
        "ckp": {"staleness": "validated", "diagnostics": {"CKP050": "off"}},
        "editor": VSCODE_SAYS["editor"],
    }
    async with Session.indexed(workspace, "vscode", initialization_options=options) as session:
        text, _ = await hover_and_links(session, "oauth2:2026-03")
        assert "Stale" in text, text
