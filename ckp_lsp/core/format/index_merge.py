"""Merging two branches' ``_index.md`` by its rows, for git's merge driver (``ckp index --merge-driver``).

A row depends on one file's header only, so the index two branches make is each side's rows
merged by file: a row one side added, changed or removed is taken from that side, and the rows are
written in the order ``ckp index`` writes them. Two sides that changed the same row differently
changed the same file's header, which git shows as a conflict in that file: the index takes our
row, and ``ckp index`` after the file is resolved brings it up to date. What lies outside the
markers is the user's and is merged only when one side alone changed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ckp_lsp.core.format.index import parse_index
from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START, section_offsets
from ckp_lsp.core.format.text import newline_of, split_lines


@dataclass(frozen=True)
class _Parts:
    """An index cut at its markers: the user's text before and after, and the generated rows."""

    before: str
    after: str
    form: str
    head: tuple[str, ...]  # the section's lines before its first row (a table's head)
    rows: dict[str, tuple[tuple[str, str], tuple[str, ...]]]  # file -> (sort key, its lines)


def _parts(text: str) -> _Parts | None:
    start, end = section_offsets(text)
    if start < 0 or end < 0 or "\n<<<<<<< " in "\n" + text:
        return None
    section = text[start : end + len(INDEX_END)]
    lines = split_lines(section)
    doc = parse_index(section)
    rows: dict[str, tuple[tuple[str, str], tuple[str, ...]]] = {}
    firsts = [r.line for r in doc.rows]
    for n, row in enumerate(doc.rows):
        if doc.form == "blocks":
            stop = firsts[n + 1] - 1 if n + 1 < len(firsts) else len(lines) - 2
            own = tuple(lines[row.line : stop])
        else:
            own = (lines[row.line],)
        file = row.values.get("FILE") or row.concept
        if file in rows:
            return None  # two rows of one file: not an index ``ckp index`` wrote
        rows[file] = ((row.concept, file), own)
    head = tuple(lines[1 : firsts[0]]) if firsts else tuple(lines[1:-1])
    if doc.form == "blocks":
        head = ()
    return _Parts(text[:start], text[end + len(INDEX_END) :], doc.form, head, rows)


#: what ``_three_way`` gives when both sides changed a value, each otherwise
CONFLICT: Any = object()


def _three_way(base: Any, ours: Any, theirs: Any) -> Any:
    """The side that changed (ours when both made the same change); CONFLICT when both changed
    it otherwise (a value may be None: a row that one side removed)."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    return CONFLICT


def merge_index(base: str, ours: str, theirs: str) -> str | None:
    """The ``_index.md`` of two branches merged by rows, or None when it cannot be merged so (no
    markers, conflict markers already, another form on each side, or the user's own text outside
    the markers changed on both sides): then git's own merge of the text decides."""
    o, a, b = _parts(base), _parts(ours), _parts(theirs)
    if o is None or a is None or b is None or not (o.form == a.form == b.form):
        return None
    before = _three_way(o.before, a.before, b.before)
    after = _three_way(o.after, a.after, b.after)
    head = _three_way(o.head, a.head, b.head)
    if CONFLICT in (before, after, head):
        return None
    rows: list[tuple[tuple[str, str], tuple[str, ...]]] = []
    for file in a.rows.keys() | b.rows.keys():
        merged = _three_way(o.rows.get(file), a.rows.get(file), b.rows.get(file))
        if merged is CONFLICT:
            merged = a.rows.get(file)  # the file's header conflicts: git shows it in the file
        if merged is not None:
            rows.append(merged)
    rows.sort(key=lambda r: r[0])
    nl = newline_of(ours)
    lines = [INDEX_START, *head]
    for _, own in rows:
        if a.form == "blocks":
            lines.append("---")
        lines.extend(own)
    if a.form == "blocks":
        lines.append("---")
    lines.append(INDEX_END)
    return f"{before}{nl.join(lines)}{after}"
