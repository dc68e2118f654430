"""The language server: thin handlers over the core and the feature modules.

State has one owner (``WorkspaceState``), changed only on the event loop; features read it.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..core.text import BOM
from .convert import path_of, uri_of
from .diagnostics import Publisher
from .state import Dirty, Doc, WorkspaceState
from .watch import Events, Poller

# The core counts columns in UTF-16 code units, which every client must support.
ServerCapabilitiesBuilder.choose_position_encoding = classmethod(  # type: ignore[method-assign,assignment]
    lambda cls, caps: types.PositionEncodingKind.Utf16
)

F = TypeVar("F", bound=Callable[..., Any])


class CkpServer(LanguageServer):
    """pygls server with the workspace state and the diagnostics publisher."""

    def __init__(self) -> None:
        super().__init__("ckp-lsp", __version__)
        self.state = WorkspaceState()
        self.publisher = Publisher(self.state, self.text_document_publish_diagnostics, self._version_of)
        self.ready = asyncio.Event()
        self.poller: Poller | None = None
        self.init_options: dict[str, Any] = {}
        self.closing = False
        self.tasks: set[asyncio.Task[Any]] = set()

    def _version_of(self, uri: str) -> int | None:
        doc = self.workspace.text_documents.get(uri)
        return doc.version if doc is not None else None

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def doc_at(self, uri: str) -> Doc | None:
        path = path_of(uri)
        return self.state.doc(path) if path is not None else None

    def supports(self, dotted: str) -> bool:
        """Whether the client declares the capability at ``dotted`` (e.g. ``window.work_done_progress``)."""
        node: Any = self.client_capabilities
        for part in dotted.split("."):
            node = getattr(node, part, None)
            if node is None:
                return False
        return bool(node)

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


server = CkpServer()


def guarded(default: Any = None) -> Callable[[F], F]:
    """A failing feature is logged and answers ``default``: the server keeps serving."""

    def wrap(fn: F) -> F:
        def report(ls: CkpServer, exc: BaseException) -> None:
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=6))
            ls.log(f"ckp-lsp: {fn.__name__} failed: {exc}\n{detail}", types.MessageType.Error)

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(ls: CkpServer, *args: Any) -> Any:
                try:
                    return await fn(ls, *args)
                except Exception as exc:
                    report(ls, exc)
                    return default

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(ls: CkpServer, *args: Any) -> Any:
            try:
                return fn(ls, *args)
            except Exception as exc:
                report(ls, exc)
                return default

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
    options = params.initialization_options
    if isinstance(options, dict):
        ls.init_options = options.get("ckp", options) if isinstance(options.get("ckp"), dict) else options
        ls.state.settings = dict(ls.init_options)
    ls.publisher.pull = ls.supports("text_document.diagnostic")
    ls.publisher.on_counts = lambda counts: ls.protocol.notify("ckp/status", counts)
    if ls.publisher.pull and ls.supports("workspace.diagnostics.refresh_support"):
        ls.publisher.on_refresh = lambda: ls.workspace_diagnostic_refresh(None)
    if params.process_id:
        _watch_parent(params.process_id)


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
    if result and isinstance(result[0], dict):
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
        banks = []
        for i, root in enumerate(roots):
            config = ls.state.config_for(root)
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
        for bank in banks:
            for problem in bank.config.problems:
                ls.log(f"ckp-lsp: configuration: {problem}", types.MessageType.Warning)
            for rel, why in bank.unreadable.items():
                ls.log(
                    f"ckp-lsp: {bank.root / rel} cannot be read ({why}), skipped", types.MessageType.Warning
                )
        ls.publisher.clear_all()
        ls.publisher.publish_all(ls.state.all_docs())
    finally:
        ls.ready.set()
        if progress:
            n = sum(len(b.files) for b in ls.state.banks.values())
            ls.work_done_progress.end(
                token, types.WorkDoneProgressEnd(message=f"{n} knowledge files indexed")
            )


@server.feature(types.SHUTDOWN)
async def shutdown(ls: CkpServer, params: None) -> None:
    ls.closing = True
    if ls.poller is not None:
        ls.poller.stop()
    for task in list(ls.tasks):
        task.cancel()
    if ls.tasks:
        await asyncio.wait(list(ls.tasks), timeout=2)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: CkpServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings
    if isinstance(settings, dict) and isinstance(settings.get("ckp"), dict):
        ls.state.settings = {**ls.init_options, **settings["ckp"]}
    else:
        await _pull_settings(ls)
    await ls.ready.wait()
    await _reindex(ls)


async def _reindex(ls: CkpServer) -> None:
    roots = await asyncio.to_thread(ls.state.discover)
    banks = [await asyncio.to_thread(ls.state.load_bank, r, ls.state.config_for(r)) for r in roots]
    ls.publisher.clear_all()
    ls.state.reload_all(banks)
    ls.publisher.publish_all(ls.state.all_docs())


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_folders(ls: CkpServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    removed = {path_of(f.uri) for f in params.event.removed}
    folders = [f for f in ls.state.folders if f not in removed]
    folders += [p.resolve() for f in params.event.added if (p := path_of(f.uri)) is not None]
    ls.state.folders = folders
    await ls.ready.wait()
    await _reindex(ls)


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
    doc = ls.doc_at(params.text_document.uri)
    if doc is not None:
        dirty.files.add((doc.bank.root, doc.rel)) if not doc.is_index else dirty.indexes.add(doc.bank.root)
    ls.publisher.later(dirty)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@guarded()
def did_save(ls: CkpServer, params: types.DidSaveTextDocumentParams) -> None:
    from .features import index_upkeep

    index_upkeep.on_save(ls, params.text_document.uri)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guarded()
def did_change_watched(ls: CkpServer, params: types.DidChangeWatchedFilesParams) -> None:
    created, changed, deleted = [], [], []
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
    created, changed, deleted = events
    if any(p.name == ".ckp.toml" for group in events for p in group) or any(
        p.name == "_index.md" and ls.state.bank_for(p) is None for p in created
    ):
        ls.spawn(_reindex(ls))
        return
    dirty = Dirty()
    for path in [*created, *changed]:
        dirty.update(ls.state.disk_changed(path.resolve()))
    for path in deleted:
        doc = ls.state.doc(path.resolve())
        dirty.update(ls.state.disk_deleted(path.resolve()))
        if doc is not None and not doc.is_index:
            ls.publisher.clear(uri_of(path.resolve()))
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


# --- completion and hover ---------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[",", " ", ":"]))
@guarded(None)
async def completion(ls: CkpServer, params: types.CompletionParams) -> types.CompletionList | None:
    await ls.ready.wait()
    from ..core.dates import current_month
    from ..core.text import split_lines
    from .features.completion import complete

    uri, at = params.text_document.uri, params.position
    doc = ls.doc_at(uri)
    if doc is None or doc.is_index:
        return None
    lines = split_lines(ls.workspace.get_text_document(uri).source.removeprefix(BOM))
    return complete(doc.bank, doc.file, lines, at.line, at.character, current_month())


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded(None)
async def hover(ls: CkpServer, params: types.HoverParams) -> types.Hover | None:
    await ls.ready.wait()
    from .features.hover import hover as hover_at

    doc = ls.doc_at(params.text_document.uri)
    kf = doc.file if doc is not None else None
    return hover_at(doc.bank, kf, params.position.line, params.position.character) if doc and kf else None
