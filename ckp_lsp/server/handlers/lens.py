"""``textDocument/codeLens`` and the command its lens carries, ``ckp.showReferences``."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ..features.lens import SHOW_REFERENCES, code_lenses
from ..server import CkpServer, guarded, server


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
@guarded([])
async def code_lens(ls: CkpServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    await ls.indexer.ready.wait()
    doc = ls.doc_at(params.text_document.uri)
    return code_lenses(doc, ls.has_bom(doc)) if doc else []


@server.command(SHOW_REFERENCES)
@guarded([])
async def show_references(ls: CkpServer, *args: Any) -> list[types.Location]:
    """The references the lens counts, for ``[uri, position]``.

    Registered so that every client may run the lens (Neovim refuses a command the server does not
    list). A client shows them its own way: VS Code's extension opens its references view, a Neovim
    user can map the command to ``vim.lsp.buf.references()`` (docs/neovim.md).
    """
    await ls.indexer.ready.wait()
    from ..features.references import references

    uri, at = (args[0], args[1]) if len(args) >= 2 else (None, None)
    if not isinstance(uri, str) or not isinstance(at, dict):
        return []
    position = types.Position(line=int(at.get("line", 0)), character=int(at.get("character", 0)))
    found = ls.position(uri, position)  # the lens's position: the editor's, as every position sent
    return (references(*found, False, ls.state.boms) or []) if found is not None else []
