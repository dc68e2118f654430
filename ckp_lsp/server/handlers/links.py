"""``textDocument/documentLink``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_DOCUMENT_LINK, [])
def document_link(
    ls: CkpServer, snap: Snapshot, params: types.DocumentLinkParams
) -> list[types.DocumentLink]:
    from ..features.links import document_links

    return document_links(snap.doc, snap.caps.link_tooltips, snap.bom)
