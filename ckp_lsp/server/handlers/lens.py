"""``textDocument/codeLens`` and the command its lens carries, ``ckp.showReferences``."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ..features.lens import SHOW_REFERENCES, code_lenses
from ..server import CkpServer, guarded, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_CODE_LENS, [])
def code_lens(ls: CkpServer, snap: Snapshot, params: types.CodeLensParams) -> list[types.CodeLens]:
    return code_lenses(snap.doc, snap.bom)


@table.command(SHOW_REFERENCES)
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
    snap = ls.session.snapshot(uri)
    if snap is None:
        return []
    # the lens's position: the editor's, as every position sent
    position = types.Position(line=int(at.get("line", 0)), character=int(at.get("character", 0)))
    return references(snap.doc, *snap.position(position), False, snap.boms) or []
