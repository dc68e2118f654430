"""Reading the client over stdio: the server's own reader of framed messages, on the event loop.

pygls reads stdin on a worker thread, one hand-off per header line and per body, and dies on a
header line it cannot read; this reader is written against the pygls of ``pygls_compat`` and
serves only with it (``APPLIES``).
"""

from __future__ import annotations

import asyncio
import collections
import functools
import json
import logging
import sys
import threading
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from .pygls_compat import APPLIES

_log = logging.getLogger("ckp_lsp")


#: the longest header line read whole; a longer one is skipped (pygls's reader dies on it)
HEADER_LIMIT = 1 << 16


def serve_stdio(server: LanguageServer, stdin_is_pipe: bool) -> None:
    """Serve over stdio, reading stdin on the event loop when it is a pipe.

    pygls reads stdin on a worker thread, one hand-off per header line and per body: most of a
    request's round trip on a small machine. Where stdin is a pipe the event loop reads it itself
    (``read_messages``); elsewhere (a file, Windows) pygls's own reader serves.
    """
    if not (APPLIES and stdin_is_pipe):
        server.start_io()
        return
    stop = server._stop_event = threading.Event()

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=HEADER_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
        await read_messages(reader, server.protocol, stop)

    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(serve())
    except BrokenPipeError:
        logging.getLogger("pygls").error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit, asyncio.IncompleteReadError):
        pass
    finally:
        server.shutdown()


#: client requests handled at once; the messages after them wait (as bytes) until one is answered
READ_AHEAD = 64


async def read_messages(
    reader: asyncio.StreamReader, protocol: LanguageServerProtocol, stop: threading.Event
) -> None:
    """Read framed messages until the input ends, handing each to ``protocol`` (``ReadAhead``).

    Unlike pygls's reader: an over-long header line is skipped, not fatal; the first
    ``Content-Length`` counts (as where the first message is read at start); header names are
    case-insensitive; and a request whose params do not fit its method gets an InvalidParams
    answer instead of none.
    """
    ahead = ReadAhead(protocol)
    while not stop.is_set():
        length: int | None = None
        while True:  # the header
            line = await _header_line(reader)
            if line is None:
                return
            if not line.strip():
                if length is not None:
                    break
                continue  # a blank line before any header, or a header without a length
            name, _, value = line.partition(b":")
            if length is None and name.strip().lower() == b"content-length" and value.strip().isdigit():
                length = int(value.strip())
        try:
            body = await reader.readexactly(length)
        except asyncio.IncompleteReadError:
            return
        ahead.received(body)


class ReadAhead:
    """At most ``READ_AHEAD`` of the client's requests are handled at once.

    Requests that wait (for the banks' first reading, as every request does at start) leave the
    loop free to read on: a client that sends without reading its answers would have every request
    it sends handled and answered in memory, hundreds of megabytes in seconds. Past the bound, the
    messages wait as the bytes they came in, in their order, and are handed on as the requests
    before them are answered. The client's answers to the server's own requests are handed on at
    once: a request may wait for one (the settings asked at start), so holding them back could
    stop the server for good.
    """

    def __init__(self, protocol: LanguageServerProtocol) -> None:
        self.protocol = protocol
        self.waiting: collections.deque[bytes] = collections.deque()
        self.handed: set[Any] = set()

    def received(self, body: bytes) -> None:
        if not self.waiting and not self.full():
            self.hand(body)
        elif _is_answer(body):
            _handle_body(self.protocol, body)
        else:
            self.waiting.append(body)

    def full(self) -> bool:
        return len(self.handed) >= READ_AHEAD

    def hand(self, body: bytes) -> None:
        msg_id = _handle_body(self.protocol, body)
        future = self.protocol._request_futures.get(msg_id) if msg_id is not None else None
        if future is not None and not future.done():
            self.handed.add(msg_id)
            future.add_done_callback(functools.partial(self._answered, msg_id))

    def _answered(self, msg_id: Any, _: object) -> None:
        self.handed.discard(msg_id)
        asyncio.get_running_loop().call_soon(self.hand_waiting)

    def hand_waiting(self) -> None:
        while self.waiting and not self.full():
            self.hand(self.waiting.popleft())


def _is_answer(body: bytes) -> bool:
    """The client's answer to a request of the server's: an id and no method."""
    try:
        data = json.loads(body)
    except ValueError:
        return False
    return isinstance(data, dict) and "id" in data and "method" not in data


async def _header_line(reader: asyncio.StreamReader) -> bytes | None:
    """The next header line; None when the input ended. A line over the limit is read past and
    answered as a blank line's worth of nothing (``b"-"``)."""
    skipped = False
    while True:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return None
        except asyncio.LimitOverrunError as exc:
            await reader.readexactly(max(exc.consumed, 1))
            if not skipped:
                _log.warning("ckp-lsp: a header line longer than %d bytes was skipped", HEADER_LIMIT)
            skipped = True
            continue
        return b"-" if skipped else line


def _handle_body(protocol: LanguageServerProtocol, body: bytes) -> Any:
    """Hand one message to ``protocol``; the id of the request it is, if it is one."""
    try:
        data = json.loads(body)
    except ValueError as exc:
        _log.warning("ckp-lsp: a message that is not JSON was skipped (%s)", exc)
        protocol._send_response(None, error=JsonRpcParseError(str(exc)).to_response_error())  # type: ignore[arg-type]
        return
    if not isinstance(data, dict):
        protocol._send_response(None, error=JsonRpcInvalidRequest("not a JSON object").to_response_error())  # type: ignore[arg-type]
        return
    try:
        message = protocol.structure_message(data)
    except JsonRpcException:
        _log.warning("ckp-lsp: %s %s: its params do not fit the method", data.get("method"), data.get("id"))
        if "id" in data and "method" in data:
            error = JsonRpcInvalidParams(f"{data['method']}: the params do not fit the method")
            protocol._send_response(data["id"], error=error.to_response_error())
        return
    try:
        protocol.handle_message(message)
    except Exception:
        _log.exception("ckp-lsp: a message could not be handled")
    msg_id = data.get("id")
    return msg_id if "method" in data and isinstance(msg_id, (int, str)) else None
