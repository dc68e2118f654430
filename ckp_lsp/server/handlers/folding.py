"""``textDocument/foldingRange``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
@guarded([])
async def folding_range(ls: CkpServer, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
    await ls.indexer.ready.wait()
    from ..features.folding import folding_ranges

    uri = params.text_document.uri
    doc = ls.doc_at(uri)
    text = ls.source_of(uri, doc) if doc is not None else None
    return folding_ranges(doc, text) if doc is not None and text is not None else []
