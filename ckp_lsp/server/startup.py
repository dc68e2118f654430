"""Start-up and the server's life: initialize, settings, workspace folders, the first indexing,
shutdown."""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.project.discovery import INDEX_NAME
from ckp_lsp.core.project.within import escape

from .. import __version__
from . import early, native, pygls_compat
from .client import ClientCapabilities, Settings
from .convert import path_of
from .server import CkpServer, table
from .state import Doc, settings_of
from .watch import diff, scan


@table.feature(types.INITIALIZE)
def initialize(ls: CkpServer, params: types.InitializeParams) -> None:
    folders = [path_of(f.uri) for f in params.workspace_folders or []]
    if not folders and params.root_uri:
        folders = [path_of(params.root_uri)]
    if not folders and params.root_path:
        folders = [Path(params.root_path)]
    session = ls.session
    session.state.folders = _kept(ls, [f for f in folders if f is not None])
    session.caps = ClientCapabilities.of(params.capabilities, params.initialization_options)
    options = params.initialization_options
    if isinstance(options, dict):
        session.settings = Settings(initial=settings_of(options))
    # Settings given here are those the client answers with later (VS Code's are): the banks are
    # read with them at once. Without them, the client's answer is waited for first.
    ls.indexer.settings_known = not session.caps.configuration or (
        isinstance(options, dict) and (isinstance(options.get("ckp"), dict) or bool(settings_of(options)))
    )
    ls.publisher.on_counts = lambda counts: ls.protocol.notify("ckp/status", counts)
    _choose_pull_or_push(ls)
    if params.process_id:
        _watch_parent(ls, params.process_id)


def _kept(ls: CkpServer, folders: list[Path]) -> list[Path]:
    """The workspace folders resolved, without those reached through a symbolic link that leads out
    of their project (each said in ``state.refused``, shown as the banks' problems are)."""
    kept = []
    for folder in folders:
        why = escape(folder)
        if why is None:
            kept.append(folder.resolve())
        elif why not in ls.session.state.refused:
            ls.session.state.refused.append(why)
    return kept


def _choose_pull_or_push(ls: CkpServer) -> None:
    """Pulled diagnostics for a client that pulls and can be told to pull again; pushed otherwise.

    A change in one file changes other files' findings. A client that pulls only when its own
    document changes (Neovim 0.10 and 0.11 have no ``workspace/diagnostic/refresh``) would never
    see those in its other open documents: it is not offered pull, and gets every finding pushed.
    """
    caps = ls.session.caps
    if not caps.pull_diagnostics:
        return
    if not caps.diagnostic_refresh and pygls_compat.withhold(ls, "diagnostic_provider"):
        return
    ls.publisher.pull = True
    if caps.diagnostic_refresh:

        def refresh() -> None:
            ls.workspace_diagnostic_refresh(None)

        ls.publisher.on_refresh = refresh


def _watch_parent(ls: CkpServer, pid: int) -> None:
    """Exit when the editor that started the server is gone (it may die without shutdown): with
    code 1, as LSP says, unless it asked for shutdown first."""

    def run() -> None:
        while True:
            threading.Event().wait(3)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(0 if pygls_compat.shut_down_cleanly(ls) else 1)
            except PermissionError:
                pass

    threading.Thread(target=run, name="ckp-parent-watch", daemon=True).start()


@table.feature(types.INITIALIZED)
async def initialized(ls: CkpServer, params: types.InitializedParams) -> None:
    # The banks are read while the client answers both requests (a busy editor answers each
    # late): with the settings given at ``initialize``, read again if the answer changes them; a
    # change on disk before the watchers are registered is found by comparing the disk before and
    # after (``_index_workspace``).
    settings = ls.spawn(pull_settings(ls, ls.session.settings))
    watchers = ls.spawn(_watch_files(ls))
    ls.spawn(_index_workspace(ls, settings, watchers))


