"""A bank and its index: concept -> file, reverse relationships and keyword claims.

The bank is updated one file at a time; each update says which files' findings may have changed,
so a language server re-checks exactly those.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .config import Config
from .dates import CkpDate, today
from .discovery import INDEX_NAME, knowledge_files
from .knowledge import KnowledgeFile, read_knowledge_file
from .text import decode
from .updated import git_dates, mtime_date

#: a keyword claimed by this many other concepts is ambiguous (CKP032)
CLAIM_LIMIT = 3


def read_text(path: Path) -> tuple[str, bool]:
    """Text of a file on disk (BOM stripped) and whether it was UTF-8; OSError propagates."""
    with path.open("rb") as fh:
        return decode(fh.read())


class Bank:
    """The knowledge files of one bank, indexed for the checks and the editor features."""

    def __init__(self, root: Path, config: Config | None = None) -> None:
        self.root = root
        self.config = config or Config()
        self.files: dict[str, KnowledgeFile] = {}
        self.by_concept: dict[str, list[str]] = {}
        self.backlinks: dict[str, set[str]] = {}
        self.claims: dict[str, set[str]] = {}
        self.index_text: str | None = None
        self.unreadable: dict[str, str] = {}
        self._dates: dict[str, CkpDate] | None = None
        self.generation = 0  # bumped whenever a concept appears in or leaves ``by_concept``

    @classmethod
    def load(cls, root: Path, config: Config | None = None) -> Bank:
        """A bank read from disk."""
        bank = cls(root, config)
        for rel in knowledge_files(root, bank.config.exclude):
            try:
                text, utf8 = read_text(root / rel)
            except OSError as exc:
                bank.unreadable[rel] = exc.strerror or str(exc)
                continue
            bank._add(read_knowledge_file(rel, text, utf8))
        bank.reload_index()
        return bank

    @property
    def index_path(self) -> Path:
        return self.root / INDEX_NAME

    def reload_index(self) -> None:
        """Read ``_index.md`` from disk (None when it does not exist)."""
        try:
            self.index_text = read_text(self.index_path)[0]
        except OSError:
            self.index_text = None

    def concepts(self) -> list[str]:
        """Every concept declared in the bank, sorted."""
        return sorted(self.by_concept)

    def file_of(self, concept: str) -> KnowledgeFile | None:
        """The (first) file that declares ``concept``."""
        paths = self.by_concept.get(concept)
        return self.files[paths[0]] if paths else None

    def sorted_files(self) -> list[KnowledgeFile]:
        return [self.files[p] for p in sorted(self.files)]

    # --- updates -------------------------------------------------------------------------------

    def set_file(self, rel: str, text: str, utf8: bool = True) -> set[str]:
        """Replace one file's text; returns the files whose findings may have changed."""
        old = self.files.get(rel)
        before = self._claim_state(old)
        if old is not None:
            self._drop(old)
        new = read_knowledge_file(rel, text, utf8)
        self._add(new)
        if self._dates is not None and self.config.staleness != "validated":
            self._dates.pop(rel, None)
        return self._affected(old, new, before)

    def remove_file(self, rel: str) -> set[str]:
        """Forget one file; returns the files whose findings may have changed."""
        old = self.files.get(rel)
        self.unreadable.pop(rel, None)
        if old is None:
            return set()
        before = self._claim_state(old)
        self._drop(old)
        return self._affected(old, None, before) - {rel}

    def _add(self, kf: KnowledgeFile) -> None:
        self.files[kf.path] = kf
        if kf.concept:
            if kf.concept not in self.by_concept:
                self.generation += 1
            self.by_concept.setdefault(kf.concept, []).append(kf.path)
        for rel in kf.relationships:
            self.backlinks.setdefault(rel.concept, set()).add(kf.path)
        for item in kf.keywords:
            self.claims.setdefault(item.text.casefold(), set()).add(kf.path)

    def _drop(self, kf: KnowledgeFile) -> None:
        del self.files[kf.path]
        if kf.concept and kf.concept in self.by_concept:
            paths = self.by_concept[kf.concept]
            paths.remove(kf.path)
            if not paths:
                del self.by_concept[kf.concept]
                self.generation += 1
        for rel in kf.relationships:
            names = self.backlinks.get(rel.concept)
            if names is not None:
                names.discard(kf.path)
                if not names:
                    del self.backlinks[rel.concept]
        for item in kf.keywords:
            claimers = self.claims.get(item.text.casefold())
            if claimers is not None:
                claimers.discard(kf.path)
                if not claimers:
                    del self.claims[item.text.casefold()]

    def _claim_state(self, kf: KnowledgeFile | None) -> dict[str, tuple[int, tuple[str, ...]]]:
        if kf is None:
            return {}
        return {k: self.claim_state(k) for k in {i.text.casefold() for i in kf.keywords}}

    def claim_state(self, keyword: str) -> tuple[int, tuple[str, ...]]:
        """What CKP032 findings on ``keyword`` depend on: the count (capped) and the first claimers."""
        claimers = self.claims.get(keyword, set())
        return min(len(claimers), CLAIM_LIMIT + 2), tuple(sorted(claimers)[: CLAIM_LIMIT + 2])

    def _affected(
        self,
        old: KnowledgeFile | None,
        new: KnowledgeFile | None,
        before: dict[str, tuple[int, tuple[str, ...]]],
    ) -> set[str]:
        out: set[str] = set()
        for kf in (old, new):
            if kf is None:
                continue
            out.add(kf.path)
            if kf.concept:
                out.update(self.backlinks.get(kf.concept, ()))
                out.update(self.by_concept.get(kf.concept, ()))
        if (
            old is not None
            and new is not None
            and old.concept == new.concept
            and old.validated == new.validated
        ) and self.config.staleness == "validated":
            # Backlinkers only care about the concept and its date.
            out = {new.path} | set(self.by_concept.get(new.concept or "", ()))
        keywords = set(before)
        if new is not None:
            keywords.update(i.text.casefold() for i in new.keywords)
        for k in keywords:
            if before.get(k) != self.claim_state(k) or k not in before:
                claimers = self.claims.get(k, set())
                if len(claimers) > CLAIM_LIMIT or before.get(k, (0,))[0] > CLAIM_LIMIT:
                    out.update(claimers)
        return {p for p in out if p in self.files or (new is not None and p == new.path)}

    # --- dates ---------------------------------------------------------------------------------

    def updated_date(self, kf: KnowledgeFile) -> CkpDate | None:
        """The file's updated date under the configured staleness source (SPEC §3)."""
        mode = self.config.staleness
        if mode == "validated":
            return kf.validated
        if mode == "mtime":
            return mtime_date(self.root / kf.path)
        if self._dates is None:
            self._dates = git_dates(self.root) or {}
        date = self._dates.get(kf.path)
        if date is None and kf.path not in self._dates:
            return today()  # never committed: an uncommitted change counts as today
        return date

    def refresh_dates(self) -> None:
        """Forget cached commit dates (after a commit, a checkout)."""
        self._dates = None


def load_banks(roots: Iterable[Path], config: Config) -> list[Bank]:
    """Every bank below ``roots``, loaded."""
    from .discovery import find_banks

    return [Bank.load(b, config) for b in find_banks(roots, [Path(p) for p in config.banks])]
