"""``textDocument/documentSymbol`` and ``workspace/symbol``."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from ..server import CkpServer, guarded, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, [])
def document_symbol(
    ls: CkpServer, snap: Snapshot, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
    # Imported on first use, as in ``workspace_symbol``: the fuzzy matcher slows the start-up.
    from ..features.symbols import document_symbols, flatten

    if snap.text is None:
        return []
    symbols = document_symbols(snap.doc, snap.text)
    if snap.bom:
        _after_bom(snap, symbols)
    return symbols if snap.caps.hierarchical_symbols else flatten(symbols, snap.uri)


@table.feature(types.WORKSPACE_SYMBOL)
@guarded([])
async def workspace_symbol(ls: CkpServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    await ls.indexer.ready.wait()
    from ..features.symbols import workspace_symbols

    state = ls.session.state
    return workspace_symbols(state.banks.values(), params.query, state.boms)


def _after_bom(snap: Snapshot, symbols: Sequence[types.DocumentSymbol]) -> None:
    """The symbols' ranges (built on the text without its BOM) in the editor's columns."""
    for s in symbols:
        s.range, s.selection_range = snap.editor_range(s.range), snap.editor_range(s.selection_range)
        _after_bom(snap, s.children or ())
