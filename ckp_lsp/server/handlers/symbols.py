"""``textDocument/documentSymbol`` and ``workspace/symbol``."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from ..convert import after_bom
from ..server import CkpServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded([])
async def document_symbol(
    ls: CkpServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
    await ls.indexer.ready.wait()
    # Imported on first use, as in ``workspace_symbol``: the fuzzy matcher slows the start-up.
    from ..features.symbols import document_symbols, flatten

    uri = params.text_document.uri
    doc = ls.doc_at(uri)
    text = ls.source_of(uri, doc) if doc is not None else None
    if doc is None or text is None:
        return []
    symbols = document_symbols(doc, text)
    if ls.has_bom(doc):
        _after_bom(symbols)
    return symbols if ls.caps.hierarchical_symbols else flatten(symbols, uri)


@server.feature(types.WORKSPACE_SYMBOL)
@guarded([])
async def workspace_symbol(ls: CkpServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    await ls.indexer.ready.wait()
    from ..features.symbols import workspace_symbols

    return workspace_symbols(ls.state.banks.values(), params.query, ls.state.boms)


def _after_bom(symbols: Sequence[types.DocumentSymbol]) -> None:
    """The symbols' ranges (built on the text without its BOM) in the editor's columns."""
    for s in symbols:
        s.range, s.selection_range = after_bom(s.range), after_bom(s.selection_range)
        _after_bom(s.children or ())
