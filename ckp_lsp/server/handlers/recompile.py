"""The ``ckp.recompile`` command."""

from __future__ import annotations

import asyncio
from typing import Any

from ..convert import uri_arg
from ..server import CkpServer, server


@server.command("ckp.recompile")
async def cmd_recompile(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.indexer.ready.wait()
    # Imported on first use: the compiler it brings is a tenth of the server's start-up.
    from ..features.recompile import recompile

    uri = uri_arg(args)
    if uri is None:
        return {"applied": False, "reason": "no document given"}
    task = ls.spawn(recompile(ls, uri))
    try:
        return await task
    except asyncio.CancelledError:
        return {"applied": False, "reason": "cancelled"}
