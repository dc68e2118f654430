"""``textDocument/hover``."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types

from ..convert import after_bom
from ..server import CkpServer, guarded, server, when_ready


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded(None)
def hover(ls: CkpServer, params: types.HoverParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    from ..features.hover import hover_in

    at = ls.position(params.text_document.uri, params.position)
    if at is None:
        return None
    doc, line, col = at
    # A client that shows the diagnostics in the hover (VS Code): what they say is not repeated.
    shown = (
        frozenset((f.code, f.span) for f in ls.state.findings(doc))
        if ls.caps.hover_shows_diagnostics
        else frozenset()
    )
    found = hover_in(doc.bank, doc.rel, line, col, shown)
    if found is not None and found.range is not None:
        found.range = after_bom(found.range, ls.has_bom(doc))
    return found
