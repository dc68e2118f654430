"""The layout of ``_index.md`` (SPEC §5), read in one place: its markers, where its generated
section lies, a table's lines and cells, a header block's keys.

Everything that reads an index asks this module where the section is and what its lines hold:
``index`` (parsing the rows, regenerating the section), ``index_cells`` (cells with spans),
``index_checks`` (the table's layout), ``index_merge`` (rows by file) and ``route_table`` (the
rows a router reads, on the prompt hook's path: this module imports only ``re`` and the header
grammar, ``fields``, whose keys a header block's keys are).

The section is found two ways, each where it always was: by lines (a marker is a line of its
own: what is parsed, checked and navigated) and by offsets (a marker anywhere in the text: what
is regenerated, merged and routed from, so a marker written mid-line is still replaced).
"""

from __future__ import annotations

from collections.abc import Iterator

from ckp_lsp.core.format.fields import KEY_NAME
from ckp_lsp.core.format.patterns import lazy

INDEX_START = "<!-- ckp:index:start -->"
INDEX_END = "<!-- ckp:index:end -->"

#: a line of a header block: ``KEY: value``
BLOCK_KEY = lazy(rf"^({KEY_NAME}):[ \t]*(.*)$")
#: a pipe that separates cells (``\|`` is a pipe inside a cell)
CELL_SPLIT = lazy(r"(?<!\\)\|")
#: what a table's separator row is made of
SEPARATOR = frozenset("-: ")
#: what routing reads of a row, after FILE
ROUTE_COLUMNS = ("CONCEPT", "ANSWERS_WHEN", "SIMILAR_HIGH", "SIMILAR_MID")


def is_table_line(line: str) -> bool:
    """Whether ``line`` is a line of a table."""
    return line.lstrip().startswith("|")


def table_head(lines: list[str], lo: int, hi: int) -> int | None:
    """The first table line of ``lines[lo:hi]``, the table's head row (None: no table there)."""
    return next((n for n in range(lo, hi) if is_table_line(lines[n])), None)


def first_cell(line: str) -> str:
    """The first cell of a table line, trimmed ("" when the line has none): fast, for the rows of
    a table read by their first column (a row with an escaped pipe is read cell by cell)."""
    if "\\|" in line:
        row = cells(line)
        return row[0] if row and is_table_line(line) else ""
    parts = line.split("|", 2)
    return parts[1].strip() if len(parts) > 1 else ""


def is_separator_line(line: str) -> bool:
    """Whether the table line ``line`` is a separator row (``|---|:--|``)."""
    return set(line.replace("|", "")) <= SEPARATOR


def markers(lines: list[str]) -> tuple[int | None, int | None]:
    """The line of the first start marker, and of the first end marker after it (None: missing)."""
    start = next((i for i, line in enumerate(lines) if line.strip() == INDEX_START), None)
    if start is None:
        return None, None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == INDEX_END), None)
    return start, end


def section_lines(lines: list[str]) -> tuple[int, int]:
    """The lines of the generated section, ``[lo, hi)``: between the markers, to the end when the
    end marker is lost, the whole text when there is no start marker."""
    start, end = markers(lines)
    if start is None:
        return 0, len(lines)
    return start + 1, len(lines) if end is None else end


def marker_lines(lines: list[str], which: tuple[str, ...] = (INDEX_START, INDEX_END)) -> list[int]:
    """Every line that is one of the markers ``which``, in order."""
    return [i for i, line in enumerate(lines) if line.strip() in which]


def section_offsets(text: str) -> tuple[int, int]:
    """The offsets of the first start marker and of the end marker after it (-1: missing)."""
    start = text.find(INDEX_START)
    end = text.find(INDEX_END, start + 1) if start >= 0 else -1
    return start, end


def cells(line: str) -> list[str]:
    """The cells of a table row, unescaped (``\\|`` is a pipe inside a cell)."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    if "\\|" not in s:
        return [c.strip() for c in s.split("|")]
    return [c.strip().replace("\\|", "|") for c in CELL_SPLIT.split(s)]


def is_separator(row: list[str]) -> bool:
    """Whether the cells ``row`` are a table's separator row (``|---|:--|``)."""
    return all(set(c) <= SEPARATOR for c in row)


def route_rows(text: str) -> Iterator[tuple[str, str, str, str, str]] | None:
    """The generated rows of a table ``_index.md`` as routing reads them, line by line, fast: FILE,
    CONCEPT, ANSWERS_WHEN, SIMILAR_HIGH, SIMILAR_MID; None when the section holds no table (header
    blocks: ``index.parse_index`` reads them)."""
    start, end = section_offsets(text)
    body = text[start + len(INDEX_START) : end] if start >= 0 and end >= 0 else text
    lines = [line for line in body.splitlines() if is_table_line(line)]
    return _table_route_rows(lines) if lines else None


def _table_route_rows(lines: list[str]) -> Iterator[tuple[str, str, str, str, str]]:
    columns = [c.upper() for c in cells(lines[0])]
    if "FILE" not in columns or "CONCEPT" not in columns:
        return
    width = len(columns)
    # Cell k of a row is part k + 1 of the line split on "|"; a column the table lacks reads as
    # the empty string appended to the parts.
    f, c, k, h, m = (columns.index(name) + 1 if name in columns else -1 for name in ("FILE", *ROUTE_COLUMNS))
    for line in lines[1:]:
        parts = ["", *cells(line)] if "\\|" in line else line.split("|")
        if len(parts) > width:
            parts.append("")
            yield parts[f].strip(), parts[c].strip(), parts[k].strip(), parts[h].strip(), parts[m].strip()
