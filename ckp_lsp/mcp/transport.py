"""The stdio transport of ``ckp mcp``: the SDK's, with a bound on the requests in flight.

The SDK reads stdin as fast as it comes and runs every request at once; a client that sends and
never reads its answers makes the answers pile up (17 MB a second). Here at most ``IN_FLIGHT``
requests are open at a time: the next line of stdin is read only once an answer was written to
stdout, so a peer that stops reading stops being read, and memory stays flat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

#: requests read and not yet answered, at most
IN_FLIGHT = 16
_CANCELLED = "notifications/cancelled"


def _request_id(message: Any) -> Any:
    """The id of a request the client sent (a message with a method and an id), else None."""
    inner = getattr(message, "message", None)
    if getattr(inner, "method", None) is None:
        return None
    return getattr(inner, "id", None)


def _answered_id(message: Any) -> Any:
    """The id a message the server sends answers (a result or an error), else None."""
    inner = getattr(message, "message", None)
    if getattr(inner, "method", None) is not None:
        return None
    return getattr(inner, "id", None)


def _cancelled_id(message: Any) -> Any:
    """The id of the request a client's cancellation names, else None."""
    inner = getattr(message, "message", None)
    if getattr(inner, "method", None) != _CANCELLED:
        return None
    params = getattr(inner, "params", None)
    return params.get("requestId") if isinstance(params, dict) else getattr(params, "request_id", None)


@asynccontextmanager
async def bounded_stdio(limit: int = IN_FLIGHT) -> AsyncIterator[tuple[Any, Any]]:
    """``stdio_server()``'s streams, with at most ``limit`` requests read and not yet answered."""
    async with stdio_server() as (from_client, to_client):
        permits = anyio.Semaphore(limit)
        open_ids: Counter[Any] = Counter()
        read_send, read_recv = anyio.create_memory_object_stream[Any](0)
        write_send, write_recv = anyio.create_memory_object_stream[Any](0)

        def release(rid: Any) -> None:
            if open_ids[rid] > 0:
                open_ids[rid] -= 1
                if not open_ids[rid]:
                    del open_ids[rid]
                permits.release()

        async def inbound() -> None:
            async with read_send:
                async for message in from_client:
                    rid = _request_id(message)
                    if rid is not None:
                        await permits.acquire()  # the peer reads no answer: read it nothing more
                        open_ids[rid] += 1
                    elif (cancelled := _cancelled_id(message)) is not None:
                        release(cancelled)  # a cancelled request may get no answer
                    await read_send.send(message)

        async def outbound() -> None:
            async with write_recv:
                async for message in write_recv:
                    await to_client.send(message)
                    rid = _answered_id(message)
                    if rid is not None:
                        release(rid)

        async with anyio.create_task_group() as tg:
            tg.start_soon(inbound)
            tg.start_soon(outbound)
            try:
                yield read_recv, write_send
            finally:
                tg.cancel_scope.cancel()
