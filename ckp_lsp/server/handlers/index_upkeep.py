"""The ``ckp.regenerateIndex`` command (the update on save is part of document sync)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ..convert import uri_arg
from ..server import CkpServer, guarded, server


@server.command("ckp.regenerateIndex")
@guarded({"applied": False})
async def cmd_regenerate_index(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.indexer.ready.wait()
    from ..features.index_upkeep import fresh_index, index_edit

    uri = uri_arg(args)
    doc = ls.doc_at(uri) if uri else None
    banks = [doc.bank] if doc is not None else list(ls.state.banks.values())
    applied = False
    for bank in banks:
        fresh_index(ls, bank)
        edit = index_edit(bank)
        if edit is not None:
            result = await ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label="Regenerate CKP index")
            )
            applied = applied or bool(result.applied)
    return {"applied": applied}
