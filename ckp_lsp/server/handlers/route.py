"""The ``ckp.route`` command (the editor's routing preview): which files the ranked router loads for a question."""

from __future__ import annotations

from typing import Any

from ..convert import uri_of
from ..server import CkpServer, guarded, table


@table.command("ckp.route")
@guarded({})
async def cmd_route(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.indexer.ready.wait()
    from ...core.routing.ranked import RankedRouter

    arg = args[0] if args else {}
    if isinstance(arg, str):
        arg = {"query": arg}
    query = str(arg.get("query", ""))
    uri = arg.get("bank") or arg.get("uri")
    session = ls.session
    doc = session.doc_at(uri) if isinstance(uri, str) else None
    bank = doc.bank if doc is not None else next(iter(session.state.banks.values()), None)
    if bank is None:
        return {"error": "no memory bank in this workspace"}
    router = session.router(bank.root, lambda: RankedRouter(bank))
    result = router.route(query).as_dict()
    result["bank"] = uri_of(bank.root)
    for entry in result.get("loaded", []):
        entry["uri"] = uri_of(bank.root / entry["file"])
    return result
