"""Findings of ``_index.md`` (SPEC §4): conflict markers, its budget, and its drift from the bank's headers."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from weakref import WeakKeyDictionary

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.findings import Finding, apply_overrides
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import (
    TABLE_HEAD,
    IndexRow,
    _table_rows,
    expected_rows,
    index_lines,
    parse_index,
    row_differences,
    row_line,
    row_values,
    section_count,
)
from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START, markers, table_head
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.text import Span, split_lines, utf16_len


def check_index(bank: Bank) -> list[Finding]:
    """CKP070, CKP071 and CKP072 of the bank's ``_index.md``."""
    out: list[Finding] = []
    text = bank.index_text
    if text is None:
        if any(kf.concept for kf in bank.files.values()):
            out.append(
                Finding.of(
                    "CKP070",
                    Span(0, 0, 0, 0),
                    "the bank has no _index.md: generate it with `ckp index` (or the Regenerate index action)",
                )
            )
        return apply_overrides(out, bank.config.diagnostics)
    conflict = conflict_marker(text)
    if conflict is not None:
        out.append(
            Finding.of(
                "CKP072",
                conflict,
                "_index.md holds merge conflict markers: it is generated, so do not resolve it by hand; "
                "run `ckp index` on the bank after the merge and commit the result "
                "(`ckp index --install-merge-driver` makes git merge it by itself)",
            )
        )
        return apply_overrides(out, bank.config.diagnostics)
    starts = section_count(text)
    if len(starts) > 1:
        line = starts[1]
        out.append(
            Finding.of(
                "CKP070",
                Span(line, 0, line, utf16_len(split_lines(text)[line])),
                f"_index.md has {len(starts)} generated sections (another {INDEX_START} here): the "
                "copies are stale; `ckp index` (or Regenerate index) keeps the first and removes the others",
            )
        )
    drift = _table_drift(bank, text)
    if drift is not None:
        anchor, found = drift
        out.extend(found)
        return _budget(bank, text, anchor, out)
    lines = split_lines(text)  # as the parser and editors count lines (a lone CR ends one too)
    doc = parse_index(text)
    expected = expected_rows(bank)
    anchor_line = doc.start_line if doc.start_line is not None else 0
    anchor = Span(anchor_line, 0, anchor_line, utf16_len(lines[anchor_line]))
    if doc.start_line is None and not doc.rows:
        if expected:  # a hand-written index of a bank with headers: the rows belong beside it
            out.append(
                Finding.of(
                    "CKP070",
                    Span(0, 0, 0, utf16_len(lines[0])),
                    "_index.md has no generated section: `ckp index` (or Regenerate index) adds one "
                    f"between {INDEX_START} and {INDEX_END} and keeps your own text",
                )
            )
    else:
        by_key = {(r["CONCEPT"], r["FILE"]): r for r in expected}
        by_concept = {r["CONCEPT"]: r for r in expected}

        def want_of(row: IndexRow) -> dict[str, str] | None:
            return by_key.get((row.concept, row.file)) if row.file else by_concept.get(row.concept)

        out.extend(_drift(doc.rows, want_of, by_key, anchor, form=doc.form))
    return _budget(bank, text, anchor, out)


_CONFLICT_MARKS = ("<<<<<<<", "|||||||", "=======", ">>>>>>>")


def conflict_marker(text: str) -> Span | None:
    """The first line of ``text`` that is a merge conflict marker, or None."""
    if "<<<<<<<" not in text and ">>>>>>>" not in text:
        return None
    for n, line in enumerate(split_lines(text)):
        if line.startswith(_CONFLICT_MARKS) and (len(line) == 7 or line[7] in " \t"):
            return Span(n, 0, n, utf16_len(line))
    return None


def over_budget(bank: Bank, text: str) -> tuple[int, int] | None:
    """The index text ``text``'s estimated tokens and the bank's budget for it, when over it (CKP071)."""
    used, budget = token_estimate(len(text)), bank.config.index_budget_tokens
    return (used, budget) if used > budget else None


def _budget(bank: Bank, text: str, anchor: Span, out: list[Finding]) -> list[Finding]:
    """CKP071 added to ``out``, and the user's severities applied."""
    over = over_budget(bank, text)
    if over is not None:
        used, budget = over
        out.append(
            Finding.of(
                "CKP071",
                anchor,
                f"_index.md is ~{used:,} tokens, over its budget of {budget:,}: it is always in the agent's "
                "context, so shorten TLDRs and keywords or split the bank",
                tokens=used,
                budget=budget,
            )
        )
    return apply_overrides(out, bank.config.diagnostics)


