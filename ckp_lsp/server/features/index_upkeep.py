"""The edit that makes a bank's ``_index.md`` current (the Regenerate index command, the update on save)."""

from __future__ import annotations

from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.text import split_lines, utf16_len
from ckp_lsp.core.project.within import inside

from ..convert import uri_of


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
