"""Watching banks on disk for clients that cannot register file watchers: a polling thread."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from ckp_lsp.core.bank.stat_scan import Stats, stat_tree

Snapshot = Stats  # by absolute path
#: (created, changed, deleted) paths
Events = tuple[list[Path], list[Path], list[Path]]


def _entered(name: str) -> bool:
    return not name.startswith(".") and name != "node_modules"


def _watched(name: str) -> bool:
    return name.endswith(".md") or name == ".ckp.toml"


def scan(roots: list[Path]) -> Snapshot:
    """mtime and size of every Markdown and ``.ckp.toml`` file below ``roots``."""
    out: Snapshot = {}
    for root in roots:
        out.update(
            (os.path.join(root, rel), st) for rel, st in stat_tree(str(root), _entered, _watched).items()
        )
    return out


def diff(old: Snapshot, new: Snapshot) -> Events:
    created = [Path(p) for p in new.keys() - old.keys()]
    deleted = [Path(p) for p in old.keys() - new.keys()]
    changed = [Path(p) for p in new.keys() & old.keys() if new[p] != old[p]]
    return sorted(created), sorted(changed), sorted(deleted)


class Poller:
    """Scans ``roots()`` every ``interval`` seconds and hands changes to ``on_events``."""

    def __init__(
        self, roots: Callable[[], list[Path]], on_events: Callable[[Events], None], interval: float = 1.0
    ):
        self._roots = roots
        self._on_events = on_events
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ckp-disk-poller", daemon=True)
        self._lock = threading.Lock()
        self._before: Snapshot = {}

    def start(self) -> None:
        with self._lock:
            self._before = scan(self._roots())
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def rebase(self, roots: list[Path]) -> None:
        """Take the disk below ``roots`` as known: call it just before the banks are read again.

        Every later change then differs from this snapshot, even when the banks' folders change
        (a file read by the new banks and deleted before the next scan is not missed).
        """
        snapshot = scan(roots)
        with self._lock:
            self._before = snapshot

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            after = scan(self._roots())
            # A scan that began before a rebase may report what the banks already hold: harmless,
            # as every event is handled by reading the disk as it is.
            with self._lock:
                events = diff(self._before, after)
                self._before = after
            if any(events):
                self._on_events(events)
