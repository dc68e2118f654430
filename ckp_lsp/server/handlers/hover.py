"""``textDocument/hover``."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types

from ..features.hover import hover_in
from ..server import CkpServer, guarded, server, when_ready


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded(None)
def hover(ls: CkpServer, params: types.HoverParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    doc = ls.doc_at(params.text_document.uri)
    return hover_in(doc.bank, doc.rel, params.position.line, params.position.character) if doc else None
