"""Watching banks on disk for clients that cannot register file watchers: what the server's poller
(``faces.poller``) scans, and its changes as paths."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ckp_lsp.core.bank.stat_scan import Stats, stat_tree

from ..faces.poller import Changes, Poller
from ..faces.poller import diff as diff_keys

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


def _paths(changes: Changes[str]) -> Events:
    created, changed, deleted = (sorted(map(Path, keys)) for keys in changes)
    return created, changed, deleted


def diff(old: Snapshot, new: Snapshot) -> Events:
    """The files created, changed and deleted between two scans."""
    return _paths(diff_keys(old, new))


def poller(roots: Callable[[], list[Path]], on_events: Callable[[Events], None]) -> Poller[str]:
    """A poller of the files below ``roots()`` (rebase it with ``scan`` before starting it)."""
    return Poller(lambda: scan(roots()), lambda changes: on_events(_paths(changes)))
