"""``textDocument/prepareRename`` and ``textDocument/rename``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
@guarded(None)
async def prepare_rename(
    ls: CkpServer, params: types.PrepareRenameParams
) -> types.PrepareRenameResult | None:
    await ls.indexer.ready.wait()
    from ..features import rename

    at = ls.position(params.text_document.uri, params.position)
    return rename.prepare_rename(*at, ls.state.boms) if at is not None else None


@server.feature(types.TEXT_DOCUMENT_RENAME)
@guarded(None)
async def rename_concept(ls: CkpServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    await ls.indexer.ready.wait()
    from ..features import rename

    at = ls.position(params.text_document.uri, params.position)
    if at is None:
        return None
    caps = ls.client_capabilities
    return rename.rename(*at, params.new_name, caps, ls.version_of, ls.state.boms)
