"""The language server: thin handlers over the core and the feature modules.

State has one owner (``WorkspaceState``), changed only on the event loop; features read it.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import inspect
import os
import re
import sys
import threading
import traceback
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.workspace.text_document import TextDocument

from .. import __version__
from ..core.bank import Bank, read_text
from ..core.discovery import INDEX_NAME
from ..core.text import BOM
from .convert import path_of, uri_of
from .diagnostics import Publisher
from .preload import Preload
from .state import Dirty, Doc, WorkspaceState, settings_of
from .watch import Events, Poller, Snapshot, diff, scan

# The core counts columns in UTF-16 code units, which every client must support.
ServerCapabilitiesBuilder.choose_position_encoding = classmethod(  # type: ignore[method-assign,assignment]
    lambda cls, caps: types.PositionEncodingKind.Utf16
)

# LSP ends lines at \n, \r\n and \r only. pygls splits a document with str.splitlines, which also
# ends them at \f, \v, \x1c-\x1e, \x85, U+2028 and U+2029: an editor's incremental change to a text
# holding one of those would land on the wrong line, and every later edit with it.
_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_OTHER_BREAK = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _lsp_lines(doc: TextDocument) -> tuple[str, ...]:
    source = doc.source
    if _OTHER_BREAK.search(source) is None:
        return tuple(source.splitlines(True))  # the same lines, faster
    return tuple(_LSP_LINE.findall(source))


TextDocument.lines = property(_lsp_lines)  # type: ignore[assignment,method-assign]

F = TypeVar("F", bound=Callable[..., Any])


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
        if callback == self._check_handler_result:  # a notification

            def done(future: Any) -> None:
                self._request_futures.pop(msg_id, None)
                check(future)

            check, callback = callback, done
        super()._execute_handler(msg_id, handler, callback, args, kwargs)


class CkpServer(LanguageServer):
    """pygls server with the workspace state and the diagnostics publisher."""

    def __init__(self) -> None:
        super().__init__("ckp-lsp", __version__, protocol_cls=CkpProtocol)
        self.state = WorkspaceState()
        self.publisher = Publisher(self.state, self.text_document_publish_diagnostics, self._version_of)
        self.ready = asyncio.Event()  # the banks are read and current: requests may answer
        self.indexed = asyncio.Event()  # the first indexing is done
        self.holds = 0  # re-indexings under way; requests wait for them
        self.routers: dict[Path, tuple[int, Any]] = {}  # bank root -> (state version, Router)
        self.settings_version = 0  # bumped by every settings change, so a late answer cannot undo one
        self.poller: Poller | None = None
        self.init_options: dict[str, Any] = {}
        self.closing = False
        self.tasks: set[asyncio.Task[Any]] = set()
        self.preload: Preload | None = None  # the banks read while the server started
        self.postponed: list[Events] = []  # disk events waiting for the banks being read

    def _version_of(self, uri: str) -> int | None:
        doc = self.workspace.text_documents.get(uri)
        return doc.version if doc is not None else None

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def doc_at(self, uri: str) -> Doc | None:
        path = path_of(uri)
        return self.state.doc(path) if path is not None else None

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
            return read_text(doc.bank.root / doc.rel)[0]
        except OSError:
            return None

    def supports(self, dotted: str) -> bool:
        """Whether the client declares the capability at ``dotted`` (e.g. ``window.work_done_progress``)."""
        node: Any = self.client_capabilities
        for part in dotted.split("."):
            node = getattr(node, part, None)
            if node is None:
                return False
        return bool(node)

    def hold(self) -> None:
        """Make requests wait: the banks are about to be re-read."""
        self.holds += 1
        self.ready.clear()

    def release(self) -> None:
        self.holds -= 1
        if self.holds == 0 and self.indexed.is_set():
            self.ready.set()
            self.apply_postponed()

    def apply_postponed(self) -> None:
        """Disk events that arrived while the banks were being read, applied to the banks now."""
        postponed, self.postponed = self.postponed, []
        for events in postponed:
            _apply_disk_events(self, events)

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


server = CkpServer()


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


# --- lifecycle --------------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def initialize(ls: CkpServer, params: types.InitializeParams) -> None:
    folders = [path_of(f.uri) for f in params.workspace_folders or []]
    if not folders and params.root_uri:
        folders = [path_of(params.root_uri)]
    if not folders and params.root_path:
        folders = [Path(params.root_path)]
    ls.state.folders = [f.resolve() for f in folders if f is not None]
    if isinstance(params.initialization_options, dict):
        ls.init_options = settings_of(params.initialization_options)
        ls.state.settings = dict(ls.init_options)
    ls.publisher.pull = ls.supports("text_document.diagnostic")
    ls.publisher.on_counts = lambda counts: ls.protocol.notify("ckp/status", counts)
    if ls.publisher.pull and ls.supports("workspace.diagnostics.refresh_support"):

        def refresh() -> None:
            ls.workspace_diagnostic_refresh(None)

        ls.publisher.on_refresh = refresh
    if params.process_id:
        _watch_parent(params.process_id)


async def _until_ready(ls: CkpServer) -> None:
    await ls.ready.wait()


def when_ready(ls: CkpServer) -> Generator[Any, Any, Any]:
    """``yield from`` it in a request handler: waits until the banks are read, at once when they are.

    A handler written as a generator is run by pygls as soon as its request is read and answers
    in the same turn of the event loop (a coroutine would take two more turns, a task and its
    callback); it yields to pygls only to wait.
    """
    if not ls.ready.is_set():
        yield _until_ready, (ls,), {}


def _watch_parent(pid: int) -> None:
    """Exit when the editor that started the server is gone (it may die without shutdown)."""

    def run() -> None:
        while True:
            threading.Event().wait(3)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass

    threading.Thread(target=run, name="ckp-parent-watch", daemon=True).start()


@server.feature(types.INITIALIZED)
async def initialized(ls: CkpServer, params: types.InitializedParams) -> None:
    await _pull_settings(ls)
    await _watch_files(ls)
    ls.spawn(_index_workspace(ls))


async def _pull_settings(ls: CkpServer) -> None:
    if not ls.supports("workspace.configuration"):
        return
    version = ls.settings_version
    try:
        result = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="ckp")])
            ),
            timeout=5,
        )
    except Exception as exc:
        ls.log(f"ckp-lsp: could not read the client's settings: {exc}")
        return
    if result and isinstance(result[0], dict) and version == ls.settings_version:
        ls.state.settings = {**ls.init_options, **result[0]}


async def _watch_files(ls: CkpServer) -> None:
    if ls.supports("workspace.did_change_watched_files.dynamic_registration"):
        watchers = [
            types.FileSystemWatcher(glob_pattern="**/*.md"),
            types.FileSystemWatcher(glob_pattern="**/.ckp.toml"),
        ]
        reg = types.Registration(
            id="ckp-watch",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[reg]))
            return
        except Exception as exc:
            ls.log(f"ckp-lsp: file watchers could not be registered ({exc}); polling the disk instead")
    loop = asyncio.get_running_loop()

    def on_events(events: Events) -> None:
        if not ls.closing:
            loop.call_soon_threadsafe(_apply_disk_events, ls, events)

    ls.poller = Poller(lambda: list(ls.state.banks) or list(ls.state.folders), on_events)
    ls.poller.start()


async def _index_workspace(ls: CkpServer) -> None:
    """Find and load every bank in the background, reporting progress, then publish."""
    token = f"ckp-index-{id(ls)}"
    progress = ls.supports("window.work_done_progress")
    if progress:
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(
                token, types.WorkDoneProgressBegin(title="Indexing CKP banks", percentage=0)
            )
        except Exception:
            progress = False
    try:
        roots = await asyncio.to_thread(ls.state.discover)
        await _rebase_poller(ls, roots)
        banks = []
        for i, root in enumerate(roots):
            config = ls.state.config_for(root)
            preloaded = await asyncio.to_thread(ls.preload.bank, root, config) if ls.preload else None
            if preloaded is not None:
                gc.freeze()  # as ``load_bank`` does
                bank, found = preloaded
                ls.log(f"ckp-lsp: {root}: {len(bank.files)} files read while the server started")
                ls.state.know(bank, found)
                banks.append(bank)
            else:
                banks.append(await asyncio.to_thread(ls.state.load_bank, root, config))
            if progress:
                pct = int(100 * (i + 1) / max(len(roots), 1))
                ls.work_done_progress.report(
                    token,
                    types.WorkDoneProgressReport(
                        message=f"{root.name}: {len(banks[-1].files)} files", percentage=pct
                    ),
                )
        ls.state.reload_all(banks)
        _log_banks(ls, banks)
        ls.publisher.clear_all()
        ls.publisher.publish_all(ls.state.all_docs())
        if ls.state.forget():
            # Findings came from the child: what checking builds on the way (the index's table)
            # is built once now, rather than by the first edit.
            ls.spawn(_warm_up(ls))
        if ls.preload is not None:
            await _catch_up(ls, ls.preload.snapshot, roots)
    finally:
        ls.state.forget()
        if ls.preload is not None:
            ls.preload.cancel()
            ls.preload = None
        ls.indexed.set()
        if ls.holds == 0:
            ls.ready.set()
            ls.apply_postponed()
        if progress:
            n = sum(len(b.files) for b in ls.state.banks.values())
            ls.work_done_progress.end(
                token, types.WorkDoneProgressEnd(message=f"{n} knowledge files indexed")
            )


async def _warm_up(ls: CkpServer) -> None:
    await ls.ready.wait()
    for bank in list(ls.state.banks.values()):
        await asyncio.sleep(0)  # a request that came meanwhile first
        ls.state.findings(Doc(bank, INDEX_NAME))


async def _catch_up(ls: CkpServer, before: Snapshot, roots: list[Path]) -> None:
    """Changes on disk since the banks were read at start, before anyone watched: applied once
    indexing is done."""
    if before:
        events = diff(before, await asyncio.to_thread(scan, roots))
        if any(events):
            ls.postponed.append(events)


@server.feature(types.SHUTDOWN)
async def shutdown(ls: CkpServer, params: None) -> None:
    ls.closing = True
    if ls.poller is not None:
        ls.poller.stop()
    providers = sys.modules.get("ckp_lsp.core.compile.providers")
    if providers is not None:
        providers.stop_commands()  # a model still thinking is not waited for
    for task in list(ls.tasks):
        task.cancel()
    if ls.tasks:
        await asyncio.wait(list(ls.tasks), timeout=2)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: CkpServer, params: types.DidChangeConfigurationParams) -> None:
    ls.hold()
    try:
        before = dict(ls.state.settings)
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("ckp"), dict):
            ls.settings_version += 1
            ls.state.settings = {**ls.init_options, **settings["ckp"]}
        else:
            await _pull_settings(ls)
        await ls.indexed.wait()
        if ls.state.settings != before or not settings:
            await _reindex(ls)
    finally:
        ls.release()


async def _held_reindex(ls: CkpServer) -> None:
    try:
        await ls.indexed.wait()
        await _reindex(ls)
    finally:
        ls.release()


async def _reindex(ls: CkpServer) -> None:
    """Read every bank again (settings, configuration files or workspace folders changed)."""
    roots = await asyncio.to_thread(ls.state.discover)
    await _rebase_poller(ls, roots)
    banks = [await asyncio.to_thread(ls.state.load_bank, r, ls.state.config_for(r)) for r in roots]
    ls.publisher.clear_all()
    ls.state.reload_all(banks)
    _log_banks(ls, banks)
    ls.publisher.publish_all(ls.state.all_docs())


async def _rebase_poller(ls: CkpServer, roots: list[Path]) -> None:
    """The disk poller's snapshot taken before the banks are read, so no later change is missed."""
    if ls.poller is not None:
        await asyncio.to_thread(ls.poller.rebase, roots or list(ls.state.folders))


