"""The language server object (the session, the indexer, the publisher and the client), the
table of handlers it is built with, and how a handler's failure is answered.

Handlers live by concern: ``startup`` (initialize, settings, shutdown), ``indexer`` (reading the
banks, disk events), ``sync`` (the editor's documents), ``diagnostics`` (publishing) and
``handlers`` (one module per feature); ``pygls_compat`` holds every pygls workaround, applied by
``main``; ``factory`` builds the server.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import traceback
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from .. import __version__
from . import pygls_compat
from .diagnostics import Publisher
from .indexer import Indexer
from .session import Session

F = TypeVar("F", bound=Callable[..., Any])


class CkpServer(LanguageServer):
    """pygls server with the session, its indexer and the diagnostics publisher."""

    def __init__(self, session: Session | None = None) -> None:
        super().__init__("ckp-lsp", __version__, protocol_cls=pygls_compat.CkpProtocol)
        self.session = session if session is not None else Session()
        state = self.session.state
        self.publisher = Publisher(
            state, self.text_document_publish_diagnostics, self.session.documents.version_of
        )
        self.closing = False
        self.indexer = Indexer(state, self.publisher, self.log, self.show, self.spawn, lambda: self.closing)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.import_seconds = 0.0  # what importing the server took (main sets it): said at start

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's report of an error answer; a refusal (``pygls_compat.Refusal``) is no error."""
        if not isinstance(error, pygls_compat.Refusal):
            super().report_server_error(error, source)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def show(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """A message in a window the user sees (``window/showMessage``)."""
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


class HandlerTable:
    """The table of handlers a server is built with (``factory.create_server``): each handler
    module adds its own as it is imported, no server exists yet.

    Two kinds of handler, each of one signature: a request about one document,
    ``(ls, snapshot, params)`` (``document``), and every other, ``(ls, params)`` or a command's
    ``(ls, *args)``.
    """

    def __init__(self) -> None:
        self._entries: list[tuple[bool, str, Any, Callable[..., Any]]] = []

    def feature(self, method: str, options: Any = None) -> Callable[[F], F]:
        def add(fn: F) -> F:
            self._entries.append((False, method, options, fn))
            return fn

        return add

    def command(self, name: str) -> Callable[[F], F]:
        def add(fn: F) -> F:
            self._entries.append((True, name, None, fn))
            return fn

        return add

    def document(self, method: str, default: Any, options: Any = None) -> Callable[[F], F]:
        """A request about one document: once the banks are read, the handler gets the document's
        snapshot; a document of no bank is answered ``default``, as is a failure (``guarded``)."""

        def add(fn: F) -> F:
            def run(ls: CkpServer, params: Any) -> Generator[Any, Any, Any]:
                yield from when_ready(ls)
                snap = ls.session.snapshot(params.text_document.uri)
                return fn(ls, snap, params) if snap is not None else default

            # pygls passes the server to a handler whose first parameter is ``ls``: the wrapper's
            # signature is its own (no ``functools.wraps``), only the name is the handler's
            run.__name__, run.__qualname__, run.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
            self._entries.append((False, method, options, guarded(default)(run)))
            return fn

        return add

    def register(self, ls: LanguageServer) -> None:
        """Register every handler on ``ls``."""
        for is_command, name, options, fn in self._entries:
            (ls.command(name) if is_command else ls.feature(name, options))(fn)


#: the handlers of the language server, filled as their modules are imported
table = HandlerTable()


def when_ready(ls: CkpServer) -> Generator[Any, Any, None]:
    """``yield from`` it in a generator request handler: waits until the banks are read."""
    return pygls_compat.wait_for(ls.indexer.ready)


#: what a ``guarded`` resolve request answers when it fails: what it was asked to resolve
UNCHANGED: Any = object()


def guarded(default: Any = None) -> Callable[[F], F]:
    """A failing feature is logged and answers ``default`` (``UNCHANGED``: its params): the server
    keeps serving."""

    def wrap(fn: F) -> F:
        def report(ls: CkpServer, exc: BaseException) -> None:
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=6))
            ls.log(f"ckp-lsp: {fn.__name__} failed: {exc}\n{detail}", types.MessageType.Error)

        def fallback(ls: CkpServer, args: tuple[Any, ...], exc: Exception) -> Any:
            if isinstance(exc, JsonRpcException):
                raise exc  # a deliberate error answer (e.g. a refused rename), not a failure
            report(ls, exc)
            return args[0] if default is UNCHANGED else default

        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def run_steps(ls: CkpServer, *args: Any) -> Any:
                try:
                    return (yield from fn(ls, *args))
                except Exception as exc:
                    return fallback(ls, args, exc)

            return run_steps  # type: ignore[return-value]

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(ls: CkpServer, *args: Any) -> Any:
                try:
                    return await fn(ls, *args)
                except Exception as exc:
                    return fallback(ls, args, exc)

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(ls: CkpServer, *args: Any) -> Any:
            try:
                return fn(ls, *args)
            except Exception as exc:
                return fallback(ls, args, exc)

        return run  # type: ignore[return-value]

    return wrap
