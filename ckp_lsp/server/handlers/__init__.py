"""The thin handler of each feature, one module per feature in ``features``; importing this package
adds them all, with those of start-up and document sync, to the table a server is built with
(``server.table``, registered by ``factory.create_server``).

A handler imports its feature's module when it is first asked (the warm-up after the first
findings imports them on a thread): the start imports only what the first findings need."""

from __future__ import annotations

from .. import startup, sync
from . import (
    actions,
    completion,
    definition,
    diagnostics,
    folding,
    hover,
    index_upkeep,
    lens,
    links,
    recompile,
    references,
    rename,
    route,
    symbols,
)

__all__ = [
    "actions",
    "completion",
    "definition",
    "diagnostics",
    "folding",
    "hover",
    "index_upkeep",
    "lens",
    "links",
    "recompile",
    "references",
    "rename",
    "route",
    "startup",
    "symbols",
    "sync",
]
