"""``textDocument/documentLink``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
@guarded([])
async def document_link(ls: CkpServer, params: types.DocumentLinkParams) -> list[types.DocumentLink]:
    await ls.indexer.ready.wait()
    from ..features.links import document_links

    doc = ls.doc_at(params.text_document.uri)
    return document_links(doc, ls.caps.link_tooltips, ls.has_bom(doc)) if doc else []
