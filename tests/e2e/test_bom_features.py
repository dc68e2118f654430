"""Positions on line 0 of documents whose editor text starts with a byte order mark (U+FEFF): the
editor counts the BOM as one UTF-16 unit there, both in the positions it sends (hover, completion,
definition, references, rename) and in the ranges it reads back (hovers, links, completion edits,
symbols, lenses, locations and rename edits, also those in another open BOM document)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from ckp_lsp.core.format.text import BOM

from .conftest import doc_id, open_doc
from .harness import Session

#: a relationship entry on line 0 (bare header)
AUTH = (
    "SIMILAR_HIGH: billing:2025-05\n"
    "CONCEPT: auth\n"
    "TLDR: How the service checks who is calling.\n"
    "ANSWERS_WHEN: login, tokens\n"
    "VALIDATED: 2025-05\n"
    "\n"
    "Body.\n"
)
#: CONCEPT on line 0
BILLING = (
    "CONCEPT: billing\nTLDR: Invoices and payments.\nANSWERS_WHEN: invoice\nVALIDATED: 2025-05\n\nBody.\n"
)
#: a bare header whose first line is a relationship field still without a value
DRAFT = "SIMILAR_HIGH: \nCONCEPT: draft\nTLDR: A draft.\nANSWERS_WHEN: draft\nVALIDATED: 2025-05\n\nBody.\n"

ENTRY = len(BOM + "SIMILAR_HIGH: ")  # where "billing" starts on line 0 of AUTH, in the editor's text
DECLARED = len(BOM + "CONCEPT: ")  # where "billing" starts on line 0 of BILLING, in the editor's text


def rng(line: int, start: int, end: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line, character=start), end=types.Position(line=line, character=end)
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    bank = (tmp_path / "ws" / "memory-bank").resolve()
    bank.mkdir(parents=True)
    (bank / "auth.md").write_text(AUTH, encoding="utf-8")
    (bank / "billing.md").write_text(BILLING, encoding="utf-8")
    (bank / "draft.md").write_text(DRAFT, encoding="utf-8")
    return bank.parent


def open_bom(session: Session, workspace: Path, name: str, text: str) -> str:
    return open_doc(session.client, workspace / "memory-bank" / name, BOM + text)


async def test_hover_on_a_line_0_key_of_a_bom_document_has_the_editors_range(workspace: Path) -> None:
    async with Session.indexed(workspace) as session:
        uri = open_bom(session, workspace, "auth.md", AUTH)
        # The editor's column 1 is the key's first letter ("S"), column 0 the BOM.
        params = types.HoverParams(text_document=doc_id(uri), position=types.Position(line=0, character=1))
        found = await session.request(session.client.text_document_hover_async(params))
        assert found is not None
        assert "SIMILAR_HIGH" in str(found.contents)
        assert found.range == rng(0, 1, 1 + len("SIMILAR_HIGH"))


async def test_a_document_link_on_line_0_of_a_bom_document_covers_the_concept(workspace: Path) -> None:
    async with Session.indexed(workspace) as session:
        uri = open_bom(session, workspace, "auth.md", AUTH)
        params = types.DocumentLinkParams(text_document=doc_id(uri))
        links = await session.request(session.client.text_document_document_link_async(params))
        (link,) = links
        assert link.target == (workspace / "memory-bank/billing.md").as_uri()
        assert link.range == rng(0, ENTRY, ENTRY + len("billing"))


async def test_definition_from_a_line_0_entry_lands_on_line_0_of_an_open_bom_target(workspace: Path) -> None:
    async with Session.indexed(workspace) as session:
        uri = open_bom(session, workspace, "auth.md", AUTH)
        target = open_bom(session, workspace, "billing.md", BILLING)
        # Just before the entry's first letter in the core's columns, on it in the editor's.
        params = types.DefinitionParams(
            text_document=doc_id(uri), position=types.Position(line=0, character=ENTRY)
        )
        found = await session.request(session.client.text_document_definition_async(params))
        assert found == [types.Location(uri=target, range=rng(0, DECLARED, DECLARED + len("billing")))]


async def test_references_from_line_0_count_the_bom_of_every_open_document(workspace: Path) -> None:
    async with Session.indexed(workspace) as session:
        auth = open_bom(session, workspace, "auth.md", AUTH)
        billing = open_bom(session, workspace, "billing.md", BILLING)
        params = types.ReferenceParams(
            text_document=doc_id(billing),
            position=types.Position(line=0, character=DECLARED),
            context=types.ReferenceContext(include_declaration=True),
        )
        found = await session.request(session.client.text_document_references_async(params))
        assert sorted(found, key=lambda loc: loc.uri) == [
            types.Location(uri=auth, range=rng(0, ENTRY, ENTRY + len("billing"))),
            types.Location(uri=billing, range=rng(0, DECLARED, DECLARED + len("billing"))),
        ]


async def test_rename_from_line_0_edits_the_right_characters_of_bom_documents(workspace: Path) -> None:
    async with Session.indexed(workspace) as session:
        auth = open_bom(session, workspace, "auth.md", AUTH)
        billing = open_bom(session, workspace, "billing.md", BILLING)
        at = types.Position(line=0, character=DECLARED)
        prepared = await session.request(
            session.client.text_document_prepare_rename_async(
                types.PrepareRenameParams(text_document=doc_id(billing), position=at)
            )
        )
        assert prepared == types.PrepareRenamePlaceholder(
            range=rng(0, DECLARED, DECLARED + len("billing")), placeholder="billing"
        )
        # A cursor right after the name (the end of line 0) is on it too: the editor's column
        # counts the BOM, one more than the core's.
        end = types.Position(line=0, character=len(BOM + "CONCEPT: billing"))
        at_end = await session.request(
            session.client.text_document_prepare_rename_async(
                types.PrepareRenameParams(text_document=doc_id(billing), position=end)
            )
        )
        assert at_end == prepared
        edit = await session.request(
            session.client.text_document_rename_async(
                types.RenameParams(text_document=doc_id(billing), position=at, new_name="invoicing")
            )
        )
        assert edit is not None
        edits: dict[str, list[types.Range]] = {}
        for change in edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                edits.setdefault(change.text_document.uri, []).extend(e.range for e in change.edits)
        for uri, text_edits in (edit.changes or {}).items():
            edits.setdefault(uri, []).extend(e.range for e in text_edits)
        # billing.md moves to invoicing.md first: its text edits are addressed to the new name.
        moved = {c.old_uri: c.new_uri for c in edit.document_changes or [] if isinstance(c, types.RenameFile)}
        assert edits[auth] == [rng(0, ENTRY, ENTRY + len("billing"))]
        assert rng(0, DECLARED, DECLARED + len("billing")) in edits[moved.get(billing, billing)]


async def test_completion_on_line_0_of_a_bom_bare_header_inserts_at_the_cursor(workspace: Path) -> None:
    async with Session.indexed(workspace) as session:
        uri = open_bom(session, workspace, "draft.md", DRAFT)
        line0 = BOM + "SIMILAR_HIGH: "
        params = types.CompletionParams(
            text_document=doc_id(uri), position=types.Position(line=0, character=len(line0))
        )
        result = await session.request(session.client.text_document_completion_async(params))
        items = result.items if isinstance(result, types.CompletionList) else result
        item = next(i for i in items if i.label == "billing")
        assert isinstance(item.text_edit, types.TextEdit)
        assert item.text_edit.range == rng(0, len(line0), len(line0))
        assert item.text_edit.new_text.startswith("billing")


async def test_symbols_and_lens_on_line_0_of_a_bom_document_count_the_bom(workspace: Path) -> None:
    async with Session.indexed(workspace) as session:
        uri = open_bom(session, workspace, "billing.md", BILLING)
        symbols = await session.request(
            session.client.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=doc_id(uri))
            )
        )
        concept = next(s for s in symbols if s.name == "CONCEPT")
        assert isinstance(concept, types.DocumentSymbol)
        assert concept.selection_range == rng(0, 1, 1 + len("CONCEPT"))
        assert concept.range == rng(0, 1, DECLARED + len("billing"))
        lenses = await session.request(
            session.client.text_document_code_lens_async(types.CodeLensParams(text_document=doc_id(uri)))
        )
        (lens,) = lenses
        assert lens.range == rng(0, DECLARED, DECLARED + len("billing"))
        assert lens.command is not None and lens.command.arguments is not None
        assert lens.command.arguments[1] == {"line": 0, "character": DECLARED}
