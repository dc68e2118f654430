"""The cells of ``_index.md`` that name a concept or a file, each with its span: its table's rows and its blocks' entries."""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from ckp_lsp.core.format.index import index_lines
from ckp_lsp.core.format.index_format import (
    BLOCK_KEY,
    CELL_SPLIT,
    SEPARATOR,
    is_table_line,
    section_lines,
    table_head,
)
from ckp_lsp.core.format.text import Span, line_offsets, span_of

_TIERS = ("SIMILAR_HIGH", "SIMILAR_MID")


@dataclass(frozen=True, slots=True)
class IndexCell:
    """A CONCEPT or FILE cell of an index row, or the concept part of one of its relationship entries."""

    column: str
    text: str
    span: Span
    concept: str  # the row's CONCEPT
    file: str  # the row's FILE ("" when the row has none)


def index_cells(text: str) -> list[IndexCell]:
    """The CONCEPT, FILE and relationship cells of every generated row of ``_index.md``."""
    lines, lo, hi, table = index_layout(text)
    if table:
        return table_cells(lines, lo, hi)
    return _block_cells(lines, lo, hi)


def index_cells_naming(text: str, names: Collection[str]) -> list[IndexCell]:
    """The cells of ``index_cells(text)`` whose text is one of ``names``.

    In a table only the lines that contain one of the names are read: a large bank's index has
    thousands of rows, and a rename or a references request names one concept.
    """
    lines, lo, hi, table = index_layout(text)
    if not table:
        return [c for c in _block_cells(lines, lo, hi) if c.text in names]
    if lo >= hi:
        only = []
    elif "\r" in text:
        only = [n for n in range(lo, hi) if any(name in lines[n] for name in names)]
    else:  # find the names in the text, then their lines
        starts = _line_starts(text)
        found: set[int] = set()
        # A line holding a name holds every shorter name inside it (a rename's moved path holds
        # its concept): the text is read once per name that holds no other.
        for name in [n for n in names if not any(m != n and m and m in n for m in names)]:
            at = text.find(name, starts[lo]) if name else -1
            while at >= 0:
                n = bisect_right(starts, at) - 1
                if n >= hi:
                    break
                found.add(n)
                at = text.find(name, starts[n + 1]) if n + 1 < len(starts) else -1
        only = sorted(found)
    return [c for c in table_cells(lines, lo, hi, only) if c.text in names]


@functools.lru_cache(maxsize=2)
def _line_starts(text: str) -> list[int]:
    """The offset where each line of ``text`` starts (``\n`` line ends only)."""
    return line_offsets(text)


@functools.lru_cache(maxsize=2)
def index_layout(text: str) -> tuple[list[str], int, int, bool]:
    """The lines of ``_index.md``, its section's bounds and whether the section is a table."""
    lines = index_lines(text)
    lo, hi = section_lines(lines)
    return lines, lo, hi, any(is_table_line(lines[n]) for n in range(lo, hi))


def table_cells(lines: list[str], lo: int, hi: int, only: Iterable[int] | None = None) -> list[IndexCell]:
    """The cells of the table's rows (of the lines ``only``, when given)."""
    columns: list[str] | None = None
    out: list[IndexCell] = []
    head = table_head(lines, lo, hi)
    head = hi if head is None else head
    for n in range(lo, hi) if only is None else [head, *(n for n in only if n > head)]:
        line = lines[n]
        if not is_table_line(line):
            continue
        bounds = _cell_bounds(line)
        if columns is None:
            columns = [line[a:b].upper() for a, b in bounds]
            continue
        if all(set(line[a:b]) <= SEPARATOR for a, b in bounds):
            continue
        cells = dict(zip(columns, bounds, strict=False))
        concept = line[slice(*cells["CONCEPT"])] if "CONCEPT" in cells else ""
        file = line[slice(*cells["FILE"])] if "FILE" in cells else ""
        for column, (a, b) in cells.items():
            if column in ("CONCEPT", "FILE") and b > a:
                out.append(IndexCell(column, line[a:b], span_of(n, line, a, b), concept, file))
            elif column in _TIERS:
                out.extend(_entry_cells(n, line, a, b, column, concept, file))
    return out


def _cell_bounds(line: str) -> list[tuple[int, int]]:
    """Code-point bounds of each cell's trimmed text in a table line."""
    start = len(line) - len(line.lstrip())
    end = len(line.rstrip())
    if line.startswith("|", start):
        start += 1
    if end > start and line[end - 1] == "|" and line[end - 2 : end] != "\\|":
        end -= 1
    bounds = []
    pos = start
    for m in CELL_SPLIT.finditer(line, start, end):
        bounds.append(_trim(line, pos, m.start()))
        pos = m.end()
    bounds.append(_trim(line, pos, end))
    return bounds


def _trim(line: str, a: int, b: int) -> tuple[int, int]:
    while a < b and line[a].isspace():
        a += 1
    while b > a and line[b - 1].isspace():
        b -= 1
    return a, b


def _entry_cells(n: int, line: str, a: int, b: int, column: str, concept: str, file: str) -> list[IndexCell]:
    """The concept part of each comma-separated ``concept:DATE`` entry in ``line[a:b]``."""
    out = []
    pos = a
    while pos < b:
        comma = line.find(",", pos, b)
        stop = b if comma < 0 else comma
        x, y = _trim(line, pos, stop)
        colon = line.find(":", x, y)
        name_end = y if colon < 0 else colon
        if name_end > x:
            out.append(IndexCell(column, line[x:name_end], span_of(n, line, x, name_end), concept, file))
        pos = stop + 1
    return out


def _block_cells(lines: list[str], lo: int, hi: int) -> list[IndexCell]:
    rows: list[list[tuple[int, str, int]]] = []  # per row: (line, key, value column)
    current: list[tuple[int, str, int]] | None = None
    for n in range(lo, hi):
        m = BLOCK_KEY.match(lines[n])
        if m is None:
            if lines[n].strip() == "---":
                current = None
            continue
        if m.group(1) == "CONCEPT" or current is None:
            current = []
            rows.append(current)
        current.append((n, m.group(1), m.start(2)))
    out: list[IndexCell] = []
    for keyed in rows:
        values = {key: lines[n][col:].strip() for n, key, col in keyed}
        concept, file = values.get("CONCEPT", ""), values.get("FILE", "")
        for n, key, col in keyed:
            line = lines[n]
            a, b = _trim(line, col, len(line))
            if key in ("CONCEPT", "FILE") and b > a:
                out.append(IndexCell(key, line[a:b], span_of(n, line, a, b), concept, file))
            elif key in _TIERS:
                out.extend(_entry_cells(n, line, a, b, key, concept, file))
    return out


def index_cell_at(text: str, line: int, col: int) -> IndexCell | None:
    """The index cell at (line, UTF-16 col), if any."""
    lines, lo, hi, table = index_layout(text)
    cells = table_cells(lines, lo, hi, [line]) if table else _block_cells(lines, lo, hi)
    return next((c for c in cells if c.span.contains(line, col)), None)
