"""Watching banks on disk for clients that cannot register file watchers: a polling thread."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

Snapshot = dict[str, tuple[int, int]]
#: (created, changed, deleted) paths
Events = tuple[list[Path], list[Path], list[Path]]


def scan(roots: list[Path]) -> Snapshot:
    """mtime and size of every Markdown and ``.ckp.toml`` file below ``roots``."""
    out: Snapshot = {}
    stack = [str(r) for r in roots]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if not e.name.startswith(".") and e.name != "node_modules":
                        stack.append(e.path)
                elif e.name.endswith(".md") or e.name == ".ckp.toml":
                    st = e.stat()
                    out[e.path] = (st.st_mtime_ns, st.st_size)
            except OSError:
                continue
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
