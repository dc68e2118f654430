"""Keeping _index.md current from the editor: the command, the quick fix's twin, update on save."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START

from .conftest import (
    action_params,
    apply_text_edits,
    change_doc,
    codes,
    open_doc,
    wait_diagnostics,
    wait_indexed,
    wait_until,
)


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


def _agent_rewrites_the_index(index: Path) -> str:
    """The index as an agent leaves it, unseen by the editor: its own notes around two copies of
    the generated section (one stale: a row gone), written straight to disk."""
    old = index.read_text(encoding="utf-8")
    section = old[old.index(INDEX_START) : old.index(INDEX_END) + len(INDEX_END)]
    stale = "\n".join(line for line in section.split("\n") if "| jwt |" not in line)
    text = f"# Agent notes\n\nKept by the agent.\n\n{stale}\n\nBetween the copies.\n\n{section}\n\nAfter.\n"
    index.write_text(text, encoding="utf-8")
    return text


def _regenerated(client: LanguageClient, edit: types.WorkspaceEdit, uri: str, disk: str) -> str:
    edits = list((edit.changes or {}).get(uri, [])) + [
        e
        for c in edit.document_changes or []
        if isinstance(c, types.TextDocumentEdit) and c.text_document.uri == uri
        for e in c.edits
    ]
    assert edits, edit
    return apply_text_edits(disk, edits)


def _one_current_section(new: str) -> None:
    assert new.startswith("# Agent notes\n\nKept by the agent.\n\n")  # the text on disk, not the old one
    assert "Between the copies." in new and "After." in new
    assert new.count(INDEX_START) == 1 and new.count(INDEX_END) == 1
    assert "| jwt |" in new  # regenerated, not the stale copy


async def test_regenerate_index_reads_an_index_an_agent_rewrote_on_disk(client: LanguageClient):
    bank = client.workspace_path / "mentat/memory-bank"
    await wait_indexed(client)
    index = bank / "_index.md"
    disk = _agent_rewrites_the_index(index)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="ckp.regenerateIndex", arguments=[(bank / "patterns/jwt.md").as_uri()]
        )
    )
    assert result == {"applied": True}
    _one_current_section(_regenerated(client, client.applied[-1].edit, index.as_uri(), disk))


async def test_the_regenerate_action_reads_an_index_an_agent_created_on_disk(client: LanguageClient):
    bank = client.workspace_path / "mentat/memory-bank"
    await wait_indexed(client)
    jwt_uri = open_doc(client, bank / "patterns/jwt.md")
    index = bank / "_index.md"
    disk = _agent_rewrites_the_index(index)
    actions = await client.text_document_code_action_async(action_params(jwt_uri, only=["source"]))
    regenerate = [
        a for a in actions or [] if isinstance(a, types.CodeAction) and a.title == "Regenerate the index"
    ]
    assert len(regenerate) == 1 and regenerate[0].edit is not None
    _one_current_section(_regenerated(client, regenerate[0].edit, index.as_uri(), disk))
