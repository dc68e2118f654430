"""``textDocument/foldingRange``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_FOLDING_RANGE, [])
def folding_range(
    ls: CkpServer, snap: Snapshot, params: types.FoldingRangeParams
) -> list[types.FoldingRange]:
    from ..features.folding import folding_ranges

    return folding_ranges(snap.doc, snap.text) if snap.text is not None else []
