"""``textDocument/codeLens``."""

from __future__ import annotations

from lsprotocol import types

from ..features.lens import code_lenses
from ..server import CkpServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
@guarded([])
async def code_lens(ls: CkpServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    await ls.indexer.ready.wait()
    doc = ls.doc_at(params.text_document.uri)
    return code_lenses(doc) if doc else []
