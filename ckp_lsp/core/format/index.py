"""The index of a bank (SPEC §5): generate ``_index.md``'s section, parse it back, detect drift."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ckp_lsp.core.format.fields import CKP_FIELDS, LIST_FIELDS
from ckp_lsp.core.format.index_format import (
    BLOCK_KEY,
    INDEX_END,
    INDEX_START,
    cells,
    is_separator,
    is_table_line,
    marker_lines,
    markers,
    section_lines,
    section_offsets,
)
from ckp_lsp.core.format.text import newline_of, split_lines, utf16_len

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank
    from ckp_lsp.core.format.knowledge import KnowledgeFile

#: a row is the header's fields (SPEC §2) with the file's path after the concept
COLUMNS = ("CONCEPT", "FILE", *CKP_FIELDS[1:])
#: what routing reads of a row (SPEC §6): the ``compact`` index (``index_format = "compact"``)
#: keeps only these, and writes the relationships without their dates
COMPACT_COLUMNS = ("CONCEPT", "FILE", "TLDR", "ANSWERS_WHEN", "SIMILAR_HIGH", "SIMILAR_MID")
_LISTS = LIST_FIELDS


@dataclass
class IndexRow:
    """One concept's row (or block) in ``_index.md``."""

    values: dict[str, str]
    line: int
    length: int  # of the row's first line in UTF-16 units, for a range

    @property
    def concept(self) -> str:
        return self.values.get("CONCEPT", "")

    @property
    def file(self) -> str:
        return self.values.get("FILE", "")


@dataclass
class IndexDoc:
    """What ``_index.md`` holds: its generated rows and where the section is."""

    rows: list[IndexRow] = field(default_factory=list)
    start_line: int | None = None
    end_line: int | None = None
    form: str = "table"


@functools.lru_cache(maxsize=2)
def index_lines(text: str) -> list[str]:
    """``split_lines(text)`` of an ``_index.md``, kept: checks and navigation read the same large
    index again and again (do not change the list)."""
    return split_lines(text)


def row_values(kf: KnowledgeFile) -> dict[str, str]:
    """The index values of one file, as its header writes them."""
    written = kf.written()
    written["CONCEPT"] = kf.concept or ""
    written["FILE"] = kf.path
    return {c: _defuse(" ".join(written.get(c, "").split())) for c in COLUMNS}


def _defuse(value: str) -> str:
    """``value`` unable to open an HTML comment, so no header can write an index marker (the
    section would end early and grow on every run); Markdown shows ``<\\!--`` as ``<!--``."""
    return value.replace("<!--", "<\\!--") if "<!--" in value else value


def expected_rows(bank: Bank) -> list[dict[str, str]]:
    """The rows the index should hold, sorted by concept then file."""
    rows = [row_values(kf) for kf in bank.files.values() if kf.concept]
    rows.sort(key=lambda r: (r["CONCEPT"], r["FILE"]))
    return rows


def _head(columns: tuple[str, ...]) -> tuple[str, str]:
    return "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)


#: the first two lines of a generated table, and of a compact one
TABLE_HEAD = _head(COLUMNS)
COMPACT_HEAD = _head(COMPACT_COLUMNS)


def row_line(values: dict[str, str], columns: tuple[str, ...] = COLUMNS) -> str:
    """One row of the generated table."""
    return "| " + " | ".join([values[c].replace("|", "\\|") for c in columns]) + " |"


def compact_values(values: dict[str, str]) -> dict[str, str]:
    """A row's values as the compact index writes them: routing's columns, relationships undated."""
    out = {c: values.get(c, "") for c in COMPACT_COLUMNS}
    for c in ("SIMILAR_HIGH", "SIMILAR_MID"):
        out[c] = ", ".join(e.partition(":")[0].strip() for e in out[c].split(",") if e.strip())
    return out