def _log_banks(ls: CkpServer, banks: list[Bank]) -> None:
    """Configuration problems and skipped files of freshly read banks, in the server's log."""
    for bank in banks:
        for problem in bank.config.problems:
            ls.log(f"ckp-lsp: configuration: {problem}", types.MessageType.Warning)
        for rel, why in sorted(bank.unreadable.items()):
            ls.log(f"ckp-lsp: {bank.root / rel}: skipped ({why})", types.MessageType.Warning)


def _log_skipped(ls: CkpServer, dirty: Dirty) -> None:
    """Files an event pointed at that are not read: said in the log, their diagnostics withdrawn."""
    for path, why in sorted(dirty.skipped.items()):
        ls.log(f"ckp-lsp: {path}: skipped ({why})", types.MessageType.Warning)
        ls.publisher.clear(uri_of(path))


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_folders(ls: CkpServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    removed = {path_of(f.uri) for f in params.event.removed}
    folders = [f for f in ls.state.folders if f not in removed]
    folders += [p.resolve() for f in params.event.added if (p := path_of(f.uri)) is not None]
    ls.state.folders = folders
    ls.hold()
    await _held_reindex(ls)


# --- documents --------------------------------------------------------------------------------


def _changed(ls: CkpServer, uri: str, dirty: Dirty) -> None:
    """Publish the document itself now and its dependents after the debounce."""
    doc = ls.doc_at(uri)
    if doc is None:
        return
    ls.publisher.now([doc])
    dirty.files.discard((doc.bank.root, doc.rel))
    if doc.is_index:
        dirty.indexes.discard(doc.bank.root)
    if dirty:
        ls.publisher.later(dirty)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded()
def did_open(ls: CkpServer, params: types.DidOpenTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None:
        return
    dirty = ls.state.opened(path.resolve(), params.text_document.text.removeprefix(BOM))
    if ls.publisher.pull:
        ls.publisher.clear(params.text_document.uri)
    _changed(ls, params.text_document.uri, dirty)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded()
def did_change(ls: CkpServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = path_of(uri)
    if path is None:
        return
    text = ls.workspace.get_text_document(uri).source
    _changed(ls, uri, ls.state.changed(path.resolve(), text.removeprefix(BOM)))


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded()
def did_close(ls: CkpServer, params: types.DidCloseTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None:
        return
    dirty = ls.state.closed(path.resolve())
    _log_skipped(ls, dirty)
    doc = ls.doc_at(params.text_document.uri)
    if doc is not None:
        dirty.files.add((doc.bank.root, doc.rel)) if not doc.is_index else dirty.indexes.add(doc.bank.root)
        if not doc.is_index and doc.file is None:  # deleted on disk while it was open
            ls.publisher.clear(params.text_document.uri)
    ls.publisher.later(dirty)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@guarded()
def did_save(ls: CkpServer, params: types.DidSaveTextDocumentParams) -> None:
    from .features import index_upkeep

    index_upkeep.on_save(ls, params.text_document.uri)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guarded()
def did_change_watched(ls: CkpServer, params: types.DidChangeWatchedFilesParams) -> None:
    created: list[Path] = []
    changed: list[Path] = []
    deleted: list[Path] = []
    for change in params.changes:
        path = path_of(change.uri)
        if path is None:
            continue
        kind = change.type
        (
            created
            if kind == types.FileChangeType.Created
            else deleted
            if kind == types.FileChangeType.Deleted
            else changed
        ).append(path)
    _apply_disk_events(ls, (created, changed, deleted))


def _apply_disk_events(ls: CkpServer, events: Events) -> None:
    if ls.holds or not ls.indexed.is_set():
        # The banks are being read: applied to the old ones, these would be lost when the new
        # ones replace them.
        ls.postponed.append(events)
        return
    created, changed, deleted = events
    if any(p.name == ".ckp.toml" for group in events for p in group) or any(
        p.name == "_index.md" and ls.state.bank_for(p) is None for p in created
    ):
        ls.hold()
        ls.spawn(_held_reindex(ls))
        return
    dirty = Dirty()
    # The folder is resolved, not the file: a symlinked file is the bank's own entry (and one
    # leading outside the bank is skipped, and said so).
    for path in [*created, *changed]:
        dirty.update(ls.state.disk_changed(path.parent.resolve() / path.name))
    for path in deleted:
        path = path.parent.resolve() / path.name
        doc = ls.state.doc(path)
        dirty.update(ls.state.disk_deleted(path))
        if doc is not None and not doc.is_index and doc.file is None:  # an open one stays
            ls.publisher.clear(uri_of(path))
    _log_skipped(ls, dirty)
    if dirty:
        ls.publisher.later(dirty)


# --- pulled diagnostics -----------------------------------------------------------------------


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="ckp", inter_file_dependencies=True, workspace_diagnostics=True),
)
@guarded(types.RelatedFullDocumentDiagnosticReport(items=[]))
async def document_diagnostic(
    ls: CkpServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    await ls.ready.wait()
    doc = ls.doc_at(params.text_document.uri)
    if doc is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    from .diagnostics import result_id

    items = ls.publisher.diagnostics(doc)
    rid = result_id(items)
    if params.previous_result_id == rid:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
    return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)


@server.feature(types.WORKSPACE_DIAGNOSTIC)
@guarded(types.WorkspaceDiagnosticReport(items=[]))
async def workspace_diagnostic(
    ls: CkpServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    await ls.ready.wait()
    from .diagnostics import result_id

    if not ls.publisher.workspace_pull:
        ls.publisher.workspace_pull = True
        ls.publisher.clear_all()
    previous = {p.uri: p.value for p in params.previous_result_ids}
    items: list[types.WorkspaceDocumentDiagnosticReport] = []
    for doc in ls.state.all_docs():
        uri = uri_of(doc.bank.root / doc.rel)
        diags = ls.publisher.diagnostics(doc)
        if not diags and uri not in previous:
            continue
        rid = result_id(diags)
        version = ls._version_of(uri)
        if previous.get(uri) == rid:
            items.append(
                types.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, version=version, result_id=rid)
            )
        else:
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, version=version, items=diags, result_id=rid
                )
            )
    return types.WorkspaceDiagnosticReport(items=items)


