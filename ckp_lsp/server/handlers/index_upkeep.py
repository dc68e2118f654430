"""The ``ckp.regenerateIndex`` command, and the index's update on save (called by document sync)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ...core.bank.bank import Bank
from ..convert import uri_arg
from ..server import CkpServer, guarded, table


def fresh_index(ls: CkpServer, bank: Bank) -> None:
    """Take the bank's ``_index.md`` from disk unless the editor has it open: an agent may have
    created or rewritten it before any watched-file event came, and an edit made for a text that
    is no longer there would overwrite the agent's."""
    state = ls.session.state
    if bank.index_path in state.documents:
        return
    before = bank.index_text
    dirty = state.disk_changed(bank.index_path)
    if bank.index_text != before and dirty:
        ls.publisher.later(dirty)


def on_save(ls: CkpServer, uri: str) -> None:
    """With ``ckp.index.updateOnSave``, rewrite the index when a saved header changed it."""
    from ..features.index_upkeep import index_edit  # imported on first use: not at start

    doc = ls.session.doc_at(uri)
    if doc is None or doc.is_index or not doc.bank.config.index_update_on_save:
        return
    fresh_index(ls, doc.bank)
    edit = index_edit(doc.bank)
    if edit is not None:
        ls.spawn(
            ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="Update CKP index"))
        )


@table.command("ckp.regenerateIndex")
@guarded({"applied": False})
async def cmd_regenerate_index(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.indexer.ready.wait()
    from ..features.index_upkeep import index_edit

    uri = uri_arg(args)
    doc = ls.session.doc_at(uri) if uri else None
    banks = [doc.bank] if doc is not None else list(ls.session.state.banks.values())
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
