"""The server's reader hands at most ``READ_AHEAD`` of the client's requests on at once; the
messages after them wait in their order, and the client's answers to the server's requests never
wait (``stdio.ReadAhead``)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from ckp_lsp.server.stdio import READ_AHEAD, read_messages


class Protocol:
    """Stands for pygls's protocol: a request's future stays in ``_request_futures`` until its
    answer is sent, as a coroutine handler's does."""

    def __init__(self) -> None:
        self._request_futures: dict[Any, asyncio.Future[None]] = {}
        self.handled: list[Any] = []

    def structure_message(self, data: dict[str, Any]) -> dict[str, Any]:
        return data

    def handle_message(self, message: dict[str, Any]) -> None:
        self.handled.append(message.get("method") or ("answer", message["id"]))
        if "method" in message and "id" in message:
            future = asyncio.get_running_loop().create_future()
            future.add_done_callback(lambda _: self._request_futures.pop(message["id"], None))
            self._request_futures[message["id"]] = future

    def answer(self, n: int) -> None:
        for future in list(self._request_futures.values())[:n]:
            future.set_result(None)


def frame(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read(messages: list[object]) -> Protocol:
    protocol = Protocol()
    reader = asyncio.StreamReader()
    reader.feed_data(b"".join(frame(m) for m in messages))
    reader.feed_eof()
    await read_messages(reader, protocol, threading.Event())  # type: ignore[arg-type]
    return protocol


def requests(ids: range) -> list[object]:
    return [{"jsonrpc": "2.0", "id": n, "method": "workspace/symbol", "params": {"query": ""}} for n in ids]


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_requests_past_the_bound_wait_while_the_first_are_unanswered() -> None:
    protocol = await read(requests(range(READ_AHEAD + 500)))
    await settle()
    assert len(protocol.handled) == READ_AHEAD


async def test_an_answer_to_a_request_of_the_servers_is_handed_on_past_waiting_messages() -> None:
    change = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {}}
    answer = {"jsonrpc": "2.0", "id": "settings", "result": [{}]}
    protocol = await read([*requests(range(READ_AHEAD + 3)), change, answer])
    await settle()
    assert protocol.handled[-1] == ("answer", "settings")
    assert "textDocument/didChange" not in protocol.handled


async def test_each_answered_request_lets_the_next_message_on_in_order() -> None:
    change = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {}}
    protocol = await read([*requests(range(READ_AHEAD + 2)), change, *requests(range(1000, 1002))])
    protocol.answer(1)
    await settle()
    assert len(protocol.handled) == READ_AHEAD + 1
    protocol.answer(2)
    await settle()
    # the second request past the bound, then the change that came after it, then the next request
    assert protocol.handled[READ_AHEAD + 1 :] == [
        "workspace/symbol",
        "textDocument/didChange",
        "workspace/symbol",
    ]
