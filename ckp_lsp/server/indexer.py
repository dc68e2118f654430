"""Reading the banks and keeping them current with the disk and the day; whether requests may
answer yet."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.dates import CkpDate

from ..faces import clock
from ..faces.poller import Poller
from .convert import uri_of
from .diagnostics import Publisher
from .state import Dirty, WorkspaceState
from .watch import Events, poller, scan

#: says a message to the user: in the log, or in a window
Say = Callable[[str, types.MessageType], None]

#: how often the clock is asked whether the day changed (seconds): a date of the banks that was in
#: the future is no longer, at the latest this long after midnight
DAY_CHECK = 60.0


class Indexer:
    """The readiness of the banks: read at all, current, or being read again.

    Requests wait for ``ready``; disk events that come while the banks are being read are kept
    and applied once they are (applied to the old banks they would be lost with them).
    """

    def __init__(
        self,
        state: WorkspaceState,
        publisher: Publisher,
        log: Say,
        show: Say,
        spawn: Callable[[Coroutine[Any, Any, Any]], asyncio.Task[Any]],
        closing: Callable[[], bool],
        today: Callable[[], CkpDate] = clock.today,
    ) -> None:
        self._state = state
        self._publisher = publisher
        self._log, self._show = log, show
        self._spawn = spawn
        self._closing = closing  # whether the server is shutting down
        self._today = today
        self.ready = asyncio.Event()  # the banks are read and current: requests may answer
        self.indexed = asyncio.Event()  # the first indexing is done
        # the settings the banks are read with are known (given at ``initialize``, or answered)
        self.settings_known = False
        self.holds = 0  # re-indexings under way; requests wait for them
        self.postponed: list[Events] = []  # disk events waiting for the banks being read
        self.poller: Poller[str] | None = None  # watches the disk when the client cannot
        self.told: set[str] = set()  # configuration problems the user has been shown
        self._date_reads: dict[Path, int] = {}  # bank root -> the last read of its commit dates
        self._saved: dict[Path, set[Path]] = {}  # bank root -> documents saved since that read began

    # --- readiness ------------------------------------------------------------------------------

    def hold(self) -> None:
        """Make requests wait: the banks are about to be re-read."""
        self.holds += 1
        self.ready.clear()

    def release(self) -> None:
        self.holds -= 1
        if self.holds == 0 and self.indexed.is_set():
            self._become_ready()

    def first_done(self) -> None:
        """The first indexing is over (done or failed): requests may answer."""
        self.indexed.set()
        if self.holds == 0:
            self._become_ready()

    def _become_ready(self) -> None:
        self.ready.set()
        postponed, self.postponed = self.postponed, []
        for events in postponed:
            self.apply_disk_events(events)

    # --- the disk -------------------------------------------------------------------------------

    def apply_disk_events(self, events: Events) -> None:
        """Files created, changed and deleted on disk, applied to the banks."""
        state, publisher = self._state, self._publisher
        if self.holds or not self.indexed.is_set():
            self.postponed.append(events)
            return
        created, changed, deleted = events
        if any(p.name == ".ckp.toml" for group in events for p in group) or any(
            p.name == "_index.md" and state.bank_for(p) is None for p in created
        ):
            self.hold()
            self._spawn(self.held_reindex())
            return
        dirty = Dirty()
        # The folder is resolved, not the file: a symlinked file is the bank's own entry (and one
        # leading outside the bank is skipped, and said so).
        for path in [*created, *changed]:
            dirty.update(state.disk_changed(path.parent.resolve() / path.name))
        for path in deleted:
            path = path.parent.resolve() / path.name
            doc = state.doc(path)
            dirty.update(state.disk_deleted(path))
            if doc is not None and not doc.is_index and doc.file is None:  # an open one stays
                publisher.gone(uri_of(path))
        self.log_skipped(dirty)
        if dirty:
            publisher.later(dirty)
        # What git reports moved with the disk (an open document's file too, which the editor
        # reloads): git mode reads the commit dates again.
        touched = {state.bank_for(p.parent.resolve() / p.name) for group in events for p in group}
        for bank in touched:
            if bank is not None and bank.config.staleness == "git":
                self._spawn(self.refresh_dates(bank))

    async def refresh_dates(self, bank: Bank, saved: Path | None = None) -> None:
        """Git mode: read the bank's commit dates again on a worker thread, never on the event loop
        (git can take a while), then re-check the documents they change; after ``saved`` was
        written to disk or the disk changed. The checks use the dates known until then."""
        if bank.config.staleness != "git" or bank.dates is None:
            return
        root, source = bank.root, bank.dates
        if saved is not None:
            self._saved.setdefault(root, set()).add(saved)
        read = self._date_reads[root] = self._date_reads.get(root, 0) + 1
        dates = await asyncio.to_thread(source.committed, root)
        if self._date_reads.get(root) != read:
            return  # a later read is under way: it takes the saves too
        saves = self._saved.pop(root, set())
        if self._state.banks.get(root) is not bank:
            return  # the bank was read again meanwhile, with its dates
        dirty = self._state.take_dates(bank, dates, saves)
        if dirty:
            self._publisher.later(dirty)

    def watch(self) -> None:
        """Poll the disk below the banks (the workspace folders while there are none)."""
        state = self._state
        loop = asyncio.get_running_loop()

        def on_events(events: Events) -> None:
            if not self._closing():
                loop.call_soon_threadsafe(self.apply_disk_events, events)

        def roots() -> list[Path]:
            return list(state.banks) or list(state.folders)

        self.poller = poller(roots, on_events)
        self.poller.rebase(scan(roots()))
        self.poller.start()

    async def rebase_poller(self, roots: list[Path]) -> None:
        """The disk poller's snapshot taken before the banks are read, so no later change is missed."""
        if self.poller is not None:
            self.poller.rebase(await asyncio.to_thread(scan, roots or list(self._state.folders)))

    # --- the day --------------------------------------------------------------------------------

    async def follow_the_day(self) -> None:
        """Give the banks each new day as it comes, for as long as the server runs (the clock is
        asked every DAY_CHECK seconds rather than woken at midnight: a machine that slept, or a
        clock set again, is caught up with too)."""
        while not self._closing():
            await asyncio.sleep(DAY_CHECK)
            self.new_day(self._today())

    def new_day(self, day: CkpDate) -> None:
        """Give the banks ``day`` and re-check every file when it is a new one."""
        dirty = self._state.new_day(day)
        if dirty:
            self._log(f"ckp-lsp: a new day, {day}: every file is checked again", types.MessageType.Log)
            self._publisher.later(dirty)

    # --- reading again --------------------------------------------------------------------------

    async def read_outside(self, root: Path) -> None:
        """Read the bank ``root`` of a document opened outside the banks of the workspace folders
        (``WorkspaceState.bank_outside``) and publish its findings."""
        await self.indexed.wait()
        state = self._state
        if root in state.banks:  # read meanwhile: opened as the first indexing found it
            if any(f == root or f in root.parents for f in state.folders):
                state.outside.discard(root)  # a bank of the workspace folders after all
            return
        self.hold()
        try:
            bank = await asyncio.to_thread(state.load_bank, root, state.config_for(root))
            if root not in state.banks:
                self._log(
                    f"ckp-lsp: {root}: a bank outside the workspace folders, read for an open document",
                    types.MessageType.Log,
                )
                self._publisher.later(state.install(bank))
                self.log_banks([bank])
                await self.rebase_poller(list(state.banks))
        finally:
            self.release()

    async def held_reindex(self) -> None:
        """``reindex`` once the first indexing is over, then ``release`` the hold taken for it."""
        try:
            await self.indexed.wait()
            await self.reindex()
        finally:
            self.release()

    async def reindex(self) -> None:
        """Read every bank again (settings, configuration files or workspace folders changed)."""
        state, publisher = self._state, self._publisher
        roots = await asyncio.to_thread(state.discover)
        await self.rebase_poller(roots)
        banks = [await asyncio.to_thread(state.load_bank, r, state.config_for(r)) for r in roots]
        publisher.clear_all()
        state.reload_all(banks)
        self.log_banks(banks)
        publisher.publish_all(state.all_docs())

    # --- the log --------------------------------------------------------------------------------

    def log_banks(self, banks: list[Bank]) -> None:
        """Configuration problems of freshly read banks shown to the user, skipped files in the log."""
        self.tell_problems(banks)
        for bank in banks:
            for rel, why in sorted(bank.unreadable.items()):
                self._log(f"ckp-lsp: {bank.root / rel}: skipped ({why})", types.MessageType.Warning)

    def tell_problems(self, banks: list[Bank]) -> None:
        """A mistyped setting in a message the user sees (``window/showMessage``), once: not again
        for every bank that shares the file, nor when the banks are read again while it stays."""
        found = [p for bank in banks for p in bank.config.problems]
        problems = list(dict.fromkeys([*self._state.discovery_problems, *found]))
        new = [p for p in problems if p not in self.told]
        self.told = set(problems)  # a problem fixed and made again is told again
        if new:
            self._show(
                "CKP settings: " + "; ".join(new) + ". The default is used instead.",
                types.MessageType.Warning,
            )

    def log_skipped(self, dirty: Dirty) -> None:
        """Files an event pointed at that are not read: said in the log, their diagnostics withdrawn."""
        for path, why in sorted(dirty.skipped.items()):
            self._log(f"ckp-lsp: {path}: skipped ({why})", types.MessageType.Warning)
            self._publisher.clear(uri_of(path))