async def pull_settings(ls: CkpServer, asked: Settings | None = None) -> None:
    """Ask the client for the ``ckp`` settings (``workspace/configuration``). The answer is taken
    only if the settings are still ``asked`` (the ones in effect when the question was decided on,
    by default now): settings the client sent meanwhile (``workspace/didChangeConfiguration``) are
    newer than the answer to a question asked before them."""
    session = ls.session
    if not session.caps.configuration:
        return
    if asked is None:
        asked = session.settings
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
    if result and isinstance(result[0], dict) and session.settings is asked:
        session.settings = asked.with_client(result[0])


async def _watch_files(ls: CkpServer) -> None:
    if ls.session.caps.watcher_registration:
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
    ls.indexer.watch()


async def _index_workspace(
    ls: CkpServer, settings: asyncio.Future[None], watchers: asyncio.Future[None]
) -> None:
    """Find and load every bank in the background, reporting progress, then publish; once the
    client answered for its ``settings`` and its ``watchers``."""
    indexer = ls.indexer
    token = f"ckp-index-{id(ls)}"
    started = time.perf_counter()
    if not indexer.settings_known:
        await settings  # reading the banks with other settings than the client's would be lost
        indexer.settings_known = True
    early.publish_open(ls)
    # the banks are looked for while the client creates the progress token (reported once begun)
    progress = False
    created = (
        asyncio.ensure_future(ls.work_done_progress.create_async(token))
        if ls.session.caps.work_done_progress
        else None
    )
    try:
        roots = await asyncio.to_thread(ls.session.state.discover)
        if created is not None:
            try:
                await created
                ls.work_done_progress.begin(
                    token, types.WorkDoneProgressBegin(title="Indexing CKP banks", percentage=0)
                )
                progress = True
            except Exception:
                pass
        await indexer.rebase_poller(roots)
        # What the disk holds before it is read, while the client's watchers may not watch yet
        before = None if watchers.done() else await asyncio.to_thread(scan, roots)
        read_with = dict(ls.session.settings.values)
        banks = await _read_banks(ls, roots, token if progress else None)
        await settings
        if ls.session.settings.values != read_with:  # the client's answer changed what is checked
            ls.session.state.forget()
            early.publish_open(ls)
            roots = await asyncio.to_thread(ls.session.state.discover)
            await indexer.rebase_poller(roots)
            if before is not None:
                before = await asyncio.to_thread(scan, roots)
            banks = await _read_banks(ls, roots, token if progress else None)
        try:
            await asyncio.wait_for(asyncio.shield(watchers), timeout=5)
        except asyncio.TimeoutError:
            ls.log("ckp-lsp: the client did not answer the file watchers' registration within 5 s")
        if before is not None:
            # Changed before the watchers watched: applied once the banks are (``first_done``).
            changes = diff(before, await asyncio.to_thread(scan, roots))
            if any(changes):
                indexer.postponed.append(changes)
        ls.session.state.reload_all(banks)
        indexer.log_banks(banks)
        ls.publisher.clear_all(keep=ls.publisher.early_targets())
        ls.publisher.publish_all(ls.session.state.all_docs())
        ls.publisher.settle_early(lambda uri: ls.session.doc_at(uri) is not None)
        took = (time.perf_counter() - started) * 1000
        ls.log(f"ckp-lsp: {len(banks)} bank{'s' * (len(banks) != 1)} read and checked in {took:.0f} ms")
        # Findings that came with the banks: what checking builds on the way (the index's table)
        # is built once now, rather than by the first edit.
        ls.spawn(_warm_up(ls, index=ls.session.state.forget()))
    finally:
        ls.session.state.forget()
        indexer.first_done()
        ls.spawn(_report_start(ls))
        ls.spawn(indexer.follow_the_day())
        if progress:
            n = sum(len(b.files) for b in ls.session.state.banks.values())
            ls.work_done_progress.end(
                token, types.WorkDoneProgressEnd(message=f"{n} knowledge files indexed")
            )


async def _read_banks(ls: CkpServer, roots: list[Path], token: str | None) -> list[Bank]:
    """Each bank of ``roots`` read through its cache, its findings known; progress reported on
    ``token``."""
    banks = []
    for i, root in enumerate(roots):
        config = ls.session.state.config_for(root)
        bank, found, cached = await asyncio.to_thread(ls.session.state.read_bank, root, config)
        if found is not None:
            ls.log(f"ckp-lsp: {root}: {len(bank.files)} files, {cached} files from the cache")
            ls.session.state.know(bank, found)
        banks.append(bank)
        if token is not None:
            pct = int(100 * (i + 1) / max(len(roots), 1))
            ls.work_done_progress.report(
                token,
                types.WorkDoneProgressReport(message=f"{root.name}: {len(bank.files)} files", percentage=pct),
            )
    return banks


