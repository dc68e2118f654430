"""A bank and its index: concept -> file, reverse relationships and keyword claims.

The bank is updated one file at a time; each update says which files' findings may have changed,
so a language server re-checks exactly those.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Callable, Mapping
from pathlib import Path

from ckp_lsp.core.bank.cache import FileCache
from ckp_lsp.core.bank.claims import Claims
from ckp_lsp.core.bank.updated import UpdatedDates
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.knowledge import KnowledgeFile, read_knowledge_file
from ckp_lsp.core.format.limits import CLAIM_LIMIT
from ckp_lsp.core.format.suggest import NAME_WORD, suggest_concept
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.project.discovery import INDEX_NAME
from ckp_lsp.core.project.within import Folder

#: changes remembered for ``changed_since``; who asks about older ones starts over
_LOG_LIMIT = 1 << 16

#: how a face reads a bank (its bank service, ``faces.banks``): (root, configuration, cache) ->
#: the bank; the core is given one wherever it needs a bank read, and never reads one itself
Loader = Callable[[Path, Config, "FileCache | None"], "Bank"]


class Bank:
    """The knowledge files of one bank, indexed for the checks and the editor features."""

    def __init__(
        self,
        root: Path,
        config: Config | None = None,
        dates: UpdatedDates | None = None,
        today: CkpDate | None = None,
    ) -> None:
        self.root = root
        self.disk = Folder(root)  # the one way its files are read: never outside the bank
        self.config = config or Config()
        # Where the git and mtime staleness sources read (given by a face): without one, git mode
        # falls back to VALIDATED as outside a repository, and mtime mode knows no date.
        self.dates = dates
        # The day, given by a face (which reads the clock; the server moves it on at midnight):
        # what CKP052 compares dates with, an uncommitted change's updated date in git mode, and
        # the month re-validating writes. None: no date is in the future, an uncommitted change
        # has no date, and nothing can be re-validated.
        self.today = today
        self.files: dict[str, KnowledgeFile] = {}
        self.by_concept: dict[str, list[str]] = {}
        self.backlinks: dict[str, set[str]] = {}
        self.claims = Claims()
        self.index_text: str | None = None
        self.unreadable: dict[str, str] = {}  # *.md files that are skipped, and why
        self._dates: dict[str, CkpDate] | None = None  # git mode: commit dates, once read
        self._in_git = False  # until the dates source says the bank is in a git repository
        self._edited: set[str] = set()  # texts that differ from the disk: uncommitted, so ``today``
        self._claimants: dict[str, list[tuple[str, str]]] = {}  # keyword -> sorted (concept, path)
        self.generation = 0
        self._log: list[str] = []  # the path of each change, after the ``_log_base`` first ones
        self._log_base = 0
        # Every concept, sorted, and the concepts by each word of their names: made when first
        # asked, then kept up to date by each change (on a large bank, made again after each new
        # name, they would cost a completion or a keystroke in CONCEPT a tenth of a second).
        self._sorted_concepts: list[str] | None = None
        self._words: dict[str, list[str]] | None = None

    def snapshot(self) -> Bank:
        """A copy that later changes to this bank do not reach, for work off the owner's thread.

        The files themselves are shared (a change replaces a file, never alters it); every
        container ``__init__`` makes is copied.
        """
        snap = copy.copy(self)
        snap.files = dict(self.files)
        snap.by_concept = {k: list(v) for k, v in self.by_concept.items()}
        snap.backlinks = {k: set(v) for k, v in self.backlinks.items()}
        snap.claims = Claims()
        snap.claims.one = dict(self.claims.one)
        snap.claims.many = {k: set(v) for k, v in self.claims.many.items()}
        snap.unreadable = dict(self.unreadable)
        snap._dates = dict(self._dates) if self._dates is not None else None
        snap._edited = set(self._edited)
        snap._claimants = {k: list(v) for k, v in self._claimants.items()}
        snap._log = list(self._log)
        if self._sorted_concepts is not None:
            snap._sorted_concepts = list(self._sorted_concepts)
        snap._words = None  # made again if the snapshot is asked for a suggestion
        return snap

    def take_read(self, got: KnowledgeFile | tuple[str, str]) -> None:
        """Add a file its loader read: the file, or (its path, why it is not read)."""
        if isinstance(got, tuple):
            self.unreadable[got[0]] = got[1]
        else:
            self._add(got)

    @property
    def index_path(self) -> Path:
        return self.root / INDEX_NAME

    def concepts(self) -> list[str]:
        """Every concept declared in the bank, sorted (the same list, kept up to date: do not change it)."""
        if self._sorted_concepts is None:
            self._sorted_concepts = sorted(self.by_concept)
        return self._sorted_concepts

    def suggest(self, concept: str) -> str | None:
        """The concept of the bank closest to ``concept`` (CKP041's suggestion), or None."""
        return suggest_concept(concept, self.concepts(), self._concept_words)

    def _concept_words(self) -> dict[str, list[str]]:
        """Concepts by each word of their names (kept up to date once made; in no order)."""
        if self._words is None:
            words: dict[str, list[str]] = {}
            for name in self.by_concept:
                for word in set(NAME_WORD.split(name)):
                    words.setdefault(word, []).append(name)
            self._words = words
        return self._words

    def _concept_came(self, concept: str) -> None:
        """``concept`` is now declared by a file: the generation and what is kept of the concepts follow."""
        self.generation += 1
        if self._sorted_concepts is not None:
            bisect.insort(self._sorted_concepts, concept)
        if self._words is not None:
            for word in set(NAME_WORD.split(concept)):
                self._words.setdefault(word, []).append(concept)

    def _concept_left(self, concept: str) -> None:
        """No file declares ``concept`` any more."""
        self.generation += 1
        if self._sorted_concepts is not None:
            del self._sorted_concepts[bisect.bisect_left(self._sorted_concepts, concept)]
        if self._words is not None:
            for word in set(NAME_WORD.split(concept)):
                sharing = self._words[word]
                sharing.remove(concept)
                if not sharing:
                    del self._words[word]

    def file_of(self, concept: str) -> KnowledgeFile | None:
        """The (first) file that declares ``concept``."""
        paths = self.by_concept.get(concept)
        return self.files[paths[0]] if paths else None

    def sorted_files(self) -> list[KnowledgeFile]:
        return [self.files[p] for p in sorted(self.files)]

    # --- updates -------------------------------------------------------------------------------

    def set_file(self, rel: str, text: str, utf8: bool = True, *, on_disk: bool = False) -> set[str]:
        """Replace one file's text; returns the files whose findings may have changed. ``on_disk``:
        the face says the text is the disk's (read from it, or just written); in git mode any other
        text is an uncommitted change (the bank reads no disk to tell)."""
        old = self.files.get(rel)
        before = self._claim_state(old)
        generation = self.generation
        if old is not None:
            self._drop(old)
        new = read_knowledge_file(rel, text, utf8)
        self._add(new)
        if old is not None and old.concept == new.concept:
            # The concept left and came back: the set of concepts, and what is cached of it, is as it was.
            self.generation = generation
        if self.config.staleness == "git":
            # Unlike the disk's, an uncommitted change (dated ``today``); the disk's (opened,
            # saved) is not: its date is git's again, read again by the face that sees the disk move.
            if on_disk:
                self._edited.discard(rel)
            else:
                self._edited.add(rel)
        return self._affected(old, new, before, self.generation != generation)

    def remove_file(self, rel: str) -> set[str]:
        """Forget one file; returns the files whose findings may have changed."""
        old = self.files.get(rel)
        self.unreadable.pop(rel, None)
        if old is None:
            return set()
        before = self._claim_state(old)
        generation = self.generation
        self._drop(old)
        self._edited.discard(rel)
        return self._affected(old, None, before, self.generation != generation) - {rel}

    @property
    def revision(self) -> int:
        """How many times a file was added or dropped: a position in the change log."""
        return self._log_base + len(self._log)

    def changed_since(self, revision: int) -> set[str] | None:
        """The paths added, replaced or removed after ``revision``; None when that is too long ago."""
        if revision < self._log_base:
            return None
        return set(self._log[revision - self._log_base :])

    def _touch(self, path: str) -> None:
        if len(self._log) >= _LOG_LIMIT:
            self._log_base += len(self._log)
            self._log = []
        self._log.append(path)

    def _add(self, kf: KnowledgeFile) -> None:
        self._touch(kf.path)
        self.files[kf.path] = kf
        if kf.concept:
            if kf.concept not in self.by_concept:
                self._concept_came(kf.concept)
            # Sorted, so that the order of updates never shows (file_of, CKP011's message).
            bisect.insort(self.by_concept.setdefault(kf.concept, []), kf.path)
        backlinks, claims, claimants = self.backlinks, self.claims, self._claimants
        for rel in kf.relations:
            if rel[0] in backlinks:
                backlinks[rel[0]].add(kf.path)
            else:
                backlinks[rel[0]] = {kf.path}
        one, many, path = claims.one, claims.many, kf.path
        for text in kf.keyword_texts:  # ``claims.add``, inline: a bank adds every keyword of every file
            keyword = text.casefold()
            if keyword == text:
                keyword = text  # one string for both (casefold makes a copy)
            if claimants:
                claimants.pop(keyword, None)
            found = many.get(keyword)
            if found is not None:
                found.add(path)
                continue
            sole = one.setdefault(keyword, path)
            if sole != path:
                del one[keyword]
                many[keyword] = {sole, path}

    def _drop(self, kf: KnowledgeFile) -> None:
        self._touch(kf.path)
        del self.files[kf.path]
        if kf.concept and kf.concept in self.by_concept:
            paths = self.by_concept[kf.concept]
            paths.remove(kf.path)
            if not paths:
                del self.by_concept[kf.concept]
                self._concept_left(kf.concept)
        for concept, *_ in kf.relations:
            names = self.backlinks.get(concept)
            if names is not None:
                names.discard(kf.path)
                if not names:
                    del self.backlinks[concept]
        for text in kf.keyword_texts:
            keyword = text.casefold()
            self._claimants.pop(keyword, None)
            self.claims.discard(keyword, kf.path)

    def _claim_state(self, kf: KnowledgeFile | None) -> dict[str, tuple[int, tuple[str, ...]]]:
        if kf is None:
            return {}
        return {k: self.claim_state(k) for k in {t.casefold() for t in kf.keyword_texts}}

    def claimants(self, keyword: str) -> list[tuple[str, str]]:
        """(concept, file) of every file claiming ``keyword`` (casefolded), sorted; cached until it changes."""
        cached = self._claimants.get(keyword)
        if cached is None:
            paths = self.claims.get(keyword, ())
            cached = sorted((self.files[p].concept or "", p) for p in paths)
            self._claimants[keyword] = cached
        return cached

    def claim_state(self, keyword: str) -> tuple[int, tuple[str, ...]]:
        """What CKP032 findings on ``keyword`` depend on: how many files claim it, and their concepts."""
        claimers = self.claims.get(keyword, set())
        return len(claimers), tuple(sorted(self.files[p].concept or "" for p in claimers))

    def _affected(
        self,
        old: KnowledgeFile | None,
        new: KnowledgeFile | None,
        before: dict[str, tuple[int, tuple[str, ...]]],
        concepts_changed: bool = False,
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
        if concepts_changed:
            # CKP041 suggests the closest concept of the bank: a name that came or went can change it.
            out.update(p for c, paths in self.backlinks.items() if c not in self.by_concept for p in paths)
        keywords = set(before)
        if new is not None:
            keywords.update(t.casefold() for t in new.keyword_texts)
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
            # No source given: no modification time can be read, as of a file only in memory.
            return self.dates.modified(self.root / kf.path) if self.dates is not None else None
        # Git mode answers from the dates the face gave (at ``load``, then ``take_dates``): a check
        # runs no git, so a language server's checks never block its event loop on it.
        dates = self._dates
        if dates is None or not self._in_git:
            return kf.validated  # not in a git repository: nothing to ask, fall back to VALIDATED
        if kf.path in self._edited:
            return self.today
        date = dates.get(kf.path)
        if date is None and kf.path not in dates:
            return self.today  # never committed, or changed since: an uncommitted change counts as today
        return date

    def this_month(self) -> str:
        """``YYYY-MM`` of the bank's day: what re-validating and compiling write."""
        if self.today is None:
            raise ValueError("this bank was given no day (Bank(today=...)): it cannot tell this month")
        return self.today.month_text()

    @property
    def staleness_source(self) -> str:
        """The staleness mode in effect: ``git`` outside a repository falls back to ``validated``."""
        mode = self.config.staleness
        return "validated" if mode == "git" and not self._in_git else mode

    def take_dates(self, dates: Mapping[str, CkpDate] | None) -> set[str]:
        """Git mode: adopt the commit dates of the bank's files (None: not in a git repository);
        returns the files whose findings may have changed (those relating to a file whose date moved)."""
        old, was_in_git = self._dates or {}, self._in_git
        self._in_git, self._dates = dates is not None, dict(dates or {})
        if self._in_git != was_in_git:
            return set(self.files)
        new = self._dates
        out: set[str] = set()
        for path in old.keys() | new.keys():
            kf = self.files.get(path)
            if kf is not None and kf.concept and old.get(path) != new.get(path):
                out |= self.backlinks.get(kf.concept, set())
        return out
