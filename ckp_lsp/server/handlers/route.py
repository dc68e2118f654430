"""The ``ckp.route`` command (the editor's routing preview): which files the ranked router loads for a question."""

from __future__ import annotations

from typing import Any

from ..convert import uri_of
from ..server import CkpServer, guarded, server


@server.command("ckp.route")
@guarded({})
async def cmd_route(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.indexer.ready.wait()
    from ...core.routing.ranked import RankedRouter

    arg = args[0] if args else {}
    if isinstance(arg, str):
        arg = {"query": arg}
    query = str(arg.get("query", ""))
    uri = arg.get("bank") or arg.get("uri")
    doc = ls.doc_at(uri) if isinstance(uri, str) else None
    bank = doc.bank if doc is not None else next(iter(ls.state.banks.values()), None)
    if bank is None:
        return {"error": "no memory bank in this workspace"}
    cached = ls.routers.get(bank.root)
    if cached is None or cached[0] != ls.state.version:
        cached = (ls.state.version, RankedRouter(bank))  # rebuilt only after a change
        ls.routers[bank.root] = cached
    result = cached[1].route(query).as_dict()
    result["bank"] = uri_of(bank.root)
    for entry in result.get("loaded", []):
        entry["uri"] = uri_of(bank.root / entry["file"])
    return result
