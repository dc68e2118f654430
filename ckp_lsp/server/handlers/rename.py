"""``textDocument/prepareRename`` and ``textDocument/rename``."""

from __future__ import annotations

from lsprotocol import types

from ..features import rename
from ..server import CkpServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
@guarded(None)
async def prepare_rename(
    ls: CkpServer, params: types.PrepareRenameParams
) -> types.PrepareRenameResult | None:
    await ls.indexer.ready.wait()
    doc = ls.doc_at(params.text_document.uri)
    return rename.prepare_rename(doc, params.position.line, params.position.character) if doc else None


@server.feature(types.TEXT_DOCUMENT_RENAME)
@guarded(None)
async def rename_concept(ls: CkpServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    await ls.indexer.ready.wait()
    doc = ls.doc_at(params.text_document.uri)
    if doc is None:
        return None
    pos = params.position
    return rename.rename(doc, pos.line, pos.character, params.new_name, ls.client_capabilities, ls.version_of)
