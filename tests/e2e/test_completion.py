"""Completion as an editor asks for it: concepts in SIMILAR fields, field names, values, months."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from ckp_lsp.faces.clock import this_month

from .conftest import open_doc, wait_indexed


async def complete(
    client: LanguageClient, path: Path, text: str, needle: str, trigger: str | None = None
) -> tuple[list[str], list[types.CompletionItem]]:
    """Open ``path`` with ``text`` and complete at the end of ``needle``; the lines and the items."""
    await wait_indexed(client)
    uri = open_doc(client, path, text)
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if needle in t)
    position = types.Position(line=line, character=lines[line].index(needle) + len(needle))
    context = (
        types.CompletionContext(
            trigger_kind=types.CompletionTriggerKind.TriggerCharacter, trigger_character=trigger
        )
        if trigger
        else types.CompletionContext(trigger_kind=types.CompletionTriggerKind.Invoked)
    )
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position, context=context
        )
    )
    assert result is not None
    items = result.items if isinstance(result, types.CompletionList) else result
    return lines, items


def accept(lines: list[str], item: types.CompletionItem) -> str:
    """The line as it reads after accepting ``item`` (ASCII lines)."""
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit)
    assert edit.range.start.line == edit.range.end.line
    line = lines[edit.range.start.line]
    return line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]


async def test_similar_field_offers_a_misspelt_concept_and_inserts_it_dated(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/auth.md"
    text = path.read_text().replace("frontend:2026-11", "frontend:2026-11, geogrphy")
    lines, items = await complete(client, path, text, "geogrphy")
    assert items[0].label == "geography"
    assert (
        accept(lines, items[0]) == f"SIMILAR_MID:  oauth2:2026-10, frontend:2026-11, geography:{this_month()}"
    )
    if client.flavour == "vscode":
        # It declares that it resolves documentation: the TLDR comes when the item is shown.
        assert items[0].documentation is None
        doc = (await client.completion_item_resolve_async(items[0])).documentation
    else:
        doc = items[0].documentation
    assert isinstance(doc, types.MarkupContent) and doc.kind == types.MarkupKind.PlainText
    assert doc.value.startswith("Italian administrative geography")


async def test_completion_leaves_out_the_file_itself_and_listed_concepts(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/auth.md"
    text = path.read_text().replace("frontend:2026-11", "frontend:2026-11, ")
    _, items = await complete(client, path, text, "frontend:2026-11, ", trigger=" ")
    labels = {i.label for i in items}
    assert labels == {
        "civis",
        "database",
        "geography",
        "mentat",
        "mentat-istat",
        "prescient",
        "travelguidehub",
    }


async def test_front_matter_list_item_offers_concepts(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/domain/geography.md"
    text = path.read_text().replace("  - frontend:2026-10\n", "  - frontend:2026-10\n  - civ\n")
    lines, items = await complete(client, path, text, "  - civ")
    assert items[0].label == "civis"
    assert accept(lines, items[0]) == f"  - civis:{this_month()}"
    assert "frontend" not in {i.label for i in items}


async def test_field_names_not_yet_present_are_offered(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/auth.md"
    text = path.read_text().replace("CONFIDENCE:   high\n", "CONF\n")
    lines, items = await complete(client, path, text, "CONF")
    assert [i.label for i in items] == ["CONFIDENCE"]
    assert accept(lines, items[0]) == "CONFIDENCE: "


async def test_confidence_offers_high_medium_low(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/auth.md"
    text = path.read_text().replace("CONFIDENCE:   high", "CONFIDENCE:   ")
    lines, items = await complete(client, path, text, "CONFIDENCE:   ", trigger=" ")
    assert [i.label for i in items] == ["high", "medium", "low"]
    assert accept(lines, items[2]) == "CONFIDENCE:   low"


async def test_current_month_after_a_concept_and_its_colon(client: LanguageClient):
    path = client.workspace_path / "mentat/memory-bank/patterns/auth.md"
    text = path.read_text().replace("SIMILAR_HIGH: jwt:2026-10", "SIMILAR_HIGH: jwt:")
    lines, items = await complete(client, path, text, "SIMILAR_HIGH: jwt:", trigger=":")
    assert [i.label for i in items] == [this_month()]
    assert accept(lines, items[0]) == f"SIMILAR_HIGH: jwt:{this_month()}"
