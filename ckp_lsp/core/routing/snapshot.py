"""The routing state of a bank as a one-shot process reads it: the table and the kept analysis.

``ckp route``, the prompt hook and ``ckp mcp`` route with the same state: the routing table read
through the bank's cache (only the files changed since the last reading are opened; past
``FULL_READ_LIMIT`` files, from ``_index.md``) and each file's analysis from ``route.marshal``
(only a changed file is analysed again). No ``Bank`` with its diagnostics is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..bank import Bank
    from ..config import Config
    from .ranked import RankedRouter


def ranked_router(root: Path, config: Config | None = None, bank: Bank | None = None) -> RankedRouter:
    """The ranked router of the bank at ``root``, from its cache where the cache answers; a process
    that holds the ``bank`` already (``ckp mcp``) gives it, and only the analysis is read."""
    from ..cache import FileCache
    from ..config import config_for_bank
    from ..route_table import read_route_table
    from .ranked import RankedRouter
    from .store import RouteStore

    if bank is not None:
        return RankedRouter(bank, store=RouteStore.for_bank(root))
    config = config if config is not None else config_for_bank(root)
    table = read_route_table(root, config, cache=FileCache.for_bank(root))
    store = RouteStore.for_bank(root) if table.root is not None else None
    return RankedRouter(table, config.file_budget_tokens, store=store)
