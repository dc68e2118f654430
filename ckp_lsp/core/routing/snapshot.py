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
(``core.bank.cache``: bound to the bank's path and inode, this user's, never through a link).
"""

from __future__ import annotations

import marshal
import os
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank, Loader
    from ckp_lsp.core.project.config import Config

    from .index_pattern import Router
    from .ranked import RankedRouter

_FILE = "route-snapshot.marshal"
#: bump when what the snapshot holds changes
FORMAT = 4


def ranked_router(
    root: Path,
    config: Config | None = None,
    bank: Bank | None = None,
    within: list[Path] | None = None,
    *,
    load: Loader | None = None,
) -> RankedRouter:
    """The ranked router of the bank at ``root``, from its cache where the cache answers; a process
    that holds the ``bank`` already (``ckp mcp``) gives it, and only the analysis is read; any
    other gives ``load``, the face's way to read a bank in full. The cache and the snapshot are
    written only inside one of the folders ``within`` (None: anywhere)."""
    from ckp_lsp.core.project.config import config_for_bank

    from .ranked import RankedRouter
    from .store import RouteStore

    if bank is not None:
        return RankedRouter(bank, store=RouteStore.for_bank(root, within))
    if load is None:
        raise TypeError("ranked_router needs the bank, or a loader to read it")
    config = config if config is not None else config_for_bank(root)
    snapshot = Snapshot.for_bank(root, within)
    if snapshot is None:
        return _built(root, config, load, within)
    # The bank is listed before it is read: a file changed meanwhile leaves a key it no longer
    # matches, and the next process builds again.
    key = _key(root, config)
    kept = snapshot.load(key)
    if kept is not None:
        return kept
    router = _built(root, config, load, within)
    snapshot.save(key, router)
    return router


def index_router(root: Path, config: Config, *, load: Loader) -> Router:
    """The index pattern of the bank at ``root``: the kept snapshot's while the bank is unchanged
    (no file opened, as the ranked router reads it), else over the routing table read through the
    bank's cache (a bank read in full by ``load``); no snapshot is written (that needs the ranked
    router built)."""
    from ckp_lsp.core.bank.cache import FileCache
    from ckp_lsp.core.routing.route_table import read_route_table

    from .index_pattern import Router

    snapshot = Snapshot.for_bank(root)
    if snapshot is not None:
        kept = snapshot.load(_key(root, config))
        if kept is not None:
            return kept.index
        table = read_route_table(root, config, cache=FileCache.for_bank(root), load=load)
    else:
        table = read_route_table(root, config, load=load)
    return Router(table, config.file_budget_tokens)


def _built(root: Path, config: Config, load: Loader, within: list[Path] | None = None) -> RankedRouter:
    """The router built from the bank's cache and kept analysis (files read only where changed)."""
    from ckp_lsp.core.bank.cache import FileCache
    from ckp_lsp.core.routing.route_table import read_route_table

    from .ranked import RankedRouter
    from .store import RouteStore

    table = read_route_table(root, config, cache=FileCache.for_bank(root, within), load=load)
    store = RouteStore.for_bank(root, within) if table.root is not None else None
    return RankedRouter(table, config.file_budget_tokens, store=store)


def _key(root: Path, config: Config) -> tuple[Any, ...]:
    """What the router of the bank at ``root`` is built from: the routing code, the settings, and
    the size and mtime of ``_index.md`` and of every knowledge file."""
    from ckp_lsp.core.project.config import LlmConfig

    from .store import _routing_stamp

    # The settings as written (the model's settings are no part of routing, nor kept here); no
    # digest, which would import hashlib and start OpenSSL in every process.
    settings = repr(config.replace(llm=LlmConfig(), problems=(), ignored=()))
    # The listing as bytes, compared as they are rather than decoded into a tuple a file; in the
    # order the folders list their files (the same while a folder is unchanged: a folder listed
    # in another order only builds the router again).
    return (_routing_stamp(), _language_stamp(), settings, marshal.dumps(_listing(root), 2))