class _Table:
    """The drift check of a generated index table, kept per bank: which lines of the index are a
    file's expected row, which are not (parsed), and which rows are missing. Brought up to date
    with the files changed since, so an edit does not compare a large index line by line again."""

    def __init__(self, bank: Bank, text: str, layout: tuple[list[str], int, int, int]) -> None:
        self.text = text
        self.lines, self.start, self.head, self.end = layout
        self.revision = bank.revision
        self.rows: dict[str, tuple[KnowledgeFile, tuple[str, str], str]] = {}  # path -> (kf, key, line)
        self.files: dict[tuple[str, str], KnowledgeFile] = {}  # (CONCEPT, FILE) -> its file
        self.expected: dict[str, tuple[str, str]] = {}  # a file's expected line -> (CONCEPT, FILE)
        self.at: dict[str, list[int]] = {}  # the index's row lines -> where they are
        for i in range(self.head + 1, self.end):
            self.at.setdefault(self.lines[i], []).append(i)
        for path, kf in bank.files.items():
            self._expect(path, kf)
        self.odd = {
            i: self._parse(i) for line, at in self.at.items() if line not in self.expected for i in at
        }
        self.unmatched = {key for line, key in self.expected.items() if line not in self.at}

    def _parse(self, i: int) -> list[IndexRow]:
        return _table_rows([self.lines[self.head], self.lines[i]], i - 1)

    def _expect(self, path: str, kf: KnowledgeFile) -> tuple[tuple[str, str], str] | None:
        if not kf.concept:
            return None
        values = row_values(kf)
        key, line = (values["CONCEPT"], values["FILE"]), row_line(values)
        self.rows[path] = (kf, key, line)
        self.files[key] = kf
        self.expected[line] = key
        return key, line

    def update(self, bank: Bank) -> bool:
        """Catch up with the files changed since; False when that cannot be told."""
        changed = bank.changed_since(self.revision)
        if changed is None:
            return False
        for path in changed:
            kf = bank.files.get(path)
            hit = self.rows.get(path)
            if hit is not None and hit[0] is kf:
                continue
            if hit is not None and kf is not None and kf.concept and row_line(row_values(kf)) == hit[2]:
                self.rows[path] = (kf, hit[1], hit[2])  # another text, the same row
                self.files[hit[1]] = kf
                continue
            if hit is not None:
                del self.rows[path]
                _, key, line = hit
                if self.files.get(key) is hit[0]:
                    del self.files[key]
                if self.expected.get(line) == key:
                    del self.expected[line]
                self.unmatched.discard(key)
                for i in self.at.get(line, ()):
                    self.odd[i] = self._parse(i)
            added = self._expect(path, kf) if kf is not None else None
            if added is not None:
                key, line = added
                if line in self.at:
                    for i in self.at[line]:
                        self.odd.pop(i, None)
                else:
                    self.unmatched.add(key)
        self.revision = bank.revision
        return True

    def findings(self) -> tuple[Span, list[Finding]]:
        anchor = Span(self.start, 0, self.start, utf16_len(self.lines[self.start]))
        if not self.odd and not self.unmatched:
            return anchor, []
        rows = [row for i in sorted(self.odd) for row in self.odd[i]]
        by_concept: dict[str, KnowledgeFile] = {}
        if any(not row.file for row in rows):  # rows without FILE are matched by concept, the last file first
            for key in sorted(self.files):
                by_concept[key[0]] = self.files[key]

        def want_of(row: IndexRow) -> dict[str, str] | None:
            kf = self.files.get((row.concept, row.file)) if row.file else by_concept.get(row.concept)
            return row_values(kf) if kf is not None else None

        return anchor, _drift(rows, want_of, self.unmatched, anchor)


_TABLES: WeakKeyDictionary[Bank, _Table] = WeakKeyDictionary()


def _table_drift(bank: Bank, text: str) -> tuple[Span, list[Finding]] | None:
    """CKP070 of a generated table, found line by line: a line equal to its file's expected row is
    current, and only the others are parsed. None when the index is not such a table."""
    layout = _table_layout(text)
    if layout is None:
        return None
    table = _TABLES.get(bank)
    if table is None or (table.text is not text and table.text != text) or not table.update(bank):
        table = _TABLES[bank] = _Table(bank, text, layout)
    return table.findings()


def kept_index_lines(bank: Bank, paths: Iterable[str]) -> list[int] | None:
    """The lines of the bank's generated index table that can hold a row of one of ``paths``:
    those equal to the row the path's file should have, and every line equal to no file's row (a
    hand edit, a row not regenerated yet), sorted. None when the drift check has not kept its table
    for the bank's index: building it reads every line, which one lookup would not repay."""
    text = bank.index_text
    table = _TABLES.get(bank)
    if text is None or table is None or (table.text is not text and table.text != text):
        return None
    if not table.update(bank):
        return None
    out = set(table.odd)
    for path in paths:
        kept = table.rows.get(path)
        if kept is not None:
            out.update(table.at.get(kept[2], ()))
    return sorted(out)


@functools.lru_cache(maxsize=2)
def _table_layout(text: str) -> tuple[list[str], int, int, int] | None:
    """The lines of a generated table index, its start marker, its head row and its end (None
    when the index is not one)."""
    lines = index_lines(text)
    start, end = markers(lines)
    if start is None:
        return None
    end = len(lines) if end is None else end
    head = table_head(lines, start + 1, end)
    if head is None or lines[head] != TABLE_HEAD[0]:
        return None
    return lines, start, head, end


def _drift(
    rows: list[IndexRow],
    want_of: Callable[[IndexRow], dict[str, str] | None],
    expected: Iterable[tuple[str, str]],
    anchor: Span,
    seen: set[tuple[str, str]] | None = None,
    form: str = "table",
) -> list[Finding]:
    """CKP070 of each row against the values it should have, and of the (CONCEPT, FILE) rows
    ``expected`` that are missing."""
    out: list[Finding] = []
    seen = set() if seen is None else seen
    for row in rows:
        want = want_of(row)
        span = Span(row.line, 0, row.line, row.length)
        if want is None:
            out.append(
                Finding.of(
                    "CKP070",
                    span,
                    f"the index lists '{row.concept}', which no file of the bank declares: regenerate the index",
                    concept=row.concept,
                )
            )
            continue
        seen.add((want["CONCEPT"], want["FILE"]))
        diff = row_differences(row.values, want, form)
        if diff:
            out.append(
                Finding.of(
                    "CKP070",
                    span,
                    f"the index row of '{row.concept}' differs from its header ({', '.join(diff)}): "
                    "regenerate the index",
                    concept=row.concept,
                )
            )
    missing = sorted(k for k in expected if k not in seen)
    if missing:
        names = ", ".join(c for c, _ in missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        out.append(
            Finding.of(
                "CKP070",
                anchor,
                f"the index is missing {names}: regenerate the index",
                missing=[c for c, _ in missing],
            )
        )
    return out
