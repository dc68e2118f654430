"""The full reader of a knowledge file's header: every field with its spans, and the findings the file has on its own (a clean header is read by the fast scan of knowledge instead)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ckp_lsp.core.bank.findings import Finding, Severity
from ckp_lsp.core.format.dates import CkpDate, parse_date
from ckp_lsp.core.format.fields import (
    _SENTENCE_END,
    CKP_FIELDS,
    CONCEPT_RE,
    CONFIDENCES,
    LIST_FIELDS,
    REQUIRED_FIELDS,
    TIER_FIELDS,
    Field,
    Header,
    Item,
    Relationship,
)
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.limits import MAX_KEYWORDS, MAX_TLDR, TIER_CAPS
from ckp_lsp.core.format.suggest import closest, slugify
from ckp_lsp.core.format.text import Span, span_of, split_lines, utf16_len

if TYPE_CHECKING:
    from ckp_lsp.core.format.knowledge import KnowledgeFile


_ENTRY_RE = re.compile(r"^([^:\s]+)(?::(.*))?$")


#: a placeholder a template leaves to fill: ``[Project name]``, ``{{date}}``, ``<describe it>``,
#: ``YYYY-MM-DD``, ``TBD`` (a Markdown link ``[text](url)`` and a task box ``[ ]`` are not)
_PLACEHOLDER = re.compile(
    r"\[[A-Z][^\]\n]{2,80}\](?![(\[:])|\{\{[^}\n]+\}\}|<[a-z][a-z _-]{2,40}>|YYYY-MM(?:-DD)?|\bTBD\b|\bTODO\b"
)


_TEMPLATE_SHARE = 0.5


def is_template_text(text: str) -> bool:
    """Whether a file is a template: at least three of its lines of text, and half of them, hold
    a placeholder. A template is no knowledge file to give a header (CKP001 is not reported)."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "---", "```"))]
    held = sum(1 for ln in lines if _PLACEHOLDER.search(ln))
    return held >= 3 and held >= _TEMPLATE_SHARE * len(lines)


def read_in_full(kf: KnowledgeFile, text: str, utf8: bool) -> None:
    """Read every field of ``text`` into ``kf`` with its spans, and every file-local finding."""
    kf.header = parse_header(text)
    if not utf8:
        kf.local.append(
            Finding.of(
                "CKP009",
                _first_replacement(text),
                "the file is not valid UTF-8 (the first bad byte is here): save it as UTF-8; until then no tool "
                "rewrites it",
            )
        )
    header = kf.header
    if header is None:
        if is_template_text(text):
            return  # a template to copy, not a file to give a header
        first = text.split("\n", 1)[0].split("\r", 1)[0]  # a lone CR ends a line too
        kf.local.append(
            Finding.of(
                "CKP001",
                Span(0, 0, 0, utf16_len(first)),
                "this knowledge file has no CKP header: add CONCEPT, TLDR and ANSWERS_WHEN lines "
                "at the top (quick fix: insert a compiled header)",
            )
        )
        return
    if header.yaml_error is not None:
        message, span = header.yaml_error
        kf.local.append(Finding.of("CKP006", span, message))
        return
    if header.form == "frontmatter" and not header.fields:
        if is_template_text(text):
            return
        # The user's own front matter (title, tags, status…) and no CKP key in it: one finding,
        # not one a missing field; the quick fix adds the keys to this front matter.
        kf.local.append(
            Finding.of(
                "CKP001",
                Span(0, 0, 0, 3),
                "this knowledge file has no CKP header: its front matter has no CONCEPT, TLDR or "
                "ANSWERS_WHEN (quick fix: insert a compiled header into the front matter)",
            )
        )
        return
    _read_fields(kf, header)


def _first_replacement(text: str) -> Span:
    """Where decoding first replaced an invalid byte (U+FFFD), else the start of the file."""
    at = text.find("\ufffd")
    if at < 0:
        return Span(0, 0, 0, 0)
    before = split_lines(text[:at])
    col = len(before[-1])
    return span_of(len(before) - 1, before[-1] + "\ufffd", col, col + 1)


def _read_fields(kf: KnowledgeFile, header: Header) -> None:
    seen: dict[str, Field] = {}
    out = kf.local
    for f in header.fields:
        if f.key not in CKP_FIELDS:
            guess = closest(f.key, CKP_FIELDS)
            hint = f": did you mean {guess}?" if guess else ": CKP fields are " + ", ".join(CKP_FIELDS)
            out.append(Finding.of("CKP003", f.key_span, f"unknown field {f.key}{hint}", suggestion=guess))
            continue
        if f.key in seen:
            out.append(
                Finding.of(
                    "CKP004",
                    f.key_span,
                    f"{f.key} appears twice (first on line {seen[f.key].line + 1}): keep one",
                    first_line=seen[f.key].line,
                )
            )
            continue
        seen[f.key] = f
        if not f.items and f.key in REQUIRED_FIELDS:
            out.append(Finding.of("CKP005", f.key_span, f"{f.key} is empty: give it a value"))
            continue
        _READERS[f.key](kf, f)
    anchor = _header_extent(header)  # a missing field has no line of its own: the whole header
    for key in REQUIRED_FIELDS:
        if key not in seen:
            out.append(
                Finding.of(
                    "CKP002",
                    anchor,
                    f"the required field {key} is missing: add a line '{key}: …'",
                    field=key,
                )
            )
    if "VALIDATED" not in seen:
        missing = Finding.of(
            "CKP002",
            anchor,
            "VALIDATED is missing: add 'VALIDATED: YYYY-MM' with the month the header was last checked",
            field="VALIDATED",
        )
        missing.severity = Severity.WARNING
        out.append(missing)
    elif not seen["VALIDATED"].items:  # as good as missing, but it has a place to be written
        empty = Finding.of(
            "CKP002",
            seen["VALIDATED"].key_span,
            "VALIDATED is empty: write the month the header was last checked, 'VALIDATED: YYYY-MM'",
            field="VALIDATED",
        )
        empty.severity = Severity.WARNING
        out.append(empty)
    _check_relationship_set(kf)


def _header_extent(header: Header) -> Span:
    """From the header's first line to its end: its last field, or the closing ``---``."""
    if header.form != "bare":
        return Span(0, 0, max(header.end_line - 1, 0), 3)
    if not header.fields:
        return Span(0, 0, 0, 0)
    last = header.fields[-1]
    end = max(
        (last.key_span.end_line, last.key_span.end_col), (last.value_span.end_line, last.value_span.end_col)
    )
    return Span(header.fields[0].line, 0, end[0], end[1])


def _check_relationship_set(kf: KnowledgeFile) -> None:
    """CKP042-CKP044: self-relations and concepts listed twice, in one tier or in both."""
    seen: dict[tuple[str, str], Relationship] = {}
    high = {r.concept for r in kf.relationships if r.tier == "HIGH"}
    for rel in kf.relationships:
        if kf.concept is not None and rel.concept == kf.concept:
            kf.local.append(
                Finding.of(
                    "CKP042",
                    rel.span,
                    f"this file relates to itself ('{rel.concept}'): remove the entry",
                )
            )
            continue
        if (rel.concept, rel.tier) in seen:
            kf.local.append(
                Finding.of(
                    "CKP043",
                    rel.span,
                    f"'{rel.concept}' appears twice in SIMILAR_{rel.tier}: remove the duplicate",
                    concept=rel.concept,
                )
            )
            continue
        seen[(rel.concept, rel.tier)] = rel
        if rel.tier == "MID" and rel.concept in high:
            kf.local.append(
                Finding.of(
                    "CKP044",
                    rel.span,
                    f"'{rel.concept}' is in both SIMILAR_HIGH and SIMILAR_MID: keep it in one tier",
                    concept=rel.concept,
                )
            )


def _read_concept(kf: KnowledgeFile, f: Field) -> None:
    item = f.items[0]
    kf.concept, kf.concept_span = item.text, item.span
    if not CONCEPT_RE.match(item.text):
        slug = slugify(item.text)
        kf.local.append(
            Finding.of(
                "CKP010",
                item.span,
                f"'{item.text}' is not a valid concept name (lower-case letters, digits, '.', '_', '-'): "
                f"use '{slug}'",
                suggestion=slug,
            )
        )


def _read_tldr(kf: KnowledgeFile, f: Field) -> None:
    kf.tldr = f.value
    if len(f.value) > MAX_TLDR:
        kf.local.append(
            Finding.of(
                "CKP020",
                f.value_span,
                f"TLDR is {len(f.value)} characters: shorten it to one sentence of at most {MAX_TLDR}",
            )
        )
    elif _SENTENCE_END.search(f.value):
        kf.local.append(
            Finding.of("CKP020", f.value_span, "TLDR has more than one sentence: keep one sentence")
        )


def _read_keywords(kf: KnowledgeFile, f: Field) -> None:
    kf.keywords = f.items
    seen: set[str] = set()
    for item in f.items:
        norm = item.text.casefold()
        if norm in seen:
            kf.local.append(
                Finding.of("CKP030", item.span, f"keyword '{item.text}' appears twice: remove it")
            )
        seen.add(norm)
    _over_cap(
        kf,
        f.items,
        MAX_KEYWORDS,
        "CKP031",
        f"keywords: keep at most {MAX_KEYWORDS} (the ones a question would use)",
    )


def _over_cap(kf: KnowledgeFile, items: list[Item], cap: int, code: str, says: str, key: str = "") -> None:
    """The finding ``code`` of a field of more than ``cap`` ``items``, over the entries past the cap:
    "[KEY has ]N ``says``" (a relationship field's finding names its field and cap in its data)."""
    if len(items) <= cap:
        return
    first, last = items[cap].span, items[-1].span
    span = Span(first.start_line, first.start_col, last.end_line, last.end_col)
    if key:
        kf.local.append(
            Finding.of(code, span, f"{key} has {len(items)} {says.format(cap=cap)}", cap=cap, field=key)
        )
    else:
        kf.local.append(Finding.of(code, span, f"{len(items)} {says}"))


def _read_tier(kf: KnowledgeFile, f: Field) -> None:
    tier = TIER_FIELDS[f.key]
    rels = []
    for item in f.items:
        rel = _read_entry(kf, item, tier)
        if rel is not None:
            rels.append(rel)
    cap = TIER_CAPS[tier]
    _over_cap(kf, f.items, cap, "CKP045", "entries: keep at most {cap}, the most important first", f.key)
    kf.relationships.extend(rels)


def _read_entry(kf: KnowledgeFile, item: Item, tier: str) -> Relationship | None:
    m = _ENTRY_RE.match(item.text)
    if not m or not CONCEPT_RE.match(m.group(1)):
        kf.local.append(
            Finding.of(
                "CKP040",
                item.span,
                f"'{item.text}' is not a relationship entry: write concept:YYYY-MM (e.g. jwt:2025-05)",
            )
        )
        return None
    concept = m.group(1)
    s = item.span
    concept_span = Span(s.start_line, s.start_col, s.start_line, s.start_col + len(concept))
    rel = Relationship(concept, tier, s, concept_span)
    if m.group(2) is None:
        kf.local.append(
            Finding.of(
                "CKP046",
                s,
                f"the relationship to '{concept}' has no date: add ':YYYY-MM', the month it was validated",
                concept=concept,
            )
        )
        return rel
    rel.date_text = m.group(2)
    rel.date_span = Span(s.start_line, concept_span.end_col + 1, s.end_line, s.end_col)
    rel.date = _check_date(kf, rel.date_text, rel.date_span, f"the relationship to '{concept}'")
    return rel


def _check_date(kf: KnowledgeFile, text: str, span: Span, what: str) -> CkpDate | None:
    """CKP051 of a date; ``what`` names whose date it is ("VALIDATED", "the relationship to 'x'").
    (A date in the future, CKP052, depends on the day: ``checks`` reports it.)"""
    date = parse_date(text)
    if date is None:
        kf.local.append(
            Finding.of(
                "CKP051",
                span,
                f"'{text}' is not a valid date for {what}: write YYYY-MM or YYYY-MM-DD",
            )
        )
        return None
    return date


def _read_confidence(kf: KnowledgeFile, f: Field) -> None:
    kf.confidence = f.value
    if f.value.lower() not in CONFIDENCES:
        guess = closest(f.value.lower(), CONFIDENCES, cutoff=0)
        kf.local.append(
            Finding.of(
                "CKP060",
                f.items[0].span if f.items else f.value_span,  # without the quotes of front matter
                f"CONFIDENCE '{f.value}' is not high, medium or low: use '{guess}'",
                suggestion=guess,
            )
        )


def _read_validated(kf: KnowledgeFile, f: Field) -> None:
    if not f.items:
        return
    kf.validated_text = f.value
    kf.validated = _check_date(kf, f.value, f.items[0].span, "VALIDATED")


_READERS = {
    "CONCEPT": _read_concept,
    "TLDR": _read_tldr,
    "ANSWERS_WHEN": _read_keywords,
    "SIMILAR_HIGH": _read_tier,
    "SIMILAR_MID": _read_tier,
    "CONFIDENCE": _read_confidence,
    "VALIDATED": _read_validated,
}
assert set(_READERS) == set(CKP_FIELDS) and set(_READERS) >= LIST_FIELDS
