"""Every place the server works around pygls, in one module.

Each workaround was written against pygls ``WRITTEN_FOR`` (pyproject pins that minor version) and
applies only to it: with another pygls the server runs on pygls's own behaviour and says so once
in the log. ``tests/unit/test_pygls_compat.py`` shows, for each, the pygls behaviour it exists
for: when one of those tests fails after an upgrade, the workaround can go.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
from collections.abc import Generator
from importlib.metadata import version
from typing import Any

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.workspace.text_document import TextDocument

#: the pygls minor version the workarounds below were written for
WRITTEN_FOR = "2.1"
PYGLS = version("pygls")
#: whether the workarounds apply to the installed pygls
APPLIES = PYGLS == WRITTEN_FOR or PYGLS.startswith(WRITTEN_FOR + ".")

_log = logging.getLogger("ckp_lsp")

#: pygls's own code that ``install`` replaces (the tests show what it does)
PYGLS_OWN: dict[str, Any] = {
    "choose_position_encoding": ServerCapabilitiesBuilder.__dict__["choose_position_encoding"],
    "lines": TextDocument.__dict__["lines"],
}


class Refusal(JsonRpcException):
    """An expected error answer (a rename to a name that exists): the client shows the message."""

    CODE = types.LSPErrorCodes.RequestFailed.value


class _QuietRefusals(logging.Filter):
    """pygls logs every error answer with its traceback (``logger.exception``), which editors show
    as an ERROR in their log: a refusal is an answer, not a failure, so its record is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], Refusal))


#: the pygls logger that writes the traceback of an error answer
JSON_RPC_LOGGER = "pygls.protocol.json_rpc"


def install() -> None:
    """Apply the workarounds that replace pygls's own code (once, when the server is made)."""
    json_rpc = logging.getLogger(JSON_RPC_LOGGER)
    if not any(isinstance(f, _QuietRefusals) for f in json_rpc.filters):
        json_rpc.addFilter(_QuietRefusals())
    if not APPLIES:
        _log.warning(
            "ckp-lsp: pygls %s is not the %s its workarounds were written for; running on pygls's own code",
            PYGLS,
            WRITTEN_FOR,
        )
        return
    ServerCapabilitiesBuilder.choose_position_encoding = classmethod(_utf16_only)  # type: ignore[method-assign,assignment]
    TextDocument.lines = property(lsp_lines)  # type: ignore[assignment,method-assign]


# --- position encoding -----------------------------------------------------------------------------


def _utf16_only(cls: Any, caps: types.ClientCapabilities) -> types.PositionEncodingKind:
    """pygls picks the client's first encoding (UTF-8 if it offers that first); the core counts
    columns in UTF-16 code units, which every client must support."""
    return types.PositionEncodingKind.Utf16


# --- lines ------------------------------------------------------------------------------------------

# LSP ends lines at \n, \r\n and \r only. pygls splits a document with str.splitlines, which also
# ends them at \f, \v, \x1c-\x1e, \x85, U+2028 and U+2029: an editor's incremental change to a text
# holding one of those would land on the wrong line, and every later edit with it.
_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_OTHER_BREAK = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def lsp_lines(doc: TextDocument) -> tuple[str, ...]:
    """The document's lines as LSP counts them, each with its line ending."""
    source = doc.source
    if _OTHER_BREAK.search(source) is None:
        return tuple(source.splitlines(True))  # the same lines, faster
    return tuple(_LSP_LINE.findall(source))


# --- the protocol -----------------------------------------------------------------------------------


class CkpProtocol(LanguageServerProtocol):
    """pygls's protocol, without its leak: a notification's future is kept under a fresh id that
    nothing removes (only a request's answer does), a few hundred bytes per keystroke for ever."""

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        if APPLIES and callback == self._check_handler_result:  # a notification

            def done(future: Any) -> None:
                self._request_futures.pop(msg_id, None)
                check(future)

            check, callback = callback, done
        super()._execute_handler(msg_id, handler, callback, args, kwargs)


def shut_down_cleanly(server: LanguageServer) -> bool:
    """Whether the client asked for ``shutdown`` before the server stopped (pygls swallows the
    SystemExit that would carry the exit code)."""
    return bool(getattr(server.protocol, "_shutdown", False))


def forget_progress(server: LanguageServer, token: str) -> None:
    """pygls keeps every progress token it was given for ever: let go of one that ended."""
    server.work_done_progress.tokens.pop(token, None)


# --- generator handlers -----------------------------------------------------------------------------


async def _wait(event: asyncio.Event) -> None:
    await event.wait()


def wait_for(event: asyncio.Event) -> Generator[Any, Any, None]:
    """``yield from`` it in a request handler written as a generator: waits for ``event``, at once
    when it is set.

    pygls runs a generator handler as soon as its request is read and answers in the same turn of
    the event loop (a coroutine takes two more turns, a task and its callback); the generator
    yields to pygls only to wait, as ``(handler, args, kwargs)`` that pygls runs for it.
    """
    if not event.is_set():
        yield _wait, (event,), {}


# --- reading stdin ----------------------------------------------------------------------------------


def serve_stdio(server: LanguageServer, stdin_is_pipe: bool, consumed: bytes = b"") -> None:
    """Serve over stdio, reading stdin on the event loop when it is a pipe, starting with ``consumed``.

    pygls reads stdin on a worker thread, one hand-off per header line and per body: most of a
    request's round trip on a small machine. Where stdin is a pipe the event loop reads it itself;
    elsewhere (a file, Windows) pygls's own reader serves.
    """
    if not (APPLIES and stdin_is_pipe):
        server.start_io()
        return

    stop = server._stop_event = threading.Event()

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 20)
        reader.feed_data(consumed)  # what was read before (see ``preload``)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
        await run_async(
            stop_event=stop,
            reader=reader,
            protocol=server.protocol,
            logger=logging.getLogger("pygls.io_"),
            error_handler=server.report_server_error,
        )

    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(serve())
    except BrokenPipeError:
        logging.getLogger("pygls").error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit, asyncio.IncompleteReadError):
        pass
    finally:
        server.shutdown()
