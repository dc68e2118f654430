"""Every place the server works around pygls, in one module.

Each workaround was written against pygls ``WRITTEN_FOR`` (pyproject pins that minor version) and
applies only to it: with another pygls the server runs on pygls's own behaviour and says so once
in the log. ``tests/unit/test_pygls_compat.py`` shows, for each, the pygls behaviour it exists
for: when one of those tests fails after an upgrade, the workaround can go.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.workspace.text_document import TextDocument

#: the pygls minor version the workarounds below were written for
WRITTEN_FOR = "2.1"


def _pygls_version() -> str:
    """The installed pygls's version, from the name of its wheel's metadata folder beside it
    (``pygls-2.1.1.dist-info``): importlib.metadata would import the email package and search
    the whole path at every start (tens of milliseconds)."""
    import pygls

    for info in Path(pygls.__file__).resolve().parent.parent.glob("pygls-*.dist-info"):
        return info.name.removeprefix("pygls-").removesuffix(".dist-info")
    from importlib.metadata import version  # installed some other way (an egg, a source tree)

    return version("pygls")


PYGLS = _pygls_version()
#: whether the workarounds apply to the installed pygls
APPLIES = PYGLS == WRITTEN_FOR or PYGLS.startswith(WRITTEN_FOR + ".")

_log = logging.getLogger("ckp_lsp")

#: pygls's own code that ``install`` replaces (the tests show what it does)
PYGLS_OWN: dict[str, Any] = {
    "choose_position_encoding": ServerCapabilitiesBuilder.__dict__["choose_position_encoding"],
    "lines": TextDocument.__dict__["lines"],
    "apply_change": TextDocument.__dict__["apply_change"],
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
    """Apply the workarounds that replace pygls's own code (``main`` does, once, before it builds the server)."""
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
    TextDocument.apply_change = _apply_clamped_change  # type: ignore[method-assign,assignment]


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


def clamp(lines: Sequence[str], at: types.Position) -> types.Position:
    """``at`` with a character past the end of its line moved back to the line's end, its line
    ending excluded, as LSP says (a line past the last is the end of the document)."""
    if at.line >= len(lines):
        return at
    text = lines[at.line].rstrip("\r\n")
    width = len(text) + sum(1 for c in text if ord(c) > 0xFFFF)  # in UTF-16 code units
    return at if at.character <= width else types.Position(line=at.line, character=width)


def _apply_clamped_change(doc: TextDocument, change: types.TextDocumentContentChangeEvent) -> None:
    """pygls moves a character past the end of a line to one before the line's length counted
    with its line ending: a replace up to the end of a last line without one leaves its last
    character behind, and an insert past the end of a ``\r\n`` line lands between ``\r`` and
    ``\n``."""
    if isinstance(change, types.TextDocumentContentChangePartial):
        lines = doc.lines
        start, end = clamp(lines, change.range.start), clamp(lines, change.range.end)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=start, end=end), text=change.text, range_length=change.range_length
        )
    PYGLS_OWN["apply_change"](doc, change)


# --- the protocol -----------------------------------------------------------------------------------


class CkpProtocol(LanguageServerProtocol):
    """pygls's protocol, with what LSP asks of a server that pygls 2.1 does not do."""

    #: ServerCapabilities fields (e.g. ``diagnostic_provider``) not offered to this client
    withheld: frozenset[str] = frozenset()
    #: ``initialize`` came: requests are served
    initialize_seen = False

    def handle_message(self, message: Any) -> None:
        """Requests before ``initialize`` get ServerNotInitialized, after ``shutdown``
        InvalidRequest (pygls drops both unanswered); notifications before ``initialize`` are
        dropped, except ``exit``."""
        method = getattr(message, "method", None)
        if APPLIES and isinstance(method, str):
            request = getattr(message, "id", None) is not None
            if not self.initialize_seen and method not in (types.INITIALIZE, types.EXIT):
                if request:
                    error: JsonRpcException = JsonRpcServerNotInitialized(
                        "the server is not initialized yet: send initialize first"
                    )
                    self._send_response(message.id, error=error.to_response_error())
                return
            if request and self._shutdown:
                error = JsonRpcInvalidRequest("the server is shutting down: only exit is accepted now")
                self._send_response(message.id, error=error.to_response_error())
                return
            if method == types.INITIALIZE:
                self.initialize_seen = True
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls offers every registered feature to every client: ``withhold`` keeps one from a
        client it does not suit."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        for name in self.withheld:
            setattr(result.capabilities, name, None)
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls cancels the requests in flight while iterating over them, and a cancelled one's
        callback removes it: "dictionary changed size during iteration", an error for an answer
        and exit code 1 whenever a request waits (as they do while the banks are first read)."""
        if not APPLIES:
            return (yield from super().lsp_shutdown(*args))
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    def _handle_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        """The client's answer to a request of the server's that ``shutdown`` cancelled meanwhile
        (``workspace/configuration`` while the banks are first read): pygls would set the result of
        the cancelled future, an InvalidStateError and a traceback. Nobody waits for it."""
        future = self._request_futures.get(msg_id)
        if APPLIES and future is not None and future.done():
            self._request_futures.pop(msg_id, None)
            return
        super()._handle_response(msg_id, result, error)

    def _send_data(self, data: Any) -> None:
        """After ``exit`` pygls closes stdout, then ends the loop: a task still running then (a
        publish on its debounce, an answer being cancelled) would log "I/O operation on closed
        file" with a traceback. Nothing can be sent any more, and nobody is listening."""
        stream = getattr(self.writer, "_stdout", None)
        if APPLIES and stream is not None and stream.closed:
            return
        super()._send_data(data)

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls keeps a notification's future under a fresh id that nothing removes (only a
        request's answer does), a few hundred bytes per keystroke for ever; so is each step of a
        generator handler (``workspace/executeCommand`` runs every command as one).

        And ``$/cancelRequest`` cancels only the answer of a generator handler, not the step it
        waits on: a cancelled ``ckp.recompile`` said "cancelled" while its model kept running.
        The step is cancelled with the answer here."""
        if not APPLIES:
            super()._execute_handler(msg_id, handler, callback, args, kwargs)
            return
        answer = None
        if callback == self._check_handler_result or _is_generator_step(self, callback):
            if _is_generator_step(self, callback):
                answer = callback.keywords.get("result_future")

            def done(future: Any) -> None:
                self._request_futures.pop(msg_id, None)
                then(future)

            then, callback = callback, done
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        step = self._request_futures.get(msg_id)
        if answer is not None and step is not None:
            answer.add_done_callback(lambda a: step.cancel() if a.cancelled() else None)


def _is_generator_step(protocol: LanguageServerProtocol, callback: Any) -> bool:
    """Whether ``callback`` is pygls's continuation of a generator handler (``_run_generator``)."""
    return isinstance(callback, functools.partial) and callback.func == protocol._run_generator


def withhold(server: LanguageServer, capability: str) -> bool:
    """Offer the ServerCapabilities field ``capability`` not to this client (call it from the
    ``initialize`` handler); whether it is withheld (not with another pygls)."""
    protocol = server.protocol
    if not (APPLIES and isinstance(protocol, CkpProtocol)):
        return False
    protocol.withheld = protocol.withheld | {capability}
    return True


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
