"""Each pygls workaround in ``ckp_lsp.server.pygls_compat``, shown next to the pygls behaviour it
exists for. When a "pygls still …" test fails after an upgrade, that workaround can go."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Generator
from typing import Any

import pygls.io_
import pytest
from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.workspace.text_document import TextDocument

from ckp_lsp.server import pygls_compat
from ckp_lsp.server.server import CkpServer


def test_the_workarounds_were_written_for_the_installed_pygls() -> None:
    # pyproject pins pygls's minor version; a bump must revisit every workaround in the module.
    assert pygls_compat.APPLIES, f"pygls {pygls_compat.PYGLS}, workarounds for {pygls_compat.WRITTEN_FOR}"


# --- position encoding ------------------------------------------------------------------------------

OFFERS_UTF8_FIRST = types.ClientCapabilities(
    general=types.GeneralClientCapabilities(
        position_encodings=[types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16]
    )
)


def test_pygls_still_picks_the_clients_first_encoding() -> None:
    choose = pygls_compat.PYGLS_OWN["choose_position_encoding"].__get__(None, ServerCapabilitiesBuilder)
    assert choose(OFFERS_UTF8_FIRST) == types.PositionEncodingKind.Utf8


def test_the_server_always_counts_in_utf16() -> None:
    pygls_compat.install()  # as ``main`` does, before it builds the server
    assert ServerCapabilitiesBuilder.choose_position_encoding(OFFERS_UTF8_FIRST) == "utf-16"


# --- lines ------------------------------------------------------------------------------------------

TEXT = "CONCEPT: a\x85b\nTLDR: c\u2028d\r\nBody\x0ce\n"


def test_pygls_still_ends_lines_where_lsp_does_not() -> None:
    doc = TextDocument("file:///x.md", TEXT)
    own = pygls_compat.PYGLS_OWN["lines"].fget(doc)
    assert len(own) == 6  # \x85, U+2028 and \f end lines too


def test_the_server_ends_lines_at_cr_lf_and_crlf_only() -> None:
    doc = TextDocument("file:///x.md", TEXT)
    assert pygls_compat.lsp_lines(doc) == ("CONCEPT: a\x85b\n", "TLDR: c\u2028d\r\n", "Body\x0ce\n")


def test_an_edit_after_a_next_line_character_lands_where_the_editor_put_it() -> None:
    pygls_compat.install()
    doc = TextDocument("file:///x.md", TEXT)
    at = types.Position(line=1, character=0)
    change = types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="X")
    doc.apply_change(change)
    assert doc.source == "CONCEPT: a\x85b\nXTLDR: c\u2028d\r\nBody\x0ce\n"


# --- notifications' futures ---------------------------------------------------------------------------


def _notifications(protocol: LanguageServerProtocol) -> dict[Any, Any]:
    async def notification_handler() -> None:
        await asyncio.sleep(0)

    async def run() -> None:
        for n in range(10):
            protocol._execute_handler(f"note-{n}", notification_handler, protocol._check_handler_result)
        await asyncio.sleep(0.05)

    asyncio.run(run())
    return protocol._request_futures


def test_pygls_still_keeps_a_future_per_notification() -> None:
    plain = LanguageServer("plain", "1", protocol_cls=LanguageServerProtocol).protocol
    assert len(_notifications(plain)) == 10


def test_the_server_keeps_nothing_per_notification() -> None:
    assert _notifications(CkpServer().protocol) == {}


# --- progress tokens ----------------------------------------------------------------------------------


def test_pygls_still_keeps_a_progress_token_after_its_end_and_the_server_lets_go_of_it() -> None:
    ls = CkpServer()
    sent: list[Any] = []
    ls.protocol.notify = lambda method, params=None: sent.append(params)  # type: ignore[method-assign]
    ls.work_done_progress.tokens["t"] = asyncio.Future(loop=asyncio.new_event_loop())
    ls.work_done_progress.end("t", types.WorkDoneProgressEnd(message="done"))
    assert "t" in ls.work_done_progress.tokens
    pygls_compat.forget_progress(ls, "t")
    assert "t" not in ls.work_done_progress.tokens


# --- generator handlers ---------------------------------------------------------------------------------


def test_a_generator_handler_answers_in_the_turn_its_request_came_and_a_coroutine_does_not() -> None:
    ls = CkpServer()
    answered: list[str] = []

    def generator_handler() -> Any:
        yield from pygls_compat.wait_for(ready)
        return "generator"

    async def coroutine_handler() -> str:
        await ready.wait()
        return "coroutine"

    async def run() -> None:
        for name, handler in (("g", generator_handler), ("c", coroutine_handler)):
            ls.protocol._execute_handler(name, handler, lambda f: answered.append(f.result()))
        assert answered == ["generator"]  # nothing ran on the loop yet
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert answered == ["generator", "coroutine"]

    ready = asyncio.Event()
    ready.set()
    asyncio.run(run())


def test_a_generator_handler_waits_for_the_banks_while_they_are_read() -> None:
    ls = CkpServer()
    answered: list[str] = []

    def handler() -> Any:
        yield from pygls_compat.wait_for(ready)
        return "answer"

    async def run() -> None:
        ls.protocol._execute_handler("h", handler, lambda f: answered.append(f.result()))
        await asyncio.sleep(0.01)
        assert answered == []
        ready.set()
        await asyncio.sleep(0.01)
        assert answered == ["answer"]

    ready = asyncio.Event()
    asyncio.run(run())


# --- reading stdin ---------------------------------------------------------------------------------------


def test_pygls_still_reads_stdin_on_a_worker_thread() -> None:
    # One hand-off to a thread per header line and per body: ``serve_stdio`` reads on the loop.
    assert "run_in_executor" in inspect.getsource(pygls.io_.StdinAsyncReader)


# --- positions past the end of a line -------------------------------------------------------------------


def _insert_past_the_end(apply: Any) -> str:
    doc = TextDocument("file:///x.md", "ab\r\ncd")
    at = types.Position(line=0, character=3)  # one past "ab"
    apply(doc, types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="X"))
    return doc.source


def test_pygls_still_inserts_past_the_end_of_a_line_between_cr_and_lf() -> None:
    assert _insert_past_the_end(pygls_compat.PYGLS_OWN["apply_change"]) == "ab\rX\ncd"


def test_the_server_clamps_a_position_to_the_end_of_its_line() -> None:
    pygls_compat.install()
    assert _insert_past_the_end(TextDocument.apply_change) == "abX\r\ncd"


# --- shutdown -------------------------------------------------------------------------------------------


def test_pygls_still_changes_the_requests_it_iterates_over_at_shutdown() -> None:
    # A cancelled request's callback removes it from the requests pygls is iterating over.
    from pygls.protocol.language_server import LanguageServerProtocol as Own

    for protocol_cls, fails in ((Own, True), (pygls_compat.CkpProtocol, False)):
        ls = LanguageServer("x", "1", protocol_cls=protocol_cls)
        protocol = ls.protocol

        def waiting() -> Any:
            yield from pygls_compat.wait_for(asyncio.Event())

        async def run(protocol: Any = protocol) -> None:
            for n in range(3):
                protocol._execute_handler(
                    f"r{n}", waiting, lambda f, n=n: protocol._request_futures.pop(f"r{n}", None)
                )
            steps = protocol.lsp_shutdown()
            with contextlib.suppress(StopIteration):
                next(steps)

        if fails:
            with pytest.raises(RuntimeError, match="dictionary changed size"):
                asyncio.run(run())
        else:
            asyncio.run(run())
            assert protocol._shutdown


# --- after exit ---------------------------------------------------------------------------------------


def test_pygls_still_logs_a_traceback_for_a_message_sent_after_exit_closed_stdout(caplog: Any) -> None:
    import io
    import logging

    for protocol_cls, logged in ((LanguageServerProtocol, True), (pygls_compat.CkpProtocol, False)):
        ls = LanguageServer("x", "1", protocol_cls=protocol_cls)
        stdout = io.BytesIO()
        ls.protocol.set_writer(pygls.io_.StdoutWriter(stdout))
        stdout.close()  # what pygls's exit does before it ends the loop
        caplog.clear()
        with caplog.at_level(logging.ERROR):
            ls.protocol.notify(
                types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                types.PublishDiagnosticsParams(uri="file:///a.md", diagnostics=[]),
            )
        sent_late = [r for r in caplog.records if r.exc_info and "closed file" in str(r.exc_info[1])]
        assert bool(sent_late) is logged, protocol_cls


# --- error answers ----------------------------------------------------------------------------------


def test_pygls_still_logs_an_error_answer_with_its_traceback() -> None:
    from pygls.protocol.json_rpc import JsonRPCProtocol

    for step in (JsonRPCProtocol._send_handler_result, JsonRPCProtocol._handle_request):
        source = inspect.getsource(step)
        assert "except JsonRpcException" in source and "logger.exception(" in source


def test_a_refusal_leaves_no_traceback_in_the_log(caplog: Any) -> None:
    import logging

    from pygls.exceptions import JsonRpcException

    from ckp_lsp.server.features.rename import RenameRejected

    pygls_compat.install()  # adds the filter
    logger = logging.getLogger(pygls_compat.JSON_RPC_LOGGER)
    for exc in (RenameRejected("'oauth2' already exists"), JsonRpcException("a real failure")):
        try:
            raise exc
        except JsonRpcException:
            logger.exception("Failed to handle request")
    assert [str(r.exc_info[1]) for r in caplog.records if r.exc_info] == ["a real failure"]


# --- cancelling a generator handler -------------------------------------------------------------------


def _cancelled_step(protocol: Any) -> bool:
    """Run a generator handler whose one step waits for ever, cancel its answer as
    ``$/cancelRequest`` does, and say whether the step was cancelled too."""
    step_cancelled = []

    async def waiting() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            step_cancelled.append(True)
            raise

    def handler() -> Generator[Any, Any, None]:
        yield waiting, (), {}

    async def run() -> None:
        protocol._execute_handler("req", handler, lambda f: None)
        await asyncio.sleep(0.05)
        protocol._handle_cancel_notification("req")  # as $/cancelRequest does
        await asyncio.sleep(0.05)

    asyncio.run(run())
    return step_cancelled == [True]


def test_pygls_still_leaves_the_step_of_a_cancelled_generator_handler_running() -> None:
    plain = LanguageServer("plain", "1", protocol_cls=LanguageServerProtocol).protocol
    ran_on: list[Any] = []

    async def waiting() -> None:
        await asyncio.sleep(60)

    def handler() -> Generator[Any, Any, None]:
        yield waiting, (), {}

    async def run() -> None:
        plain._execute_handler("req", handler, lambda f: None)
        await asyncio.sleep(0.05)
        plain._handle_cancel_notification("req")
        await asyncio.sleep(0.05)
        ran_on.extend(f for k, f in plain._request_futures.items() if k != "req" and not f.done())
        for future in ran_on:
            future.cancel()

    asyncio.run(run())
    assert len(ran_on) == 1  # the step still ran after its answer was cancelled


def test_the_server_cancels_the_step_with_the_answer_and_keeps_no_future_of_it() -> None:
    protocol = CkpServer().protocol
    assert _cancelled_step(protocol)
    assert protocol._request_futures == {}