def _listing(root: Path) -> dict[str, tuple[int, int]]:
    """Path -> (size, mtime in ns) of every ``*.md`` below ``root`` in the folders a bank is read
    from (``_index.md``, excluded files and links included: more than the router reads is listed,
    never less). One ``stat`` a file, none of the checks a reading makes of each name."""
    from ckp_lsp.core.project.discovery import MAX_DEPTH, _skipped
    from ckp_lsp.core.project.within import Folder

    disk = Folder(root)
    out: dict[str, tuple[int, int]] = {}
    stack = [(os.fspath(root), "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            entries = disk.entries(folder)
        except OSError:
            continue
        for e in entries:
            name = e.name
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH and not _skipped(name):
                        stack.append((e.path, prefix + name + "/", depth + 1))
                elif name.endswith(".md"):
                    st = e.stat()
                    out[prefix + name] = (st.st_size, st.st_mtime_ns)
            except OSError:
                out[prefix + name] = (-1, -1)
    return out


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

    def __init__(self, path: Path, in_bank: bool, root: Path, writable: bool = True) -> None:
        from ckp_lsp.core.bank.cache import bank_identity

        self.path = path
        self.in_bank = in_bank  # a bank's own .ckp-cache: never reached through a link
        self.writable = writable  # where the cache may be written (``cache.cache_place``)
        self.root = root
        self.identity = bank_identity(root)

    @classmethod
    def for_bank(cls, root: Path, within: list[Path] | None = None) -> Snapshot | None:
        """The snapshot of the bank at ``root``; None when the cache is turned off. It is written
        where the bank's cache may be (``cache.cache_place``: inside one of the folders ``within``)."""
        from ckp_lsp.core.routing.store import kept_place

        place = kept_place(root, within, _FILE)
        return cls(place.path, place.in_bank, root, place.writable) if place is not None else None

    def load(self, key: tuple[Any, ...]) -> RankedRouter | None:
        """The router kept for ``key``, or None (none kept, another key, or anything unexpected)."""
        from ckp_lsp.core.bank.cache import open_cache

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
        from ckp_lsp.core.bank.cache import save_cache

        if self.identity is None or not self.writable:
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
#: the types a kept value may hold (what ``marshal`` writes as it reads)
_PLAIN = (str, int, float, bool, type(None), list, tuple, dict, frozenset, bytes)


def _state(obj: object, warm: tuple[str, ...], leave: tuple[str, ...]) -> dict[str, Any]:
    """The attributes of ``obj`` (those computed on first use, ``warm``, computed now), but those
    of ``leave``; ``ValueError`` for one ``marshal`` would not give back as it was."""
    for name in warm:
        getattr(obj, name)
    out = {}
    for name, value in vars(obj).items():
        if name in leave:
            continue
        if type(value) is defaultdict:
            value = ("defaultdict", dict(value))
        elif type(value) not in _PLAIN:
            raise ValueError(f"{type(obj).__name__}.{name}: a {type(value).__name__}")
        out[name] = value
    return out


def _restore(cls: type, state: dict[str, Any]) -> Any:
    """An object of ``cls`` with the attributes ``_state`` kept."""
    obj: Any = object.__new__(cls)
    for name, value in state.items():
        if type(value) is tuple and len(value) == 2 and value[0] == "defaultdict":
            value = defaultdict(list, value[1])
        obj.__dict__[name] = value
    return obj


class KeptRows(Mapping[str, dict[int, int]]):
    """A postings table as the snapshot keeps it: term -> its row (file -> count), each row
    decoded when routing first asks for it."""

    def __init__(self, rows: dict[str, bytes]) -> None:
        if type(rows) is not dict:
            raise ValueError("a postings table of another shape")
        self._rows = rows
        self._decoded: dict[str, dict[int, int]] = {}

    def __getitem__(self, term: str) -> dict[int, int]:
        found = self._decoded.get(term)
        if found is None:
            found = self._decoded[term] = marshal.loads(self._rows[term])
        return found

    def get(self, term: str, default: Any = None) -> Any:
        # (``Mapping.get`` would raise and catch a KeyError for each term a table lacks)
        return self[term] if term in self._rows else default

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def _value_of(router: RankedRouter) -> tuple[Any, ...]:
    """What a router is rebuilt from, in plain values: its table, and its index pattern's and
    postings' state, with what every question computes first (vocabularies, words by start)."""
    t = router.table
    table = (tuple(getattr(t, c) for c in _TABLE), t.index_tokens, t.root is not None)
    index = _state(router.index, ("vocabulary", "_long"), ("table", "_text", "_items"))
    postings = _state(router.postings, ("vocabulary", "_by_start", "_averages"), ())
    # Each term's row apart: a question decodes the rows of its own words, not every file's counts.
    postings["tables"] = [
        {term: marshal.dumps(row, 2) for term, row in f.items()} for f in postings["tables"]
    ]
    return (table, router.file_budget_tokens, router.language, index, postings)


def _router_of(root: Path, value: tuple[Any, ...]) -> RankedRouter:
    """The router ``_value_of`` kept (``TypeError`` or ``ValueError`` for a value of another shape)."""
    from ckp_lsp.core.routing.route_table import RouteTable

    from .index_pattern import Router
    from .postings import Postings
    from .ranked import RankedRouter

    (columns, index_tokens, rooted), budget, language, index_state, postings_state = value
    paths, concepts, keywords, high, mid, sizes, tldrs = map(list, columns)
    table = RouteTable(
        paths, concepts, keywords, high, mid, sizes, index_tokens, tldrs, root if rooted else None
    )
    if not all(len(c) == len(table) for c in columns):
        raise ValueError("columns of different lengths")
    if not isinstance(budget, int) or language not in (None, "ja", "zh"):
        raise ValueError("a snapshot of another shape")
    index = _restore(Router, index_state)
    index.table = table
    postings = _restore(Postings, {**postings_state, "tables": list(map(KeptRows, postings_state["tables"]))})
    if postings.files != len(table) or index.files != len(table):
        raise ValueError("a snapshot of another bank's size")
    return RankedRouter.restored(table, budget, postings, language, index)
