"""Hover as an editor asks for it: entries, stale entries, the concept, field names, keywords."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import open_doc, pos, wait_indexed


async def hover(client: LanguageClient, path: Path, needle: str, offset: int = 1) -> types.Hover:
    """Hover inside the first ``needle`` of ``path`` (opened as it is on disk)."""
    await wait_indexed(client)
    uri = open_doc(client, path)
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=pos(path, needle, offset)
        )
    )
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    return result


def covers(result: types.Hover, path: Path, needle: str) -> bool:
    start = pos(path, needle)
    want = types.Range(
        start=start, end=types.Position(line=start.line, character=start.character + len(needle))
    )
    return result.range == want


async def test_hover_on_an_entry_shows_the_tldr_and_the_tier(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/auth.md"
    result = await hover(client, path, "jwt:2026-10")
    text = result.contents.value  # type: ignore[union-attr]
    assert "How the projects issue, sign, verify and rotate JSON Web Tokens" in text
    assert "always loaded together" in text
    assert "(jwt.md)" in text
    assert covers(result, path, "jwt:2026-10")


async def test_hover_on_a_stale_entry_shows_both_dates(client: LanguageClient):
    path = client.workspace_path / "broken/memory-bank/jwt.md"
    result = await hover(client, path, "oauth2:2026-03")
    text = result.contents.value  # type: ignore[union-attr]
    assert "Stale" in text and "2026-09" in text and "2026-03" in text


async def test_hover_on_concept_shows_backlink_counts(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/jwt.md"
    result = await hover(client, path, "jwt")
    text = result.contents.value  # type: ignore[union-attr]
    assert "related by 2 files as HIGH and 0 as MID" in text
    assert "auth (" in text and "oauth2 (" in text


async def test_hover_on_a_field_name_explains_it(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/auth.md"
    result = await hover(client, path, "SIMILAR_HIGH")
    text = result.contents.value  # type: ignore[union-attr]
    assert "**SIMILAR_HIGH**" in text and "at most 3" in text
    assert covers(result, path, "SIMILAR_HIGH")


async def test_hover_on_a_keyword_lists_other_claimers(client: LanguageClient):
    path = client.workspace_path / "broken/memory-bank/jwt.md"
    result = await hover(client, path, "security")
    text = result.contents.value  # type: ignore[union-attr]
    assert "Also claimed by 3 other concepts" in text
    assert all(c in text for c in ("http-headers (", "oauth2 (", "rate-limiting ("))
    assert covers(result, path, "security")


async def test_hover_on_an_index_row_shows_its_file_and_tldr(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/_index.md"
    result = await hover(client, path, "| oauth2 |", offset=5)
    text = result.contents.value  # type: ignore[union-attr]
    assert text.startswith("**oauth2** — index row")
    assert "[patterns/oauth2.md](patterns/oauth2.md)" in text and "PKCE" in text


async def test_hover_on_a_date_says_what_it_means_and_whether_it_is_stale(client: LanguageClient):
    path = client.workspace_path / "broken/memory-bank/jwt.md"
    result = await hover(client, path, "2026-03")
    text = result.contents.value  # type: ignore[union-attr]
    assert "was last validated" in text and "**Stale**" in text and "2026-09" in text
    assert covers(result, path, "2026-03")
    validated = await hover(client, client.workspace_path / "broken/memory-bank/oauth2.md", "2026-09")
    assert "relates to `oauth2` with an earlier date" in validated.contents.value  # type: ignore[union-attr]
