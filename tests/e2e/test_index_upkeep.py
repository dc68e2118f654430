"""Keeping _index.md current from the editor: the command, the quick fix's twin, update on save."""

from __future__ import annotations

import re

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import change_doc, codes, open_doc, wait_diagnostics, wait_indexed, wait_until


async def test_regenerate_index_command_fixes_a_drifted_index(client: LanguageClient):
    index = client.workspace_path / "broken/memory-bank/_index.md"
    await wait_indexed(client)
    uri = open_doc(client, index)
    await wait_diagnostics(client, uri, lambda d: "CKP070" in codes(d))
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="ckp.regenerateIndex", arguments=[uri])
    )
    assert result == {"applied": True}
    text = client.texts[uri][1]
    assert "| rate-limiting |" in text  # the row the drifted index was missing
    assert text.startswith(index.read_text().split("<!-- ckp:index:start -->")[0])  # user text kept
    await wait_diagnostics(client, uri, lambda d: "CKP070" not in codes(d) and "CKP071" in codes(d))


async def test_update_on_save_rewrites_the_index_when_a_header_changed(client: LanguageClient):
    bank = client.workspace_path / "mentat/memory-bank"
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ckp": {"index": {"updateOnSave": True}}})
    )
    await wait_indexed(client)
    jwt = bank / "patterns/jwt.md"
    uri = open_doc(client, jwt)
    text = re.sub(
        r"^TLDR:.*$",
        "TLDR:         Signed tokens, refreshed on a schedule.",
        jwt.read_text(),
        count=1,
        flags=re.M,
    )
    change_doc(client, uri, text, 2)
    jwt.write_text(text)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    index_uri = (bank / "_index.md").as_uri()

    def rewritten() -> bool:
        edits = [
            e
            for p in client.applied
            for c in p.edit.document_changes or []
            if isinstance(c, types.TextDocumentEdit) and c.text_document.uri == index_uri
            for e in c.edits
        ] + [e for p in client.applied for e in (p.edit.changes or {}).get(index_uri, [])]
        return any("Signed tokens, refreshed on a schedule." in e.new_text for e in edits)

    await wait_until(rewritten)