async def _report_start(ls: CkpServer) -> None:
    """The start-up log's lines on the interpreter, its compiled modules and the language libraries,
    once the first findings are out: finding out imports YAML, RapidFuzz and the language libraries
    on a worker thread (tenths of a second on a busy machine), which the first findings do not wait
    for."""
    compiled = await asyncio.to_thread(native.compiled)
    ls.log(f"ckp-lsp {__version__}: {native.describe(compiled)}", types.MessageType.Info)
    # The same, for a client that reports on the build it bundles (VS Code's): which compiled
    # modules load, without a second interpreter started for it while the server starts.
    ls.protocol.notify("ckp/native", compiled)
    if ls.import_seconds:
        ls.log(f"ckp-lsp: the server's modules imported in {ls.import_seconds * 1000:.0f} ms")
    languages = await asyncio.to_thread(native.describe_languages)
    if languages:
        ls.log(f"ckp-lsp: {languages}", types.MessageType.Warning)


#: what the requests after the first findings need that the start does not import: the features'
#: modules (the router alone is tens of milliseconds), and completion's fuzzy matcher
FEATURES = (
    "ckp_lsp.server.features.hover",
    "ckp_lsp.server.features.definition",
    "ckp_lsp.server.features.references",
    "ckp_lsp.server.features.folding",
    "ckp_lsp.server.features.links",
    "ckp_lsp.server.features.rename",
    "ckp_lsp.server.features.index_upkeep",
    "ckp_lsp.core.routing.ranked",
    "ckp_lsp.server.features.completion",
)


async def _warm_up(ls: CkpServer, index: bool) -> None:
    """Once the banks are read: what the first requests would otherwise wait for."""
    await ls.indexer.ready.wait()
    # Imported on a thread: not at start, which they would slow, nor on the event loop.
    for name in FEATURES:
        await asyncio.to_thread(importlib.import_module, name)
    if index:
        for bank in list(ls.session.state.banks.values()):
            await asyncio.sleep(0)  # a request that came meanwhile first
            ls.session.state.findings(Doc(bank, INDEX_NAME))
    # What was built since the banks were read (the index's drift table, the published findings)
    # lives as long as they do: out of the collector's sight, as they are (see ``reload_all``), a
    # full collection no longer walks it while requests wait (tens of milliseconds at 100,000 files).
    gc.freeze()


@table.feature(types.SHUTDOWN)
async def shutdown(ls: CkpServer, params: None) -> None:
    ls.closing = True
    if ls.indexer.poller is not None:
        ls.indexer.poller.stop()
    # Only if a model was ever asked: importing the providers here would slow every shutdown.
    providers = sys.modules.get("ckp_lsp.faces.llm.command")
    if providers is not None:
        providers.stop_commands()  # a model still thinking is not waited for
    for task in list(ls.tasks):
        task.cancel()
    if ls.tasks:
        await asyncio.wait(list(ls.tasks), timeout=2)


@table.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: CkpServer, params: types.DidChangeConfigurationParams) -> None:
    indexer = ls.indexer
    indexer.hold()
    try:
        session = ls.session
        before = session.settings.values
        settings: Any = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("ckp"), dict):
            session.settings = session.settings.with_client(settings["ckp"])
        else:
            await pull_settings(ls)
        await indexer.indexed.wait()
        if session.settings.values != before or not settings:
            await indexer.reindex()
    finally:
        indexer.release()


@table.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_folders(ls: CkpServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    removed = {path_of(f.uri) for f in params.event.removed}
    folders = [f for f in ls.session.state.folders if f not in removed]
    folders += _kept(ls, [p for f in params.event.added if (p := path_of(f.uri)) is not None])
    ls.session.state.folders = folders
    ls.indexer.hold()
    await ls.indexer.held_reindex()