def render_section(rows: list[dict[str, str]], form: str, nl: str = "\n") -> str:
    """The generated section, markers included."""
    out = [INDEX_START]
    if form == "blocks":
        for r in rows:
            out.append("---")
            out.extend(f"{c}: {r[c]}" for c in COLUMNS if r[c])
        out.append("---")
    elif form == "compact":
        out.extend(COMPACT_HEAD)
        out.extend(row_line(compact_values(r), COMPACT_COLUMNS) for r in rows)
    else:
        out.extend(TABLE_HEAD)
        out.extend(row_line(r) for r in rows)
    out.append(INDEX_END)
    return nl.join(out)


def write_index(bank: Bank, text: str) -> None:
    """Writes ``text`` as the bank's ``_index.md``: refused (``WriteRefused``) if the file changed
    on disk since the bank read it, or appeared there when the bank had none."""
    from ckp_lsp.core.edit.writes import write_atomic

    write_atomic(
        bank.index_path, text, expected=bank.index_text, new_file=bank.index_text is None, within=bank.root
    )


def update_index_text(existing: str | None, bank: Bank, form: str | None = None) -> str:
    """``_index.md`` with its generated section regenerated; everything outside the markers kept."""
    form = form or bank.config.index_format
    if existing is None:
        section = render_section(expected_rows(bank), form)
        return (
            f"# Memory bank index\n\nGenerated by `ckp index`; edit outside the markers only.\n\n{section}\n"
        )
    nl = newline_of(existing)
    section = render_section(expected_rows(bank), form, nl)
    start, end = section_offsets(existing)
    if start >= 0 and end < 0:
        # The end marker was lost: the old section (its table or blocks) is replaced, not repeated.
        return existing[:start] + section + existing[_generated_end(existing, start) :]
    if start < 0:
        # A hand-written index: the user's text stays as it is, the section goes after it.
        sep = "" if existing.endswith(("\n", "\r")) or not existing else nl
        return existing + sep + (nl if existing else "") + section + nl
    rest = existing[end + len(INDEX_END) :]
    return existing[:start] + section + _without_sections(rest)


def _without_sections(text: str) -> str:
    """``text`` without the generated sections it holds: a second copy (two editors or agents
    each added one) is stale, and only the first is regenerated."""
    while (start := (found := section_offsets(text))[0]) >= 0:
        end = found[1]
        stop = _generated_end(text, start) if end < 0 else end + len(INDEX_END)
        before = text[:start].rstrip(" \t")
        after = text[stop:]
        if before.endswith("\n") and after.startswith(("\r\n", "\n")):
            after = after[2:] if after.startswith("\r\n") else after[1:]
        text = before + after
    return text


def section_count(text: str) -> list[int]:
    """The 0-based lines of the generated sections' start markers, in order."""
    return marker_lines(split_lines(text), (INDEX_START,))


def _generated_end(text: str, start: int) -> int:
    """Where a section whose end marker is missing ends: after the run of table rows or header
    blocks that follows its start marker."""
    pos = text.find("\n", start)
    if pos < 0:
        return len(text)
    pos += 1
    while pos < len(text):
        nl = text.find("\n", pos)
        line = text[pos : len(text) if nl < 0 else nl].strip()
        if not (line.startswith("|") or line == "---" or BLOCK_KEY.match(line)):
            break
        pos = len(text) if nl < 0 else nl + 1
    return pos


def adds_section(existing: str | None) -> bool:
    """Whether regenerating adds the section to a hand-written index (one without markers)."""
    return existing is not None and INDEX_START not in existing


ADDED_SECTION = (
    f"added the generated section between {INDEX_START} and {INDEX_END} after your own text, "
    "which is kept as it is"
)


