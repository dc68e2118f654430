"""The editor's documents: opened, changed, saved and closed, and files changed on disk."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ckp_lsp.core.format.text import BOM

from .convert import path_of
from .server import CkpServer, guarded, table
from .state import Dirty


def _changed(ls: CkpServer, uri: str, dirty: Dirty) -> None:
    """Publish the document itself now and its dependents after the debounce."""
    doc = ls.session.doc_at(uri)
    if doc is None:
        return
    ls.publisher.now([doc])
    dirty.files.discard((doc.bank.root, doc.rel))
    if doc.is_index:
        dirty.indexes.discard(doc.bank.root)
    if dirty:
        ls.publisher.later(dirty)


@table.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded()
def did_open(ls: CkpServer, params: types.DidOpenTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None:
        return
    item = params.text_document
    text, state = item.text, ls.session.state
    dirty = state.opened(path.resolve(), text.removeprefix(BOM), text.startswith(BOM), item.uri, item.version)
    if ls.publisher.pull:
        ls.publisher.clear(item.uri)
    _changed(ls, item.uri, dirty)
    outside = state.bank_outside(path)
    if outside is not None:
        ls.spawn(ls.indexer.read_outside(outside))


@table.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded()
def did_change(ls: CkpServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = path_of(uri)
    if path is None:
        return
    # pygls applied the changes to its buffer: the new text is taken from there, once
    text = ls.workspace.get_text_document(uri).source
    version = params.text_document.version
    dirty = ls.session.state.changed(
        path.resolve(), text.removeprefix(BOM), text.startswith(BOM), uri, version
    )
    _changed(ls, uri, dirty)


@table.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded()
def did_close(ls: CkpServer, params: types.DidCloseTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is None:
        return
    dirty = ls.session.state.closed(path.resolve())
    ls.indexer.log_skipped(dirty)
    doc = ls.session.doc_at(params.text_document.uri)
    if doc is not None:
        dirty.files.add((doc.bank.root, doc.rel)) if not doc.is_index else dirty.indexes.add(doc.bank.root)
        if not doc.is_index and doc.file is None:  # deleted on disk while it was open
            ls.publisher.gone(params.text_document.uri)
    ls.publisher.later(dirty)


@table.feature(types.TEXT_DOCUMENT_DID_SAVE)
@guarded()
async def did_save(ls: CkpServer, params: types.DidSaveTextDocumentParams) -> None:
    from .handlers.index_upkeep import on_save

    uri = params.text_document.uri
    on_save(ls, uri)
    path = path_of(uri)
    doc = ls.session.doc_at(uri)
    if path is not None and doc is not None and not doc.is_index:
        # Git mode: the saved text is no uncommitted edit any more, and git may say otherwise
        # than before; the dates are read on a worker thread, then the documents re-checked.
        await ls.indexer.refresh_dates(doc.bank, saved=path.resolve())


@table.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
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
    ls.indexer.apply_disk_events((created, changed, deleted))
