"""Quick fixes of SPEC §4 as text edits: pure, so the editor and ``ckp fix`` share them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import process

from ckp_lsp.core.agent.redaction import placeholder
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.format.fields import CONCEPT_RE, Field, Item
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.text import Span

#: codes whose fix is certain enough to apply without looking (``source.fixAll``, ``ckp fix``)
SAFE_CODES = frozenset({"CKP003", "CKP010", "CKP030", "CKP043", "CKP044", "CKP060"})
#: the one fix that may edit a file's body: a secret is replaced by its placeholder wherever it is
#: written, in one edit of the secret's own range. It is never applied without being chosen (not
#: safe), so ``ckp fix`` and fix-all still change headers only.
BODY_CODES = frozenset({"CKP080"})
assert not BODY_CODES & SAFE_CODES


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


#: the last header's items by span: every finding of a file asks for its item (3,000 duplicates
#: of a keyword must not scan the header 3,000 times)
_ITEMS: list[Any] = [None, {}]


def _field_of(kf: KnowledgeFile, span: Span) -> tuple[Field, Item] | None:
    if kf.header is None:
        return None
    if _ITEMS[0] is not kf.header:
        _ITEMS[:] = [kf.header, {i.span: (f, i) for f in kf.header.fields for i in reversed(f.items)}]
    hit: tuple[Field, Item] | None = _ITEMS[1].get(span)
    if hit is not None:
        return hit
    for f in kf.header.fields:
        for item in f.items:
            if (
                item.span.start_line == span.start_line
                and item.span.start_col <= span.start_col
                and span.end_col <= item.span.end_col
            ):
                return f, item
    return None


#: the last field's item spans and positions (one finding per duplicate asks for the same field)
_FIELD: list[Any] = [None, [], {}]


def remove_items(f: Field, doomed: Iterable[Item]) -> list[Edit]:
    """Edits that remove ``doomed`` items from a list field, with their separators.

    The work is in the number of doomed items, not of the field's items (after one look at the field).
    """
    if _FIELD[0] is not f:
        # An item not written as it reads: the separators between items are not known.
        placed = all(i.placed for i in f.items)
        index = {id(i): n for n, i in enumerate(f.items)} if placed else {}
        _FIELD[:] = [f, [i.quoted or i.span for i in f.items], index]
    spans: list[Span] = _FIELD[1]
    where: dict[int, int] = _FIELD[2]
    gone = sorted({where[id(i)] for i in doomed if id(i) in where})
    if not gone:
        return []
    # A YAML block list (one item a line) starts below its key; a comment may follow the key.
    if f.items[0].span.start_line > f.line:
        return [
            Edit(Span(f.items[n].span.start_line, 0, f.items[n].span.start_line + 1, 0), "")
            for n in gone
            if f.items[n].span.start_line > f.line
        ]
    # Inline: cut each doomed item (with its quotes) and the separator before it, so the quotes
    # around the kept items (`['a', "b"]`) and line breaks of a flow list stay as written.
    first_kept = 0
    gone_set = set(gone)
    while first_kept in gone_set:
        first_kept += 1
    if first_kept == len(f.items):
        first, last = spans[0], spans[-1]
        return [Edit(Span(first.start_line, first.start_col, last.end_line, last.end_col), "")]
    edits = []
    if first_kept > 0:  # the doomed items before the first kept one, up to where it starts
        lead, after = spans[0], spans[first_kept]
        edits.append(Edit(Span(lead.start_line, lead.start_col, after.start_line, after.start_col), ""))
    for n in gone:
        if n > first_kept:
            prev, cur = spans[n - 1], spans[n]
            edits.append(Edit(Span(prev.end_line, prev.end_col, cur.end_line, cur.end_col), ""))
    return edits


def fixes_for(bank: Bank, kf: KnowledgeFile, finding: Finding) -> list[Fix]:
    """The quick fixes of one finding of ``kf``."""
    make = _MAKERS.get(finding.code)
    if make is None:
        return []
    found = _field_of(kf, finding.span)
    if found is not None and not found[1].placed and finding.code not in BODY_CODES:
        return []  # YAML wrote this value otherwise than it reads (escapes, folding): not edited
    fixes = make(bank, kf, finding)
    for fx in fixes:
        fx.findings = [finding]
        fx.safe = finding.code in SAFE_CODES and fx.preferred
    return fixes


def _revalidate(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    rel = next((r for r in kf.relationships if r.span == f.span), None)
    if rel is None or rel.date_span is None:
        return []
    month = bank.this_month()
    return [Fix(f"Re-validate '{rel.concept}' ({month})", [Edit(rel.date_span, month)], preferred=True)]


def _add_date(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    s = f.span
    end = Span(s.end_line, s.end_col, s.end_line, s.end_col)
    month = bank.this_month()
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


def _redact(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    kind = f.data.get("kind", "SECRET")
    text = placeholder(kind)
    header = kf.header
    in_front_matter = (
        header is not None and header.form == "frontmatter" and f.span.start_line < header.end_line
    )
    if in_front_matter and f.data.get("whole_value"):
        text = f'"{text}"'  # a plain YAML value may not hold ': ': a value all secret becomes a string
    return [Fix(f"Replace the secret with '{placeholder(kind)}'", [Edit(f.span, text)], preferred=True)]


def _rename_field(bank: Bank, kf: KnowledgeFile, f: Finding) -> list[Fix]:
    """Rename an unknown key to the CKP field it resembles, only when the header lacks that field:
    renaming onto a present field would destroy the user's key and make a duplicate (CKP004)."""
    s = f.data.get("suggestion")
    if not s or kf.header is None or kf.header.first(s) is not None:
        return []
    return [Fix(f"Rename to {s}", [Edit(f.span, s)], preferred=True)]


