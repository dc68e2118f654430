"""``textDocument/hover``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_HOVER, None)
def hover(ls: CkpServer, snap: Snapshot, params: types.HoverParams) -> types.Hover | None:
    from ..features.hover import hover_in

    line, col = snap.position(params.position)
    # A client that shows the diagnostics in the hover (VS Code): what they say is not repeated.
    shown = (
        frozenset((f.code, f.span) for f in snap.findings())
        if snap.caps.hover_shows_diagnostics
        else frozenset()
    )
    found = hover_in(snap.bank, snap.rel, line, col, shown)
    if found is not None and found.range is not None:
        found.range = snap.editor_range(found.range)
    return found
