"""Keeping ``_index.md`` current from the editor: the Regenerate index command and update on save."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.text import split_lines, utf16_len
from ckp_lsp.core.project.within import inside

from ..convert import uri_of

if TYPE_CHECKING:
    from ..server import CkpServer


def fresh_index(ls: CkpServer, bank: Bank) -> None:
    """Take the bank's ``_index.md`` from disk unless the editor has it open: an agent may have
    created or rewritten it before any watched-file event came, and an edit made for a text that
    is no longer there would overwrite the agent's."""
    if bank.index_path in ls.state.open:
        return
    before = bank.index_text
    dirty = ls.state.disk_changed(bank.index_path)
    if bank.index_text != before and dirty:
        ls.publisher.later(dirty)


def index_edit(bank: Bank) -> types.WorkspaceEdit | None:
    """A WorkspaceEdit that makes the bank's ``_index.md`` current, or None when it already is (or
    when ``_index.md`` is a symbolic link leading outside the bank: the editor would write there)."""
    if not inside(bank.index_path, bank.root):
        return None
    old = bank.index_text
    new = update_index_text(old, bank)
    if new == old:
        return None
    uri = uri_of(bank.index_path)
    if old is None:
        return types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                    edits=[types.TextEdit(range=_whole(""), new_text=new)],
                ),
            ]
        )
    return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=_whole(old), new_text=new)]})


def _whole(text: str) -> types.Range:
    lines = split_lines(text)
    return types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=len(lines) - 1, character=utf16_len(lines[-1])),
    )


def on_save(ls: CkpServer, uri: str) -> None:
    """With ``ckp.index.updateOnSave``, rewrite the index when a saved header changed it."""
    doc = ls.doc_at(uri)
    if doc is None or doc.is_index or not doc.bank.config.index_update_on_save:
        return
    fresh_index(ls, doc.bank)
    edit = index_edit(doc.bank)
    if edit is not None:
        ls.spawn(
            ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="Update CKP index"))
        )