def parse_index(text: str) -> IndexDoc:
    """The generated rows of ``_index.md`` (a table or header blocks), with their lines."""
    lines = split_lines(text)
    doc = IndexDoc()
    doc.start_line, doc.end_line = markers(lines)
    lo, hi = section_lines(lines)
    body = lines[lo:hi]
    table = any(is_table_line(line) for line in body)
    if doc.start_line is None and not _holds_ckp_rows(body, table):
        return doc  # a hand-written index (a table of links, notes): the user's, not CKP rows
    if table:
        doc.rows = _table_rows(body, lo)
        head = next(line for line in body if is_table_line(line))
        if tuple(c.upper() for c in cells(head)) == COMPACT_COLUMNS:
            doc.form = "compact"
    else:
        doc.form = "blocks"
        doc.rows = _block_rows(body, lo)
    return doc


def row_at(text: str, line: int) -> IndexRow | None:
    """The generated row (or header block) of ``_index.md`` that ``line`` belongs to.

    Only the lines around ``line`` are parsed, so hovering a large index stays instant.
    """
    lines = index_lines(text)
    if not 0 <= line < len(lines):
        return None
    marks = marker_lines(lines)
    if marks and not (marks[0] < line and (len(marks) == 1 or line < marks[1])):
        return None  # outside the generated section: the user's own text
    if is_table_line(lines[line]):
        head = line
        while head > 0 and is_table_line(lines[head - 1]):
            head -= 1
        if head == line:
            return None
        rows = _table_rows([lines[head], lines[line]], line - 1)
        return rows[0] if rows else None
    if not BLOCK_KEY.match(lines[line]):
        return None
    start = line
    while start > 0 and BLOCK_KEY.match(lines[start - 1]) and not lines[start].startswith("CONCEPT:"):
        start -= 1
    end = line + 1
    while end < len(lines) and BLOCK_KEY.match(lines[end]) and not lines[end].startswith("CONCEPT:"):
        end += 1
    rows = _block_rows(lines[start:end], start)
    return next((r for r in reversed(rows) if r.line <= line), None)


def _holds_ckp_rows(lines: list[str], table: bool) -> bool:
    """Whether an index without markers is still CKP's: a table headed by a CONCEPT column, or
    header blocks."""
    if table:
        head = next(line for line in lines if is_table_line(line))
        return "CONCEPT" in (c.upper() for c in cells(head))
    return any(line.startswith("CONCEPT:") for line in lines)


def _table_rows(lines: list[str], offset: int) -> list[IndexRow]:
    rows: list[IndexRow] = []
    columns: list[str] | None = None
    for i, line in enumerate(lines):
        if not is_table_line(line):
            continue
        row = cells(line)
        if columns is None:
            columns = [c.upper() for c in row]
            continue
        if is_separator(row):
            continue
        values = {c: " ".join(v.split()) for c, v in zip(columns, row, strict=False)}
        rows.append(IndexRow(values, offset + i, utf16_len(line)))
    return rows


def _block_rows(lines: list[str], offset: int) -> list[IndexRow]:
    rows: list[IndexRow] = []
    current: IndexRow | None = None
    for i, line in enumerate(lines):
        m = BLOCK_KEY.match(line)
        if m is None:
            if line.strip() == "---":
                current = None
            continue
        key, value = m.group(1), " ".join(m.group(2).split())
        if key == "CONCEPT" or current is None:
            current = IndexRow({}, offset + i, utf16_len(line))
            rows.append(current)
        current.values[key] = value
    return rows


def _norm(key: str, value: str) -> str:
    if key in _LISTS:
        return ", ".join(p.strip() for p in value.split(",") if p.strip())
    return value.strip()


def row_differences(actual: dict[str, str], expected: dict[str, str], form: str = "table") -> list[str]:
    """The columns in which an index row (of an index in ``form``) differs from its file's header."""
    if form == "compact":
        expected = compact_values(expected)
    keys = [c for c in (COMPACT_COLUMNS if form == "compact" else COLUMNS) if c != "FILE" or "FILE" in actual]
    return [c for c in keys if _norm(c, actual.get(c, "")) != _norm(c, expected.get(c, ""))]
