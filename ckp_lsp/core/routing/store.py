"""The ranked router's analysis of each file, kept on disk beside the bank's cache.

``route.marshal`` next to the cache of ``core.bank.cache`` (``.ckp-cache/`` at the bank's root, or
``$CKP_CACHE_DIR``; ``CKP_NO_CACHE=1`` turns both off): for each file its size and modification
time (ns) and the terms of its fields, so a process that routes one question reads the
analysis of the files that did not change instead of analysing every file again. The whole is
keyed by the tool's version, Python's and the routing code's: anything else, or a file that cannot
be read, is ignored and written anew. ``marshal`` holds plain values only (loading runs no code).
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckp_lsp.core.bank.cache import _stamp, cache_disabled, cache_place, open_cache, save_cache
from ckp_lsp.core.format.records import Frozen

if TYPE_CHECKING:
    from ckp_lsp.core.bank.cache import Place

_FILE = "route.marshal"
#: bump when what an entry holds changes
FORMAT = 1


class Analysed(Frozen):
    """One file as the ranked router indexes it: its fields' term counts and what tells its languages."""

    _fields = ("counts", "lengths", "kana", "ideographs", "languages", "language")
    __slots__ = _fields

    def __init__(
        self,
        counts: tuple[dict[str, int], dict[str, int], dict[str, int]],
        lengths: tuple[int, int, int],
        kana: bool,
        ideographs: bool,
        languages: tuple[str, ...],
        language: str | None,  # the segmentation its ideographs were cut with
    ) -> None:
        self.counts = counts
        self.lengths = lengths
        self.kana = kana
        self.ideographs = ideographs
        self.languages = languages
        self.language = language

    def as_value(self) -> tuple[Any, ...]:
        return (self.counts, self.lengths, self.kana, self.ideographs, self.languages, self.language)


def _routing_stamp() -> tuple[Any, ...]:
    here = os.path.dirname(__file__)
    stats = []
    for e in sorted(os.scandir(here), key=lambda e: e.name):
        if e.name.endswith(".py"):
            st = e.stat()
            stats.append((e.name, st.st_size, st.st_mtime_ns))
    return (_stamp(), FORMAT, tuple(stats))


class RouteStore:
    """The kept analysis of one bank: ``get`` an unchanged file's, ``put`` a new one, ``save``."""

    def __init__(self, path: Path, in_bank: bool = True, writable: bool = True) -> None:
        self.path = path
        self.in_bank = in_bank  # a bank's own .ckp-cache: never reached through a link
        self.writable = writable  # where the cache may be written (``cache.cache_place``)
        self._old: dict[str, tuple[int, int, tuple[Any, ...]]] = {}
        self._new: dict[str, tuple[int, int, tuple[Any, ...]]] = {}
        self._changed = False
        self.load()

    @classmethod
    def for_bank(cls, root: Path, within: list[Path] | None = None) -> RouteStore | None:
        """The store of the bank at ``root``; None when the cache is turned off. It is written
        where the bank's cache may be (``cache.cache_place``: inside one of the folders ``within``)."""
        place = kept_place(root, within, _FILE)
        return cls(place.path, place.in_bank, place.writable) if place is not None else None

    def load(self) -> None:
        try:
            with open_cache(self.path, self.in_bank) as f:
                # (read whole: ``marshal.load`` of a file reads it object by object, ten times slower)
                stamp, entries = marshal.loads(f.read())
        except (OSError, EOFError, ValueError, TypeError):
            return
        if stamp != _routing_stamp() or not isinstance(entries, dict):
            return
        self._old = entries

    def get(self, rel: str, st: os.stat_result) -> Analysed | None:
        """The kept analysis of a file whose size and mtime are unchanged, else None."""
        entry = self._old.get(rel)
        if entry is None or entry[0] != st.st_size or entry[1] != st.st_mtime_ns:
            return None
        try:
            counts, lengths, kana, ideographs, languages, language = entry[2]
            found = Analysed(tuple(counts), tuple(lengths), kana, ideographs, tuple(languages), language)
        except (TypeError, ValueError):
            return None
        self._new[rel] = entry
        return found

    def put(self, rel: str, st: os.stat_result, analysed: Analysed) -> None:
        self._new[rel] = (st.st_size, st.st_mtime_ns, analysed.as_value())
        self._changed = True

    def save(self) -> None:
        """Write the store (atomically) when it changed; a folder that cannot be written is left."""
        if not self.writable or (not self._changed and self._new.keys() == self._old.keys()):
            return
        if not save_cache(
            self.path, self.in_bank, lambda f: marshal.dump((_routing_stamp(), self._new), f, 2)
        ):
            return
        self._old, self._changed = self._new, False


def kept_place(root: Path, within: list[Path] | None, file: str) -> Place | None:
    """Where the bank at ``root`` keeps its cache file ``file`` (``cache.cache_place``: written only
    inside one of the folders ``within``); None when the cache is turned off."""
    return None if cache_disabled() else cache_place(root, within, file)
