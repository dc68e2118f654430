"""What the router needs of a bank: each file's concept, keywords, relationships and size.

A table comes from a loaded ``Bank``, or straight from disk. On disk, a large bank is read the
way the pattern intends an agent to read it: from ``_index.md``, whose rows are the headers.
Only the files the index is not current for (changed after it was written, or missing from it)
are opened; the others are only listed, and their size in bytes stands in for characters
(equal for ASCII text). Small banks, and banks without an index, are read in full.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index_format import route_rows
from ckp_lsp.core.format.records import Record
from ckp_lsp.core.project.discovery import INDEX_NAME, markdown_entries
from ckp_lsp.core.project.within import Folder

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank, Loader
    from ckp_lsp.core.bank.cache import FileCache
    from ckp_lsp.core.format.knowledge import KnowledgeFile
    from ckp_lsp.core.project.config import Config

#: below this many files, reading every file costs less than it saves
FULL_READ_LIMIT = 500
#: separates keywords in a table: a keyword as written may hold a comma (a YAML list item)
SEPARATOR = "\x1f"


class RouteTable(Record):
    """The routing view of a bank, one column entry per knowledge file (in no particular order).

    Columns rather than an object per file: a large bank is read with fewer allocations.
    """

    _fields = ("paths", "concepts", "keywords", "high", "mid", "sizes", "index_tokens", "tldrs", "root")
    __slots__ = _fields

    def __init__(
        self,
        paths: list[str] | None = None,
        concepts: list[str] | None = None,  # "" for a file without CONCEPT
        keywords: list[str] | None = None,  # ANSWERS_WHEN items joined by SEPARATOR
        high: list[str] | None = None,  # SIMILAR_HIGH as written: "jwt:2025-05, oauth2"
        mid: list[str] | None = None,  # SIMILAR_MID as written
        sizes: list[int] | None = None,  # characters
        index_tokens: int = 0,
        tldrs: list[str] | None = None,  # "" where read from the index
        #: where the files' bodies can be read (the ranked router reads them); None: headers only
        root: Path | None = None,
    ) -> None:
        self.paths: list[str] = [] if paths is None else paths
        self.concepts: list[str] = [] if concepts is None else concepts
        self.keywords: list[str] = [] if keywords is None else keywords
        self.high: list[str] = [] if high is None else high
        self.mid: list[str] = [] if mid is None else mid
        self.sizes: list[int] = [] if sizes is None else sizes
        self.index_tokens = index_tokens
        self.tldrs: list[str] = [] if tldrs is None else tldrs
        self.root = root

    def add(
        self, path: str, concept: str, keywords: str, high: str, mid: str, size: int, tldr: str = ""
    ) -> None:
        self.tldrs.append(tldr)
        self.paths.append(path)
        self.concepts.append(concept)
        self.keywords.append(keywords)
        self.high.append(high)
        self.mid.append(mid)
        self.sizes.append(size)

    def add_file(self, kf: KnowledgeFile) -> None:
        """Add a parsed knowledge file (from its keywords and relationships in brief: a file read
        by the fast scan is not parsed in full for it)."""
        self.add(
            kf.path,
            " ".join((kf.concept or "").split()),
            SEPARATOR.join(" ".join(k.split()) for k in kf.keyword_texts),
            ", ".join(c for c, tier, _, _ in kf.relations if tier == "HIGH"),
            ", ".join(c for c, tier, _, _ in kf.relations if tier == "MID"),
            kf.size,
            kf.tldr,
        )

    def __len__(self) -> int:
        return len(self.paths)


def related(value: str) -> list[str]:
    """The concepts of a SIMILAR_* value: ``jwt:2025-05, oauth2`` -> ``["jwt", "oauth2"]``."""
    return [e.partition(":")[0].strip() for e in value.split(",") if e.strip()]


def table_of_bank(bank: Bank) -> RouteTable:
    """The table of a loaded bank; without ``_index.md`` the index is the one `ckp index` would write."""
    from ckp_lsp.core.format.index import update_index_text

    table = table_of_files(
        (bank.files[p] for p in sorted(bank.files)),
        token_estimate(
            len(bank.index_text if bank.index_text is not None else update_index_text(None, bank))
        ),
    )
    table.root = bank.root
    return table


def table_of_files(files: Iterable[KnowledgeFile], index_tokens: int) -> RouteTable:
    """The table of parsed knowledge files (in the order given)."""
    table = RouteTable(index_tokens=index_tokens)
    for kf in files:
        table.add_file(kf)
    return table


def read_route_table(
    root: Path,
    config: Config,
    full_read_limit: int = FULL_READ_LIMIT,
    cache: FileCache | None = None,
    *,
    load: Loader,
) -> RouteTable:
    """The table of the bank at ``root``, opening only the files ``_index.md`` is not current for;
    a bank read in full is read by ``load`` (the face's bank service).

    Files come in index order, then the files read from disk by path.
    """
    disk = Folder(root)
    listing = _list_files(disk, config.exclude)
    index = _read_index(disk)
    if index is None or len(listing) <= full_read_limit:
        return table_of_bank(load(root, config, cache))
    text, mtime_ns = index
    table = RouteTable(index_tokens=token_estimate(len(text)))
    stale = []
    for rel, concept, keywords, high, mid in route_rows(text) or _block_rows(text):
        found = listing.pop(rel, None)  # None: not a knowledge file, or a second row for it
        if found is None:
            continue
        if found[1] < mtime_ns:
            table.add(rel, concept, keywords.replace(",", SEPARATOR), high, mid, found[0])
        else:
            stale.append(rel)
    for rel in sorted([*stale, *listing]):
        kf = _read_file(disk, rel)
        if kf is not None:
            table.add_file(kf)
    return table


def _exclusion(exclude: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for the ``exclude`` globs, matched against a path and a file name as fnmatch does."""
    globs = [fnmatch.translate(os.path.normcase(g)) for g in exclude]
    return re.compile("|".join(f"(?:{g})" for g in globs)) if globs else None


def _list_files(disk: Folder, exclude: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Path -> (size in bytes, mtime in ns) of every knowledge file: the files of ``knowledge_files``."""
    excluded = _exclusion(exclude)
    out: dict[str, tuple[int, int]] = {}
    for rel, e in markdown_entries(disk.root):
        if rel == INDEX_NAME:
            continue
        if excluded is not None and (
            excluded.match(os.path.normcase(rel)) or excluded.match(os.path.normcase(e.name))
        ):
            continue
        try:
            st = e.stat()
            # A symlinked file counts only when it points inside the bank (``stat`` followed it).
            if e.is_symlink() and not disk.holds(e.path):
                continue
        except (OSError, RuntimeError):
            continue
        if stat.S_ISREG(st.st_mode):
            out[rel] = (st.st_size, st.st_mtime_ns)
    return out


def _read_index(disk: Folder) -> tuple[str, int] | None:
    """Text of ``_index.md`` (BOM stripped) and its mtime, or None when it cannot be read."""
    path = disk.root / INDEX_NAME
    try:
        mtime_ns = os.stat(path).st_mtime_ns  # before the read: a later change makes it stale
        text = disk.read(path).text
    except OSError:
        return None
    return text, mtime_ns


def _block_rows(text: str) -> Iterator[tuple[str, str, str, str, str]]:
    """The rows of an index of header blocks, as ``route_rows`` gives a table's."""
    from ckp_lsp.core.format.index import parse_index

    for r in parse_index(text).rows:
        v = r.values
        yield (
            r.file,
            r.concept,
            v.get("ANSWERS_WHEN", ""),
            v.get("SIMILAR_HIGH", ""),
            v.get("SIMILAR_MID", ""),
        )


def _read_file(disk: Folder, rel: str) -> KnowledgeFile | None:
    from ckp_lsp.core.format.knowledge import read_knowledge_file

    try:
        text, utf8, _ = disk.read(disk.base + rel)
    except OSError:
        return None
    return read_knowledge_file(rel, text, utf8)
