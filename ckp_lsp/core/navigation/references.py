"""Where a concept is named in a bank: its declarations, the relationship entries that name it and
the cells of ``_index.md`` (read by ``index_cells``) — the lookups behind definition, references,
rename and links."""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.index_checks import kept_index_lines
from ckp_lsp.core.format.fields import CONCEPT_RE
from ckp_lsp.core.format.index_cells import (
    IndexCell,
    index_cell_at,
    index_cells_naming,
    index_layout,
    table_cells,
)
from ckp_lsp.core.format.index_format import first_cell, is_separator_line, is_table_line, table_head
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.text import Span
from ckp_lsp.core.navigation.locate import at
from ckp_lsp.core.project.discovery import INDEX_NAME


@dataclass(frozen=True, slots=True)
class Token:
    """The concept named under a cursor, and where its name is written there."""

    concept: str
    span: Span
    kind: str  # concept, relationship, index-concept, index-file, index-relationship
    file: str | None = None  # the index row's FILE, for index cells


@dataclass(frozen=True, slots=True)
class Mention:
    """Where a concept's name is written: a bank-relative path and the span of the name."""

    path: str
    span: Span
    kind: str  # concept, relationship, index-concept, index-relationship, index-file


@dataclass
class RenamePlan:
    """Text replacements per bank-relative path (``_index.md`` included) and files to move."""

    edits: dict[str, list[tuple[Span, str]]] = field(default_factory=dict)
    moves: list[tuple[str, str]] = field(default_factory=list)

    def add(self, path: str, span: Span, text: str) -> None:
        self.edits.setdefault(path, []).append((span, text))


# --- the index ---------------------------------------------------------------------------------


def bank_file(bank: Bank, file: str) -> KnowledgeFile | None:
    """The knowledge file an index FILE cell names; None for anything that is not a file of the bank."""
    if not file or "\\" in file or re.match(r"^[A-Za-z]:", file):
        return None
    path = PurePosixPath(file)
    if path.is_absolute() or ".." in path.parts:
        return None
    return bank.files.get(path.as_posix())


# --- what is under a cursor --------------------------------------------------------------------


def token_at(bank: Bank, rel: str, line: int, col: int) -> Token | None:
    """The concept named at a position of a knowledge file or of the bank's ``_index.md``."""
    if rel == INDEX_NAME:
        if bank.index_text is None:
            return None
        cell = index_cell_at(bank.index_text, line, col)
        if cell is None:
            return None
        if cell.column == "FILE":
            return Token(cell.concept, cell.span, "index-file", cell.file)
        kind = "index-concept" if cell.column == "CONCEPT" else "index-relationship"
        return Token(cell.text, cell.span, kind, cell.file)
    kf = bank.files.get(rel)
    if kf is None:
        return None
    found = at(kf, line, col)
    if found is None:
        return None
    if found.kind == "concept" and kf.concept and kf.concept_span is not None:
        return Token(kf.concept, kf.concept_span, "concept")
    if found.relationship is not None:
        return Token(found.relationship.concept, found.relationship.concept_span, "relationship")
    return None


# --- where a concept is named ------------------------------------------------------------------


def declarations(bank: Bank, concept: str) -> list[Mention]:
    """The CONCEPT values that declare ``concept`` (more than one when it is duplicated)."""
    out = []
    for path in sorted(bank.by_concept.get(concept, ())):
        kf = bank.files[path]
        out.append(Mention(path, kf.concept_span or Span(0, 0, 0, 0), "concept"))
    return out


def entries_naming(bank: Bank, concept: str) -> list[Mention]:
    """The concept part of every relationship entry that names ``concept``, file by file."""
    out: list[Mention] = []
    for path in sorted(bank.backlinks.get(concept, ())):
        out.extend(Mention(path, span, "relationship") for span in bank.files[path].entry_spans(concept))
    return out


def index_declarations(bank: Bank, concept: str) -> list[Mention]:
    """The index's CONCEPT cells of ``concept``: its row, not the rows that relate to it.

    A concept that a thousand files relate to is named on a thousand rows; in a generated table
    (CONCEPT first, rows sorted) its rows are found by bisection, in another table only the rows
    that start with it are read.
    """
    text = bank.index_text
    if text is None:
        return []
    lines, lo, hi, table = index_layout(text)
    head = table_head(lines, lo, hi) if table else None
    if head is None or first_cell(lines[head]).upper() != "CONCEPT":
        return [m for m in index_mentions(bank, concept) if m.kind == "index-concept"]
    rows = _sorted_rows(text)
    if rows is None:
        only = [n for n in range(head + 1, hi) if concept in lines[n] and first_cell(lines[n]) == concept]
    else:
        only = []
        n = bisect_left(range(*rows), concept, key=lambda n: first_cell(lines[n])) + rows[0]
        while n < rows[1] and first_cell(lines[n]) == concept:
            only.append(n)
            n += 1
    return [
        Mention(INDEX_NAME, c.span, "index-concept")
        for c in table_cells(lines, lo, hi, only)
        if c.column == "CONCEPT" and c.text == concept
    ]