# --- code actions and commands ---------------------------------------------------------------


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.RefactorRewrite,
            types.CodeActionKind.Source,
            "source.fixAll.ckp",
        ]
    ),
)
@guarded([])
async def code_action(ls: CkpServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    await ls.ready.wait()
    from .features import actions

    uri = params.text_document.uri
    doc = ls.doc_at(uri)
    if doc is None:
        return []
    only = params.context.only
    opened = ls.workspace.text_documents.get(uri)
    version = opened.version if opened is not None else None
    if doc.is_index:
        return actions.regenerate_index(doc.bank, params.context.diagnostics)
    text = opened.source if opened is not None else ""
    offline = doc.bank.config.llm.provider == "offline"
    out: list[types.CodeAction] = []
    if not only or any(k.startswith("quickfix") for k in only):
        out += actions.quick_fixes(doc.bank, doc.rel, uri, version, params.context.diagnostics, offline, text)
    if not only or any("source.fixAll".startswith(k) or k.startswith("source.fixAll") for k in only):
        fix = actions.fix_all(doc.bank, doc.rel, uri, version, text)
        if fix is not None:
            out.append(fix)
    if not only or any(
        k.startswith(("refactor", "source")) and not k.startswith("source.fixAll") for k in only
    ):
        recompile = actions.recompile_action(doc.bank, doc.rel, uri, text, params.range.start.line, offline)
        out += [recompile] if recompile is not None else []
        out += actions.regenerate_index(doc.bank)
    return out


@server.command("ckp.recompile")
async def cmd_recompile(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.ready.wait()
    from .features.recompile import recompile

    uri = _uri_arg(args)
    if uri is None:
        return {"applied": False, "reason": "no document given"}
    task = ls.spawn(recompile(ls, uri))
    try:
        return await task
    except asyncio.CancelledError:
        return {"applied": False, "reason": "cancelled"}


@server.command("ckp.regenerateIndex")
@guarded({"applied": False})
async def cmd_regenerate_index(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.ready.wait()
    from .features.index_upkeep import index_edit

    uri = _uri_arg(args)
    doc = ls.doc_at(uri) if uri else None
    banks = [doc.bank] if doc is not None else list(ls.state.banks.values())
    applied = False
    for bank in banks:
        edit = index_edit(bank)
        if edit is not None:
            result = await ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label="Regenerate CKP index")
            )
            applied = applied or bool(result.applied)
    return {"applied": applied}


@server.command("ckp.route")
@guarded({})
async def cmd_route(ls: CkpServer, *args: Any) -> dict[str, Any]:
    await ls.ready.wait()
    from ..core.route import Router

    arg = args[0] if args else {}
    if isinstance(arg, str):
        arg = {"query": arg}
    query = str(arg.get("query", ""))
    uri = arg.get("bank") or arg.get("uri")
    doc = ls.doc_at(uri) if isinstance(uri, str) else None
    bank = doc.bank if doc is not None else next(iter(ls.state.banks.values()), None)
    if bank is None:
        return {"error": "no memory bank in this workspace"}
    cached = ls.routers.get(bank.root)
    if cached is None or cached[0] != ls.state.version:
        cached = (ls.state.version, Router(bank))  # rebuilt only after a change
        ls.routers[bank.root] = cached
    result = cached[1].route(query).as_dict()
    result["bank"] = uri_of(bank.root)
    for entry in result.get("loaded", []):
        entry["uri"] = uri_of(bank.root / entry["file"])
    return result


def _uri_arg(args: tuple[Any, ...]) -> str | None:
    """A document URI from command arguments: ``"file://…"``, ``{"uri": …}`` or ``[…]``."""
    for a in args:
        if isinstance(a, str):
            return a
        if isinstance(a, dict) and isinstance(a.get("uri"), str):
            return str(a["uri"])
        if isinstance(a, list) and a:
            return _uri_arg(tuple(a))
    return None


# --- navigation, rename, symbols --------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded(None)
def goto_definition(ls: CkpServer, params: types.DefinitionParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    from .features.definition import definition

    doc = ls.doc_at(params.text_document.uri)
    return definition(doc, params.position.line, params.position.character) if doc else None


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
@guarded(None)
def find_references(ls: CkpServer, params: types.ReferenceParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    from .features.references import references

    doc = ls.doc_at(params.text_document.uri)
    pos, declaration = params.position, params.context.include_declaration
    return references(doc, pos.line, pos.character, declaration) if doc else None


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
@guarded(None)
async def prepare_rename(
    ls: CkpServer, params: types.PrepareRenameParams
) -> types.PrepareRenameResult | None:
    await ls.ready.wait()
    from .features import rename

    doc = ls.doc_at(params.text_document.uri)
    return rename.prepare_rename(doc, params.position.line, params.position.character) if doc else None


@server.feature(types.TEXT_DOCUMENT_RENAME)
@guarded(None)
async def rename_concept(ls: CkpServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    await ls.ready.wait()
    from .features import rename

    doc = ls.doc_at(params.text_document.uri)
    if doc is None:
        return None
    pos = params.position
    return rename.rename(
        doc, pos.line, pos.character, params.new_name, ls.client_capabilities, ls._version_of
    )


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
@guarded([])
async def document_link(ls: CkpServer, params: types.DocumentLinkParams) -> list[types.DocumentLink]:
    await ls.ready.wait()
    from .features.links import document_links

    doc = ls.doc_at(params.text_document.uri)
    tooltips = ls.supports("text_document.document_link.tooltip_support")
    return document_links(doc, tooltips) if doc else []


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded([])
async def document_symbol(
    ls: CkpServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
    await ls.ready.wait()
    from .features.symbols import document_symbols, flatten

    uri = params.text_document.uri
    doc = ls.doc_at(uri)
    text = ls.source_of(uri, doc) if doc is not None else None
    if doc is None or text is None:
        return []
    symbols = document_symbols(doc, text)
    hierarchical = ls.supports("text_document.document_symbol.hierarchical_document_symbol_support")
    return symbols if hierarchical else flatten(symbols, uri)


@server.feature(types.WORKSPACE_SYMBOL)
@guarded([])
async def workspace_symbol(ls: CkpServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    await ls.ready.wait()
    from .features.symbols import workspace_symbols

    return workspace_symbols(ls.state.banks.values(), params.query)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
@guarded([])
async def code_lens(ls: CkpServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    await ls.ready.wait()
    from .features.lens import code_lenses

    doc = ls.doc_at(params.text_document.uri)
    return code_lenses(doc) if doc else []


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
@guarded([])
async def folding_range(ls: CkpServer, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
    await ls.ready.wait()
    from .features.folding import folding_ranges

    uri = params.text_document.uri
    doc = ls.doc_at(uri)
    text = ls.source_of(uri, doc) if doc is not None else None
    return folding_ranges(doc, text) if doc is not None and text is not None else []


# --- completion and hover ---------------------------------------------------------------------


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=[",", " ", ":"], resolve_provider=True),
)
@guarded(None)
def completion(ls: CkpServer, params: types.CompletionParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    from ..core.dates import current_month
    from ..core.text import split_lines
    from .features.completion import complete

    uri, at = params.text_document.uri, params.position
    doc = ls.doc_at(uri)
    text = ls.source_of(uri, doc) if doc is not None else None
    if doc is None or doc.is_index or text is None:
        return None
    lines = split_lines(text)
    return complete(doc.bank, doc.file, lines, at.line, at.character, current_month(), _resolves(ls))


def _resolves(ls: CkpServer) -> bool:
    """Whether the client resolves a completion item's documentation when it shows it."""
    caps = ls.client_capabilities.text_document
    support = caps.completion.completion_item if caps and caps.completion else None
    resolved = support.resolve_support if support else None
    return resolved is not None and "documentation" in resolved.properties


@server.feature(types.COMPLETION_ITEM_RESOLVE)
@guarded(UNCHANGED)
def completion_resolve(ls: CkpServer, item: types.CompletionItem) -> types.CompletionItem:
    from .features.completion import resolve

    data = item.data
    root = data.get("bank") if isinstance(data, dict) else None
    return resolve(ls.state.banks.get(Path(root)) if isinstance(root, str) else None, item)


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded(None)
def hover(ls: CkpServer, params: types.HoverParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    from .features.hover import hover_in

    doc = ls.doc_at(params.text_document.uri)
    return hover_in(doc.bank, doc.rel, params.position.line, params.position.character) if doc else None
