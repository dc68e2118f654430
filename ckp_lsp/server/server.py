"""The language server object: what every handler reaches through ``ls``.

Handlers live by concern: ``startup`` (initialize, settings, shutdown), ``indexer`` (reading the
banks, disk events), ``sync`` (the editor's documents), ``diagnostics`` (publishing) and
``handlers`` (one module per feature); ``pygls_compat`` holds every pygls workaround.
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

from ckp_lsp.core.format.text import BOM

from .. import __version__
from . import pygls_compat
from .client import ClientCapabilities, Settings
from .convert import path_of, to_position
from .diagnostics import Publisher
from .indexer import Indexer
from .state import Doc, WorkspaceState

F = TypeVar("F", bound=Callable[..., Any])


class CkpServer(LanguageServer):
    """pygls server with the workspace state, its indexer and the diagnostics publisher."""

    def __init__(self) -> None:
        pygls_compat.install()
        super().__init__("ckp-lsp", __version__, protocol_cls=pygls_compat.CkpProtocol)
        self.state = WorkspaceState()
        self.indexer = Indexer(self)
        self.publisher = Publisher(self.state, self.text_document_publish_diagnostics, self.version_of)
        self.caps = ClientCapabilities()  # resolved at ``initialize``
        self.settings = Settings()
        self.routers: dict[Any, tuple[int, Any]] = {}  # bank root -> (state version, Router)
        self.closing = False
        self.tasks: set[asyncio.Task[Any]] = set()
        self.told: set[str] = set()  # ignored settings already shown in a window (once a server)
        self.import_seconds = 0.0  # what importing the server took (main sets it): said at start

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's report of an error answer; a refusal (``pygls_compat.Refusal``) is no error."""
        if not isinstance(error, pygls_compat.Refusal):
            super().report_server_error(error, source)

    def version_of(self, uri: str) -> int | None:
        """The editor's version of ``uri`` when it is open."""
        doc = self.workspace.text_documents.get(uri)
        return doc.version if doc is not None else None

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def doc_at(self, uri: str) -> Doc | None:
        path = path_of(uri)
        return self.state.doc(path) if path is not None else None

    def has_bom(self, doc: Doc) -> bool:
        """Whether the editor's text of ``doc`` starts with U+FEFF (its line 0 counts one column more)."""
        return doc.bank.root / doc.rel in self.state.boms

    def position(self, uri: str, at: types.Position) -> tuple[Doc, int, int] | None:
        """The document at ``uri`` and the core (line, column) of the editor's position ``at``."""
        doc = self.doc_at(uri)
        if doc is None:
            return None
        return (doc, *to_position(at, self.has_bom(doc)))

    def source_of(self, uri: str, doc: Doc) -> str | None:
        """The text of ``doc``: the editor's when it is open, else the disk's if the bank reads it.

        None for a file the bank skipped (a symlink leading outside, a pipe): never read.
        """
        opened = self.workspace.text_documents.get(uri)
        if opened is not None:
            return opened.source.removeprefix(BOM)
        if doc.is_index:
            return doc.bank.index_text
        if doc.file is None:
            return None
        try:  # as the bank read it: a file that is not UTF-8 is still text
            return doc.bank.disk.read(doc.bank.root / doc.rel).text
        except OSError:
            return None

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


server = CkpServer()


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
