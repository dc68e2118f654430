"""Quick fixes of SPEC §4 as text edits: pure, so the editor and ``ckp fix`` share them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rapidfuzz import process

from .bank import Bank
from .dates import current_month
from .findings import Finding
from .header import Field, Item
from .knowledge import CONCEPT_RE, KnowledgeFile
from .text import Span

#: codes whose fix is certain enough to apply without looking (``source.fixAll``, ``ckp fix``)
SAFE_CODES = frozenset({"CKP003", "CKP010", "CKP030", "CKP043", "CKP044", "CKP060"})


@dataclass(frozen=True)
class Edit:
    """Replace ``span`` of the file with ``text``."""

    span: Span
    text: str


@dataclass
class Fix:
    """One quick fix: a title, its edits, and the findings it resolves."""

    title: str
    edits: list[Edit]
    findings: list[Finding] = field(default_factory=list)
    preferred: bool = False
    safe: bool = False


def _field_of(kf: KnowledgeFile, span: Span) -> tuple[Field, Item] | None:
    if kf.header is None:
        return None
    for f in kf.header.fields:
        for item in f.items:
            if item.span == span or (
                item.span.start_line == span.start_line
                and item.span.start_col <= span.start_col
                and span.end_col <= item.span.end_col
            ):
                return f, item
    return None


def remove_items(f: Field, doomed: Iterable[Item]) -> list[Edit]:
    """Edits that remove ``doomed`` items from a list field, with their separators."""
    doomed_ids = {id(i) for i in doomed}
    # A YAML block list (one item a line) starts below its key; a comment may follow the key.
    if f.items and f.items[0].span.start_line > f.line:
        return [
            Edit(Span(i.span.start_line, 0, i.span.start_line + 1, 0), "")
            for i in f.items
            if id(i) in doomed_ids and i.span.start_line > f.line
        ]
    # Inline: cut each doomed item (with its quotes) and the separator before it, so the quotes
    # around the kept items (`['a', "b"]`) and line breaks of a flow list stay as written.
    spans = [i.quoted or i.span for i in f.items]
    kept = [n for n, i in enumerate(f.items) if id(i) not in doomed_ids]
    if not kept:
        first, last = spans[0], spans[-1]
        return [Edit(Span(first.start_line, first.start_col, last.end_line, last.end_col), "")]
    edits = []
    lead, after = spans[0], spans[kept[0]]
    if kept[0] > 0:  # the doomed items before the first kept one, up to where it starts
        edits.append(Edit(Span(lead.start_line, lead.start_col, after.start_line, after.start_col), ""))
    for n in range(kept[0] + 1, len(f.items)):
        if n not in kept:
            prev, cur = spans[n - 1], spans[n]
            edits.append(Edit(Span(prev.end_line, prev.end_col, cur.end_line, cur.end_col), ""))
    return edits


def fixes_for(bank: Bank, kf: KnowledgeFile, finding: Finding) -> list[Fix]:
    """The quick fixes of one finding of ``kf``."""
    make = _MAKERS.get(finding.code)
    if make is None:
        return []
    fixes = make(bank, kf, finding)
    for fx in fixes:
        fx.findings = [finding]
        fx.safe = finding.code in SAFE_CODES and fx.preferred
    return fixes


def _revalidate(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    rel = next((r for r in kf.relationships if r.span == f.span), None)
    if rel is None or rel.date_span is None:
        return []
    month = current_month()
    return [Fix(f"Re-validate '{rel.concept}' ({month})", [Edit(rel.date_span, month)], preferred=True)]


def _add_date(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    s = f.span
    end = Span(s.end_line, s.end_col, s.end_line, s.end_col)
    month = current_month()
    return [Fix(f"Add the date {month}", [Edit(end, f":{month}")], preferred=True)]


def _replace_concept(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    concept = f.data.get("concept", "")
    names = [n for n in bank.concepts() if CONCEPT_RE.match(n)]  # never a display name (CKP010)
    choices = process.extract(concept, names, limit=3, score_cutoff=50)
    fixes = [
        Fix(f"Replace with '{name}'", [Edit(f.span, name)])
        for name, _score, _ in choices
        if name != kf.concept
    ]
    if fixes:
        fixes[0].preferred = True
    return fixes


def _remove_entry(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    found = _field_of(kf, f.span)
    if found is None:
        return []
    fld, item = found
    what = "the duplicate" if f.code in ("CKP030", "CKP043") else f"'{item.text}' from {fld.key}"
    return [Fix(f"Remove {what}", remove_items(fld, [item]), preferred=True)]


def _remove_over_cap(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    if kf.header is None:
        return []
    key = f.data.get("field", "")
    fld = next((x for x in kf.header.fields if x.key == key), None)
    cap = int(f.data.get("cap", 0))
    if fld is None or len(fld.items) <= cap:
        return []
    return [
        Fix(
            f"Remove the {len(fld.items) - cap} entries over the cap of {cap}",
            remove_items(fld, fld.items[cap:]),
        )
    ]


def _suggested(title: str) -> Callable[[Bank, KnowledgeFile, Finding], list[Fix]]:
    def make(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
        s = f.data.get("suggestion")
        if not s:
            return []
        return [Fix(title.format(s), [Edit(f.span, s)], preferred=True)]

    return make


_MAKERS: dict[str, Callable[[Bank, KnowledgeFile, Finding], list[Fix]]] = {
    "CKP050": _revalidate,
    "CKP046": _add_date,
    "CKP041": _replace_concept,
    "CKP030": _remove_entry,
    "CKP043": _remove_entry,
    "CKP044": _remove_entry,
    "CKP042": _remove_entry,
    "CKP045": _remove_over_cap,
    "CKP003": _suggested("Rename to {}"),
    "CKP010": _suggested("Use the concept name '{}'"),
    "CKP060": _suggested("Use '{}'"),
}


def revalidate_all(kf: KnowledgeFile, findings: list[Finding]) -> Fix | None:
    """One fix re-validating every stale relationship of the file."""
    stale = [f for f in findings if f.code == "CKP050"]
    if len(stale) < 2:
        return None
    month = current_month()
    edits = [
        Edit(r.date_span, month)
        for r in kf.relationships
        if r.date_span is not None and any(r.span == f.span for f in stale)
    ]
    return Fix(f"Re-validate all {len(edits)} stale relationships ({month})", edits, stale)


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (positions in UTF-16 columns)."""
    from .text import index_of_utf16, line_offsets, split_lines

    offsets = line_offsets(text)
    lines = split_lines(text)

    def offset(line: int, col: int) -> int:
        if line >= len(offsets):
            return len(text)
        return offsets[line] + index_of_utf16(lines[line] if line < len(lines) else "", col)

    out = text
    for e in sorted(edits, key=lambda e: (e.span.start_line, e.span.start_col), reverse=True):
        a, b = offset(e.span.start_line, e.span.start_col), offset(e.span.end_line, e.span.end_col)
        out = out[:a] + e.text + out[b:]
    return out


def non_overlapping(edits: Iterable[Edit]) -> list[Edit]:
    """The edits in order, dropping any that overlaps one before it."""
    out: list[Edit] = []
    for e in sorted(
        edits, key=lambda e: (e.span.start_line, e.span.start_col, e.span.end_line, e.span.end_col)
    ):
        if out and (e.span.start_line, e.span.start_col) < (out[-1].span.end_line, out[-1].span.end_col):
            continue
        out.append(e)
    return out


def fix_text(
    bank: Bank, rel: str, text: str, codes: frozenset[str] = SAFE_CODES, rounds: int = 5
) -> tuple[str, int]:
    """``text`` with every safe fix applied (re-checked until none is left) and how many were applied."""
    from .checks import bank_findings
    from .knowledge import read_knowledge_file

    applied = 0
    for _ in range(rounds):
        kf = read_knowledge_file(rel, text)
        findings = [f for f in kf.local + bank_findings(bank, kf) if f.code in codes]
        edits = non_overlapping(
            e
            for f in findings
            for fx in fixes_for(bank, kf, f)
            if fx.safe or f.code in codes - SAFE_CODES
            for e in fx.edits[:]
        )
        if not edits:
            break
        text = apply_edits(text, edits)
        applied += len(edits)
    return text, applied
