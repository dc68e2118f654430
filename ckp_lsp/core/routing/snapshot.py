"""The routing state of a bank as a one-shot process reads it: the table and the kept analysis.

``ckp route``, the prompt hook and ``ckp mcp`` route with the same state: the routing table read
through the bank's cache (only the files changed since the last reading are opened; past
``FULL_READ_LIMIT`` files, from ``_index.md``) and each file's analysis from ``route.marshal``
(only a changed file is analysed again). No ``Bank`` with its diagnostics is built.

A one-shot process reads less still: ``route-snapshot.marshal``, beside the cache, holds the whole
router as the last process built it (the table and the postings), keyed by every knowledge file's
size and modification time (ns), ``_index.md``'s, the settings and the routing code. A process
lists the bank (one ``stat`` per file), and when nothing changed it routes from the snapshot
without opening a file; any change, or a snapshot written by anything else, and the router is
built as above and the snapshot written anew. The file is read and written as the cache is
(``core.cache``: bound to the bank's path and inode, this user's, never through a link).
"""

from __future__ import annotations

import hashlib
import marshal
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..bank import Bank
    from ..config import Config
    from .ranked import RankedRouter

_FILE = "route-snapshot.marshal"
#: bump when what the snapshot holds changes
FORMAT = 1


def ranked_router(root: Path, config: Config | None = None, bank: Bank | None = None) -> RankedRouter:
    """The ranked router of the bank at ``root``, from its cache where the cache answers; a process
    that holds the ``bank`` already (``ckp mcp``) gives it, and only the analysis is read."""
    from ..config import config_for_bank
    from .ranked import RankedRouter
    from .store import RouteStore

    if bank is not None:
        return RankedRouter(bank, store=RouteStore.for_bank(root))
    config = config if config is not None else config_for_bank(root)
    snapshot = Snapshot.for_bank(root)
    if snapshot is None:
        return _built(root, config)
    # The bank is listed before it is read: a file changed meanwhile leaves a key it no longer
    # matches, and the next process builds again.
    key = _key(root, config)
    kept = snapshot.load(key)
    if kept is not None:
        return kept
    router = _built(root, config)
    snapshot.save(key, router)
    return router


def _built(root: Path, config: Config) -> RankedRouter:
    """The router built from the bank's cache and kept analysis (files read only where changed)."""
    from ..cache import FileCache
    from ..route_table import read_route_table
    from .ranked import RankedRouter
    from .store import RouteStore

    table = read_route_table(root, config, cache=FileCache.for_bank(root))
    store = RouteStore.for_bank(root) if table.root is not None else None
    return RankedRouter(table, config.file_budget_tokens, store=store)


def _key(root: Path, config: Config) -> tuple[Any, ...]:
    """What the router of the bank at ``root`` is built from: the routing code, the settings, and
    the size and mtime of ``_index.md`` and of every knowledge file."""
    from ..config import LlmConfig
    from ..discovery import INDEX_NAME
    from ..route_table import _list_files
    from .store import _routing_stamp

    # The settings as a digest (the model's settings are no part of routing, nor kept here).
    settings = replace(config, llm=LlmConfig(), problems=(), ignored=())
    digest = hashlib.blake2b(repr(settings).encode("utf-8", "surrogateescape"), digest_size=16).digest()
    try:
        st = os.stat(root / INDEX_NAME)
        index: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
    except OSError:
        index = None
    return (_routing_stamp(), _language_stamp(), digest, index, _list_files(root, config.exclude))


def _language_stamp() -> tuple[Any, ...]:
    """The language package's modules (size and mtime): they analyse every word the router holds."""
    here = os.path.join(os.path.dirname(os.path.dirname(__file__)), "language")
    out = []
    for e in sorted(os.scandir(here), key=lambda e: e.name):
        if e.name.endswith(".py"):
            st = e.stat()
            out.append((e.name, st.st_size, st.st_mtime_ns))
    return tuple(out)


class Snapshot:
    """The kept router of one bank: ``load`` it for a key, ``save`` one built for a key."""

    def __init__(self, path: Path, in_bank: bool, root: Path) -> None:
        from ..cache import bank_identity

        self.path = path
        self.in_bank = in_bank  # a bank's own .ckp-cache: never reached through a link
        self.root = root
        self.identity = bank_identity(root)

    @classmethod
    def for_bank(cls, root: Path) -> Snapshot | None:
        """The snapshot of the bank at ``root``; None when the cache is turned off."""
        from ..cache import FOLDER, cache_disabled, cache_path

        if cache_disabled():
            return None
        base = cache_path(root)
        name = _FILE if base.name == "bank.marshal" else base.stem + "-" + _FILE
        return cls(base.with_name(name), base.parent == root / FOLDER, root)

    def load(self, key: tuple[Any, ...]) -> RankedRouter | None:
        """The router kept for ``key``, or None (none kept, another key, or anything unexpected)."""
        from ..cache import open_cache

        try:
            with open_cache(self.path, self.in_bank) as f:
                # (read whole: ``marshal.load`` of a file reads it object by object, ten times slower)
                data = memoryview(f.read())
            size = int.from_bytes(data[:4], "little")
            if marshal.loads(data[4 : 4 + size]) != (FORMAT, self.identity, key):
                return None
            return _router_of(self.root, marshal.loads(data[4 + size :]))
        except Exception:  # missing, truncated, foreign or of another shape: built anew
            return None

    def save(self, key: tuple[Any, ...], router: RankedRouter) -> bool:
        """Keep ``router`` under ``key`` (atomically); whether it was written."""
        from ..cache import save_cache

        if self.identity is None:
            return False
        value = _value_of(router)

        def write(f: Any) -> None:
            head = marshal.dumps((FORMAT, self.identity, key), 2)
            f.write(len(head).to_bytes(4, "little"))
            f.write(head)
            f.write(marshal.dumps(value, 2))

        try:
            return save_cache(self.path, self.in_bank, write)
        except ValueError:  # a value marshal cannot hold: nothing kept
            return False


_TABLE = ("paths", "concepts", "keywords", "high", "mid", "sizes", "tldrs")


def _value_of(router: RankedRouter) -> tuple[Any, ...]:
    """What a router is rebuilt from, in plain values."""
    t, p = router.table, router.postings
    table = (tuple(getattr(t, c) for c in _TABLE), t.index_tokens, t.root is not None)
    postings = (p.weights, p.files, p.tables, p.lengths, p.stemmers, p.languages)
    return (table, router.file_budget_tokens, router.language, postings)


def _router_of(root: Path, value: tuple[Any, ...]) -> RankedRouter:
    """The router ``_value_of`` kept (``TypeError`` or ``ValueError`` for a value of another shape)."""
    from ..route_table import RouteTable
    from .postings import Postings
    from .ranked import RankedRouter

    (columns, index_tokens, rooted), budget, language, postings = value
    paths, concepts, keywords, high, mid, sizes, tldrs = map(list, columns)
    table = RouteTable(
        paths, concepts, keywords, high, mid, sizes, index_tokens, tldrs, root if rooted else None
    )
    if not all(len(c) == len(table) for c in columns):
        raise ValueError("columns of different lengths")
    weights, files, tables, lengths, stemmers, languages = postings
    kept = Postings(tuple(weights), files, list(tables), list(lengths), tuple(stemmers), tuple(languages))
    if not isinstance(budget, int) or files != len(table) or language not in (None, "ja", "zh"):
        raise ValueError("a snapshot of another shape")
    return RankedRouter.restored(table, budget, kept, language)