_MAKERS: dict[str, Callable[[Bank, KnowledgeFile, Finding], list[Fix]]] = {
    "CKP050": _revalidate,
    "CKP046": _add_date,
    "CKP041": _replace_concept,
    "CKP030": _remove_entry,
    "CKP043": _remove_entry,
    "CKP044": _remove_entry,
    "CKP042": _remove_entry,
    "CKP045": _remove_over_cap,
    "CKP003": _rename_field,
    "CKP010": _suggested("Use the concept name '{}'"),
    "CKP060": _suggested("Use '{}'"),
    "CKP080": _redact,
}


def revalidate_all(bank: Bank, kf: KnowledgeFile, findings: list[Finding]) -> Fix | None:
    """One fix re-validating every stale relationship of the file (to the month of ``bank.today``)."""
    stale = [f for f in findings if f.code == "CKP050"]
    if len(stale) < 2:
        return None
    month = bank.this_month()
    edits = [
        Edit(r.date_span, month)
        for r in kf.relationships
        if r.date_span is not None and any(r.span == f.span for f in stale)
    ]
    return Fix(f"Re-validate all {len(edits)} stale relationships ({month})", edits, stale)


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (positions in UTF-16 columns), in one pass."""
    from ckp_lsp.core.format.text import index_of_utf16, line_offsets, split_lines

    if not edits:
        return text
    offsets = line_offsets(text)
    lines = split_lines(text)

    def offset(line: int, col: int) -> int:
        if line >= len(offsets):
            return len(text)
        return offsets[line] + index_of_utf16(lines[line] if line < len(lines) else "", col)

    pieces: list[str] = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e.span.start_line, e.span.start_col)):
        a, b = offset(e.span.start_line, e.span.start_col), offset(e.span.end_line, e.span.end_col)
        pieces += (text[pos:a], e.text)
        pos = max(pos, b)
    pieces.append(text[pos:])
    return "".join(pieces)


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


#: codes whose fix removes an item: all of one field's are removed by one edit list
_REMOVALS = frozenset({"CKP030", "CKP043", "CKP044", "CKP042"})


def _still_sound(old: str, new: str) -> bool:
    """Whether ``new`` still parses as a header as good as ``old``'s: no new YAML error, the same
    user keys."""
    from ckp_lsp.core.format.header import parse_header

    before, after = parse_header(old), parse_header(new)
    if before is None or before.form != "frontmatter":
        return after is not None and after.form == (before.form if before else after.form)
    return (
        after is not None
        and after.form == "frontmatter"
        and (after.yaml_error is None or before.yaml_error is not None)
        and after.user_keys == before.user_keys
    )


def fix_text(
    bank: Bank, rel: str, text: str, codes: frozenset[str] = SAFE_CODES, rounds: int = 5
) -> tuple[str, int]:
    """``text`` with every safe fix applied (re-checked until none is left) and how many were applied.

    Linear in the size of the header: the items one field loses are removed together.
    """
    from ckp_lsp.core.bank.checks import bank_findings
    from ckp_lsp.core.format.knowledge import read_knowledge_file

    codes -= BODY_CODES  # edits of the header only: a secret is redacted when the user chooses to
    applied = 0
    for _ in range(rounds):
        kf = read_knowledge_file(rel, text)
        findings = [f for f in kf.local + bank_findings(bank, kf) if f.code in codes]
        doomed: dict[int, tuple[Field, dict[int, Item]]] = {}
        renamed: set[str] = set()
        others: list[Edit] = []
        for f in findings:
            if f.code in _REMOVALS and f.code in SAFE_CODES:
                found = _field_of(kf, f.span)
                if found is not None:
                    fld, item = found
                    doomed.setdefault(id(fld), (fld, {}))[1][id(item)] = item
                continue
            if f.code == "CKP003":  # two unknown keys near one absent field: rename only the first
                if f.data.get("suggestion") in renamed:
                    continue
                renamed.add(f.data.get("suggestion", ""))
            others += (
                e
                for fx in fixes_for(bank, kf, f)
                if fx.safe or f.code in codes - SAFE_CODES
                for e in fx.edits
            )
        removals = [e for fld, items in doomed.values() for e in remove_items(fld, items.values())]
        edits = non_overlapping([*removals, *others])
        if not edits:
            break
        new = apply_edits(text, edits)
        if not _still_sound(text, new):
            break  # a result that does not read back as the same header is not written
        text = new
        applied += sum(len(items) for _, items in doomed.values()) + len(edits) - len(removals)
    return text, applied
