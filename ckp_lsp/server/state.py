"""The one owner of the workspace's state: every bank, kept live from editor and disk events.

Every change goes through ``WorkspaceState``; each says which documents' findings may have
changed, so the diagnostics are re-computed for exactly those.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.cache import FileCache
from ckp_lsp.core.bank.checked import cached_findings
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.index import row_values
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.navigation.references import prepare
from ckp_lsp.core.project.config import Config, config_for_bank
from ckp_lsp.core.project.discovery import (
    INDEX_NAME,
    bank_of,
    find_banks,
)
from ckp_lsp.core.project.membership import bank_rel
from ckp_lsp.core.project.within import escape

from ..faces.banks import on_disk, read_bank, take_from_disk
from ..faces.clock import today
from ..faces.collector import paused_collection
from .client import Settings
from .documents import Documents


@dataclass
class Dirty:
    """Documents whose findings may have changed: (bank root, rel) pairs and banks whose index did."""

    files: set[tuple[Path, str]] = field(default_factory=set)
    indexes: set[Path] = field(default_factory=set)
    skipped: dict[Path, str] = field(default_factory=dict)  # files on disk that are not read, and why

    def update(self, other: Dirty) -> None:
        self.files |= other.files
        self.indexes |= other.indexes
        self.skipped.update(other.skipped)

    def __bool__(self) -> bool:
        return bool(self.files or self.indexes)


@dataclass(frozen=True)
class Doc:
    """Where a path lies: its bank and its bank-relative path (``_index.md`` included)."""

    bank: Bank
    rel: str

    @property
    def is_index(self) -> bool:
        return self.rel == INDEX_NAME

    @property
    def file(self) -> KnowledgeFile | None:
        return self.bank.files.get(self.rel)


def settings_of(options: Any) -> dict[str, Any]:
    """Settings in ``initializationOptions``: its ``ckp`` section, or the whole of it."""
    if not isinstance(options, dict):
        return {}
    section = options.get("ckp")
    if isinstance(section, dict):
        return dict(section)
    return {k: v for k, v in options.items() if k != "editor"}  # "editor": what the client says of itself


class WorkspaceState:
    """Banks of the workspace folders, with open documents' text overlaid on the disk's."""

    def __init__(self, documents: Documents | None = None) -> None:
        self.folders: list[Path] = []
        self.discovery_problems: list[str] = []  # banks a .ckp.toml named outside its folder
        self.refused: list[str] = []  # workspace folders reached through a link out of their project
        # Banks of documents opened outside every bank found below the workspace folders (a file
        # opened on its own, with no folder): read as well, for as long as the server runs
        self.outside: set[Path] = set()
        self.settings = Settings()  # the client's, over every bank's configuration files
        self.banks: dict[Path, Bank] = {}
        # The editor's open documents: their text is the truth over the disk's
        self.documents = documents if documents is not None else Documents()
        self.version = 0  # bumped by every change: what caches of derived tables key on
        self.use_cache = True  # banks are read through ``core.bank.cache`` (``ckp-lsp --no-cache``: not)
        self.today = today()  # the day every bank is given (``new_day`` moves it on)
        # Findings computed as banks were read (``read_bank``): bank root -> (the bank,
        # rel -> findings, the rels changed since, whose findings are no longer known)
        self._known: dict[Path, tuple[Bank, dict[str, list[Finding]], set[str]]] = {}
        # Git mode: the disk's text of each open document (read once, when first needed, and again
        # after the disk moved): a text unlike it is an uncommitted change. Kept so that a
        # keystroke reads no disk; bounded by the open documents, each dropped as it closes.
        self._disk_texts: dict[tuple[Path, str], str | None] = {}

    @property
    def open(self) -> Documents:
        """The open documents (``path in state.open``)."""
        return self.documents

    @property
    def boms(self) -> set[Path]:
        """Open documents whose editor text starts with U+FEFF: on their line 0 the editor counts
        one column more than the core, which reads the text without it."""
        return self.documents.boms

    # --- loading -------------------------------------------------------------------------------

    def base_config(self) -> Config:
        return self.settings.config

    def config_for(self, root: Path) -> Config:
        """``.ckp.toml`` files down to the bank, then editor settings on top."""
        config = config_for_bank(root)
        values = self.settings.values
        return config.merged(values) if values else config

    def discover(self) -> list[Path]:
        """Bank roots under the workspace folders (settings' ``banks`` included)."""
        configured = [self._abs(b) for b in self.base_config().banks]
        problems: list[str] = []
        roots = find_banks(self.folders, configured, problems)
        self.discovery_problems = list(dict.fromkeys(self.refused + problems))
        nested = [
            r for r in sorted(self.outside) if any(r == b or b in r.parents or r in b.parents for b in roots)
        ]
        return roots + [r for r in sorted(self.outside) if r not in nested]

    def bank_outside(self, path: Path) -> Path | None:
        """The bank of ``path``, a document opened that no bank read holds, found as ``ckp check``
        finds a file's bank (``BANK_RULE``); None when there is none or it is read already. It is
        kept in ``outside``."""
        if not path.name.endswith(".md") or escape(path.parent) is not None:
            return None  # spelled through a link out of its project: that is no bank of this editor
        path = path.parent.resolve() / path.name
        if self.bank_for(path) is not None:
            return None
        root = bank_of(path, [self._abs(b) for b in self.base_config().banks])
        if root is None or root in self.banks:
            return None
        self.outside.add(root)
        return root

    def configured_banks(self) -> list[Path]:
        """The banks the settings name (``banks``), absolute."""
        return [self._abs(b) for b in self.base_config().banks]

    def _abs(self, p: str) -> Path:
        path = Path(p).expanduser()
        if not path.is_absolute() and self.folders:
            path = self.folders[0] / path
        return path.resolve()

    def load_bank(self, root: Path, config: Config) -> Bank:
        """Read one bank from disk, through its cache (safe to call off the event loop: touches
        no shared state)."""
        return self._load(root, config)[0]

    def read_bank(self, root: Path, config: Config) -> tuple[Bank, dict[str, list[Finding]] | None, int]:
        """Read one bank from disk through its cache (``core.bank.cache``; written only inside a
        workspace folder): the bank, the findings of its documents when the cache was used (those
        with none left out; see ``know``), and how many files came from the cache. Safe to call
        off the event loop: touches no shared state."""
        bank, cache = self._load(root, config)
        found = None
        if cache is not None:
            with paused_collection():  # the findings of a large bank: many objects, none in cycles
                found = {rel: f for rel, f in cached_findings(bank, cache, True) if f}
        return bank, found, cache.hits if cache is not None else 0

    def _load(self, root: Path, config: Config) -> tuple[Bank, FileCache | None]:
        """The bank at ``root``, read through its cache (when the cache is used), and that cache."""
        cache = FileCache.for_bank(root, list(self.folders)) if self.use_cache else None
        bank = read_bank(root, config, cache, self.today)
        # git mode: the bank service asked git, here on this worker thread, not on the event loop
        prepare(bank)  # and what the first completion or references request would wait for
        # Before the collector, re-enabled, walks it (see ``reload_all``), and before checking it:
        # collections while 100,000 files are checked would each walk the whole bank again.
        gc.freeze()
        return bank, cache

    def install(self, bank: Bank) -> Dirty:
        """Adopt a freshly loaded bank, overlaying open documents' text."""
        self.version += 1
        if bank.today != self.today:  # read as the day changed: its findings were of the day before
            bank.today = self.today
            self._known.pop(bank.root, None)
        self.banks[bank.root] = bank
        dirty = Dirty(indexes={bank.root})
        for opened in self.documents:
            self._disk_moved(opened.path)  # read afresh, as the bank was
            doc = self.doc(opened.path)
            if doc is not None and doc.bank is bank:
                dirty.update(self._set_text(doc, opened.text))
        dirty.files |= {(bank.root, rel) for rel in bank.files}
        return dirty

    def reload_all(self, banks: Iterable[Bank]) -> Dirty:
        """Replace every bank (after a settings change or a new workspace folder)."""
        # The banks live as long as the server and hold no cycles (refcounting frees them): out of
        # the cyclic collector's sight, a collection no longer walks every file of every bank
        # (the first one, right after loading, would take a tenth of a second at 10,000 files).
        banks = list(banks)
        gc.freeze()
        self.banks = {}
        dirty = Dirty()
        for bank in banks:
            dirty.update(self.install(bank))
        return dirty

    # --- lookups ------------------------------------------------------------------------------

    def bank_for(self, path: Path) -> Bank | None:
        for folder in (path.parent, *path.parent.parents):
            bank = self.banks.get(folder)
            if bank is not None:
                return bank
        return None

    def doc(self, path: Path) -> Doc | None:
        """The bank and bank-relative path of ``path``, if it is a knowledge file or an index."""
        bank = self.bank_for(path)
        if bank is None:
            return None
        rel = bank_rel(path, bank.root, bank.config.exclude)
        return Doc(bank, rel) if rel is not None else None

    def findings(self, doc: Doc) -> list[Finding]:
        known = self._known.get(doc.bank.root)
        if known is not None and known[0] is doc.bank and doc.rel not in known[2]:
            return known[1].get(doc.rel, [])
        return check_index(doc.bank) if doc.is_index else check_file(doc.bank, doc.rel)

    def know(self, bank: Bank, found: dict[str, list[Finding]]) -> None:
        """Take ``found`` as the findings of ``bank``'s documents (those with none left out) until
        a change touches them; ``forget`` ends it."""
        self._known[bank.root] = (bank, found, set())

    def forget(self) -> bool:
        """Stop taking findings as known; whether some were."""
        known, self._known = bool(self._known), {}
        return known

    def _changed(self, dirty: Dirty) -> Dirty:
        """``dirty``, after the known findings of its documents are forgotten."""
        for root, known in self._known.items():
            known[2].update(rel for r, rel in dirty.files if r == root)
            if root in dirty.indexes:
                known[2].add(INDEX_NAME)
        return dirty

    def all_docs(self) -> Iterator[Doc]:
        for bank in self.banks.values():
            for rel in bank.files:
                yield Doc(bank, rel)
            if bank.index_text is not None or bank.files:
                yield Doc(bank, INDEX_NAME)

    def expand(self, dirty: Dirty) -> list[Doc]:
        """The documents named by ``dirty``."""
        out = []
        for root, rel in sorted(dirty.files):
            bank = self.banks.get(root)
            if bank is not None and rel in bank.files:
                out.append(Doc(bank, rel))
        for root in sorted(dirty.indexes):
            bank = self.banks.get(root)
            if bank is not None:
                out.append(Doc(bank, INDEX_NAME))
        return out

    # --- changes ------------------------------------------------------------------------------

    def _set_text(self, doc: Doc, text: str, utf8: bool = True) -> Dirty:
        self.version += 1
        if doc.is_index:
            doc.bank.index_text = text
            return self._changed(Dirty(indexes={doc.bank.root}))
        old = doc.bank.files.get(doc.rel)
        before = row_values(old) if old is not None else None
        affected = doc.bank.set_file(doc.rel, text, utf8, on_disk=self._is_on_disk(doc, text))
        dirty = Dirty(files={(doc.bank.root, r) for r in affected})
        if before != row_values(doc.bank.files[doc.rel]):
            dirty.indexes.add(doc.bank.root)
        return self._changed(dirty)

    def _is_on_disk(self, doc: Doc, text: str) -> bool:
        """Git mode: whether ``text`` is what the disk holds for ``doc`` (the bank service reads it,
        once until the disk moves); in the other modes it does not matter."""
        if doc.bank.config.staleness != "git":
            return False
        key = (doc.bank.root, doc.rel)
        if key not in self._disk_texts:
            self._disk_texts[key] = on_disk(doc.bank, doc.rel).text
        return self._disk_texts[key] == text

    def _disk_moved(self, path: Path) -> None:
        """What the disk holds for ``path`` is to be read again when next needed."""
        doc = self.doc(path)
        if doc is not None:
            self._disk_texts.pop((doc.bank.root, doc.rel), None)

    def new_day(self, day: CkpDate) -> Dirty:
        """Give every bank the day ``day``: when it is a new one, the findings of every file may
        have changed (a date no longer in the future, an uncommitted change dated today)."""
        if day == self.today:
            return Dirty()
        self.version += 1
        self.today = day
        for bank in self.banks.values():
            bank.today = day
        return self._changed(
            Dirty(files={(root, rel) for root, bank in self.banks.items() for rel in bank.files})
        )

    def opened(
        self, path: Path, text: str, bom: bool = False, uri: str | None = None, version: int | None = None
    ) -> Dirty:
        """The editor opened a document; ``text`` without the BOM ``bom`` says it had."""
        self._disk_moved(path)
        return self.changed(path, text, bom, uri, version)

    def changed(
        self, path: Path, text: str, bom: bool = False, uri: str | None = None, version: int | None = None
    ) -> Dirty:
        """The editor changed an open document (its disk text as known before: no disk is read)."""
        self.documents.put(path, text, bom, uri, version)
        doc = self.doc(path)
        return self._set_text(doc, text) if doc is not None else Dirty()

    def closed(self, path: Path) -> Dirty:
        """The editor closed a document: the disk's text is the truth again."""
        self.documents.drop(path)
        self._disk_moved(path)
        return self.disk_changed(path)

    def disk_changed(self, path: Path) -> Dirty:
        """A file was created or changed on disk (ignored while the editor has it open, but for
        what its disk text is)."""
        if path in self.documents:
            self._disk_moved(path)
            return Dirty()
        doc = self.doc(path)
        if doc is None:
            return Dirty()
        self.version += 1
        bank, rel = doc.bank, doc.rel
        before = row_values(old) if (old := bank.files.get(rel)) is not None else None
        affected, now = take_from_disk(bank, rel)
        dirty = Dirty(files={(bank.root, r) for r in affected or ()})
        if affected is None or before != (row_values(new) if (new := bank.files.get(rel)) else None):
            dirty.indexes.add(bank.root)
        if now.why is not None:
            dirty.skipped[path] = now.why
        return self._changed(dirty)

    def take_dates(self, bank: Bank, dates: Mapping[str, CkpDate] | None, saved: Iterable[Path]) -> Dirty:
        """Git mode: commit dates read off the event loop, after the open documents ``saved`` were
        written to disk (their text is the disk's now: no longer an uncommitted edit)."""
        self.version += 1
        dirty = Dirty(files={(bank.root, rel) for rel in bank.take_dates(dates)})
        for path in saved:
            self._disk_moved(path)
            doc, opened = self.doc(path), self.documents.at(path)
            if doc is not None and doc.bank is bank and not doc.is_index and opened is not None:
                dirty.update(self._set_text(doc, opened.text))
        return self._changed(dirty)

    def disk_deleted(self, path: Path) -> Dirty:
        self.version += 1
        doc = self.doc(path)
        if doc is None or path in self.documents:
            return Dirty()
        if doc.is_index:
            doc.bank.index_text = None
            return self._changed(Dirty(indexes={doc.bank.root}))
        if doc.rel not in doc.bank.files:
            return Dirty()
        affected = doc.bank.remove_file(doc.rel)
        return self._changed(Dirty(files={(doc.bank.root, r) for r in affected}, indexes={doc.bank.root}))
