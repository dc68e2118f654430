"""Noticing changes on disk by polling, for the faces that cannot be told: a thread that scans the
disk every ``interval`` seconds and hands on what moved since the scan before.

The language server polls the banks for a client that cannot register file watchers
(``server.watch``), ``ckp mcp`` for a file rewritten in place (``mcp.banks``). Each face says what
a scan lists (by its own key: an absolute path, a bank and a path in it) and what to do with the
changes; the thread, its baseline and the comparison are this module's. The thread only lists
stats: what changed is read, and the bank changed, by the face.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Generic, TypeVar

#: what a scan lists a file by: an absolute path (the server), or a bank and a path in it (MCP)
K = TypeVar("K", str, tuple[Path, str])
#: (created, changed, deleted), each sorted
Changes = tuple[list[K], list[K], list[K]]


def diff(old: Mapping[K, tuple[int, int]], new: Mapping[K, tuple[int, int]]) -> Changes[K]:
    """What was created, changed and deleted between two scans (key -> (mtime_ns, size))."""
    changed = [p for p in new.keys() & old.keys() if new[p] != old[p]]
    return sorted(new.keys() - old.keys()), sorted(changed), sorted(old.keys() - new.keys())


class Poller(Generic[K]):
    """Scans with ``scan`` every ``interval`` seconds and hands each scan's changes to ``on_changes``.

    The baseline is what ``rebase`` or ``take`` said is known (nothing until then): start the thread
    after giving it, so that a change made meanwhile is not missed.
    """

    def __init__(
        self,
        scan: Callable[[], Mapping[K, tuple[int, int]]],
        on_changes: Callable[[Changes[K]], None],
        interval: float = 1.0,
        name: str = "ckp-disk-poller",
    ) -> None:
        self._scan: Callable[[], Mapping[K, tuple[int, int]]] = scan
        self._on_changes: Callable[[Changes[K]], None] = on_changes
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._lock = threading.Lock()
        self._before: dict[K, tuple[int, int]] = {}

    def start(self) -> None:
        """Start the thread (once)."""
        if not self._thread.is_alive() and not self._stop.is_set():
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def rebase(self, known: Mapping[K, tuple[int, int]]) -> None:
        """Take ``known`` as the disk now, and nothing else: call it just before the face reads the
        banks again, with a scan made then (a file read and deleted before the next scan is not
        missed, even when what is scanned changes)."""
        with self._lock:
            self._before = dict(known)

    def take(self, known: Mapping[K, tuple[int, int]]) -> None:
        """Take ``known`` as the disk now as well (a bank found since, read with these stats)."""
        with self._lock:
            self._before.update(known)

    def poll_once(self) -> Changes[K]:
        """One scan: its changes are handed on (when there are any) and returned."""
        after = self._scan()
        # A scan that began before a rebase may report what the face already holds: harmless, as
        # every change is handled by reading the disk as it is.
        with self._lock:
            changes = diff(self._before, after)
            self._before = dict(after)
        if any(changes):
            self._on_changes(changes)
        return changes

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.poll_once()