@functools.lru_cache(maxsize=2)
def _sorted_rows(text: str) -> tuple[int, int] | None:
    """The lines [first, end) of the rows of an index table whose first column is CONCEPT, when
    they are all rows and sorted by it, as ``ckp index`` writes them; None otherwise (a table edited
    by hand is read line by line)."""
    lines, lo, hi, table = index_layout(text)
    head = table_head(lines, lo, hi) if table else None
    if head is None or first_cell(lines[head]).upper() != "CONCEPT":
        return None
    first = head + 1
    if first < hi and is_separator_line(lines[first]):
        first += 1
    before = ""
    for n in range(first, hi):
        line = lines[n]
        if not is_table_line(line):
            return None
        cell = first_cell(line)
        if cell < before:
            return None
        before = cell
    return first, hi


def index_mentions(bank: Bank, concept: str) -> list[Mention]:
    """The index's CONCEPT cells and relationship entries that name ``concept``."""
    if bank.index_text is None:
        return []
    out = []
    for cell in _index_cells_of(bank, (concept,), _naming_files(bank, concept)):
        if cell.column != "FILE" and cell.text == concept:
            kind = "index-concept" if cell.column == "CONCEPT" else "index-relationship"
            out.append(Mention(INDEX_NAME, cell.span, kind))
    return out


def _naming_files(bank: Bank, concept: str) -> set[str]:
    """The files whose index rows name ``concept`` when the index is current: those declaring it
    (their CONCEPT and FILE cells) and those whose entries name it."""
    return {*bank.by_concept.get(concept, ()), *bank.backlinks.get(concept, ())}


def _index_cells_of(bank: Bank, names: Collection[str], files: Iterable[str]) -> list[IndexCell]:
    """``index_cells_naming(bank.index_text, names)``, for names that a current index writes
    only on the rows of ``files``.

    A concept named by a thousand files is named on a thousand rows of a large index: the drift
    check keeps which lines are which file's row, so only those rows and the lines no file
    explains (edited by hand, not regenerated) are read rather than the whole index.
    """
    text = bank.index_text
    if text is None:
        return []
    only = kept_index_lines(bank, files)
    if only is None:
        return index_cells_naming(text, names)
    lines, lo, hi, _ = index_layout(text)
    return [c for c in table_cells(lines, lo, hi, only) if c.text in names]


def target_files(bank: Bank, token: Token) -> list[KnowledgeFile]:
    """The files a token leads to: an index row's own file, else the files declaring the concept."""
    if token.kind in ("index-concept", "index-file") and token.file:
        kf = bank_file(bank, token.file)
        return [kf] if kf is not None else []
    if token.kind == "index-file":
        return []
    return [bank.files[p] for p in sorted(bank.by_concept.get(token.concept, ()))]


def backlink_counts(bank: Bank, concept: str) -> dict[str, int]:
    """How many files name ``concept`` in each tier."""
    counts = {"HIGH": 0, "MID": 0}
    for path in bank.backlinks.get(concept, ()):
        tiers = {r[1] for r in bank.files[path].relations if r[0] == concept}
        for tier in tiers:
            counts[tier] += 1
    return counts


# --- rename ------------------------------------------------------------------------------------


def moved_path(path: str, concept: str, new: str) -> str | None:
    """The new path of a file named after its concept (``patterns/jwt.md`` -> ``patterns/<new>.md``)."""
    p = PurePosixPath(path)
    if p.stem != concept:
        return None
    return p.with_name(new + p.suffix).as_posix()


def rename_problem(bank: Bank, concept: str, new: str, move_files: bool = True) -> str | None:
    """Why ``concept`` cannot be renamed to ``new``, or None when it can."""
    if concept not in bank.by_concept:
        return f"'{concept}' is not declared by any file of the bank: only a declared concept can be renamed"
    if not CONCEPT_RE.match(new):
        return (
            f"'{new}' is not a valid concept name: use lower-case letters, digits, '.', '_' and '-', "
            "starting with a letter or a digit"
        )
    if new != concept and new in bank.by_concept:
        where = ", ".join(sorted(bank.by_concept[new]))
        return f"the concept '{new}' already exists ({where}): choose another name"
    if move_files and new != concept:
        for path in bank.by_concept[concept]:
            target = moved_path(path, concept, new)
            if target is not None and (target in bank.files or (bank.root / target).exists()):
                return f"the file {target} already exists: choose another name or move that file first"
    return None


def plan_rename(bank: Bank, concept: str, new: str, move_files: bool = True) -> RenamePlan:
    """Every replacement that renames ``concept`` to ``new`` (call ``rename_problem`` first)."""
    plan = RenamePlan()
    if new == concept:
        return plan
    for m in (*declarations(bank, concept), *entries_naming(bank, concept)):
        plan.add(m.path, m.span, new)
    moves: dict[str, str] = {}
    if move_files:
        for path in sorted(bank.by_concept.get(concept, ())):
            target = moved_path(path, concept, new)
            if target is not None:
                moves[path] = target
    plan.moves = sorted(moves.items())
    if bank.index_text is not None:
        for cell in _index_cells_of(bank, {concept, *moves}, _naming_files(bank, concept)):
            if cell.column == "FILE":
                if cell.text in moves:
                    plan.add(INDEX_NAME, cell.span, moves[cell.text])
            elif cell.text == concept:
                plan.add(INDEX_NAME, cell.span, new)
    return plan


# --- made ahead --------------------------------------------------------------------------------


def prepare(bank: Bank) -> None:
    """Make what the lookups read of a bank the first time they are asked (the sorted concepts,
    the rows of its index), so that a server does it on the thread that reads the bank: on a bank
    of 100,000 files it takes a tenth of a second, which the first completion or references request
    would otherwise wait for."""
    bank.concepts()
    if bank.index_text is not None:
        _sorted_rows(bank.index_text)
