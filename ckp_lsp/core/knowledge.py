"""A knowledge file: its parsed header in SPEC terms, and the findings it has on its own.

Findings that need the rest of the bank (unknown or duplicate concepts, staleness, keyword
claims) or the day (a date in the future) are computed by ``checks``; everything here depends on
the file's text alone.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from .dates import CkpDate, parse_date
from .findings import Finding, Severity
from .header import (
    CKP_FIELDS,
    LIST_FIELDS,
    REQUIRED_FIELDS,
    TIER_FIELDS,
    Field,
    Header,
    Item,
    _split_items,
    parse_header,
)
from .limits import MAX_KEYWORDS, MAX_TLDR, TIER_CAPS
from .secrets import secret_findings
from .text import Span, span_of, split_lines, utf16_len

CONCEPT_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_BARE_KEY = re.compile(r"([A-Z][A-Z0-9_]*):")
_ENTRY_RE = re.compile(r"^([^:\s]+)(?::(.*))?$")
CONFIDENCES = ("high", "medium", "low")
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9])")


@dataclass(slots=True)
class Relationship:
    """An entry of SIMILAR_HIGH or SIMILAR_MID: a concept and the date it was validated."""

    concept: str
    tier: str
    span: Span
    concept_span: Span
    date_text: str | None = None
    date: CkpDate | None = None
    date_span: Span | None = None


#: a relationship in brief: (concept, tier, date as written, date)
Relation = tuple[str, str, str | None, CkpDate | None]


class KnowledgeFile:
    """One knowledge file of a bank.

    Most files have a clean header, which a fast scan reads into what the bank's indexes and
    checks need (``keyword_texts``, ``relations``); their parsed ``header``, keyword ``Item``s,
    ``Relationship``s and spans are parsed from the header text the first time they are asked
    for, so a bank of 10,000 files holds 10,000 small objects rather than a million.
    """

    __slots__ = (
        "_concept_span",
        "_header",
        "_keywords",
        "_relationships",
        "_source",
        "concept",
        "confidence",
        "keyword_texts",
        "local",
        "path",
        "relations",
        "size",
        "tldr",
        "validated",
        "validated_text",
    )

    def __init__(self, path: str, header: Header | None, size: int = 0) -> None:
        self.path = path  # relative to the bank root, POSIX separators
        self.size = size  # characters, for token estimates
        self.concept: str | None = None
        self.tldr = ""
        self.confidence = ""
        self.validated: CkpDate | None = None
        self.validated_text = ""
        self.local: list[Finding] = []
        self.keyword_texts: list[str] = []  # the keywords as written, in order
        self.relations: list[Relation] = []  # the relationships in brief, in order
        self._header = header
        self._concept_span: Span | None = None
        self._keywords: list[Item] = []
        self._relationships: list[Relationship] = []
        self._source: str | None = None  # header text not parsed yet

    def __repr__(self) -> str:
        return f"KnowledgeFile({self.path!r}, concept={self.concept!r})"

    def _parse(self) -> None:
        """Parse the header kept by the fast scan: items, relationships and spans."""
        source, self._source = self._source, None
        if source is None:
            return
        full = _read_full(self.path, source, True)
        self._header = full._header
        self._concept_span = full._concept_span
        self._keywords = full._keywords
        self._relationships = full._relationships

    @property
    def header(self) -> Header | None:
        if self._source is not None:
            self._parse()
        return self._header

    @header.setter
    def header(self, value: Header | None) -> None:
        self._source, self._header = None, value

    @property
    def concept_span(self) -> Span | None:
        if self._concept_span is None and self._source is not None:
            self._parse()
        return self._concept_span

    @concept_span.setter
    def concept_span(self, value: Span | None) -> None:
        self._concept_span = value

    @property
    def keywords(self) -> list[Item]:
        if self._source is not None:
            self._parse()
        return self._keywords

    @keywords.setter
    def keywords(self, value: list[Item]) -> None:
        self._keywords = value

    @property
    def relationships(self) -> list[Relationship]:
        if self._source is not None:
            self._parse()
        return self._relationships

    @relationships.setter
    def relationships(self, value: list[Relationship]) -> None:
        self._relationships = value

    def _items_of(self, keys: Container[str]) -> list[list[Item]]:
        """The items of the fields ``keys`` in a header kept by the fast scan, in order, with spans."""
        out = []
        for line_no, line in enumerate((self._source or "").split("\n")):
            key, _, rest = line.partition(":")
            if key not in keys:
                continue
            if line.endswith("\r"):
                line, rest = line[:-1], rest[:-1]
            start = len(key) + 1 + len(rest) - len(rest.lstrip())
            out.append(_split_items(line_no, line, start, start + len(rest.strip())))
        return out

    def keyword(self, n: int) -> Item:
        """``keywords[n]``, without parsing the whole header when the fast scan read it."""
        if self._source is None:
            return self._keywords[n]
        return self._items_of(("ANSWERS_WHEN",))[0][n]

    def relationship(self, n: int) -> Relationship:
        """``relationships[n]``, without parsing the whole header when the fast scan read it."""
        if self._source is None:
            return self._relationships[n]
        items = [item for line in self._items_of(TIER_FIELDS) for item in line]
        concept, tier, date_text, date = self.relations[n]
        s = items[n].span  # a clean header: one entry a relation, each ``concept:DATE``
        concept_span = Span(s.start_line, s.start_col, s.start_line, s.start_col + len(concept))
        date_span = Span(s.start_line, concept_span.end_col + 1, s.end_line, s.end_col)
        return Relationship(concept, tier, s, concept_span, date_text, date, date_span)

    def entry_spans(self, concept: str) -> list[Span]:
        """Where each relationship entry naming ``concept`` writes that name, in order.

        A large bank's references to one concept touch many files: their tier lines are read
        here rather than their whole headers parsed.
        """
        if self._source is None:
            return [r.concept_span for r in self._relationships if r.concept == concept]
        out = []
        for line_no, line in enumerate(self._source.split("\n")):
            key, _, rest = line.partition(":")
            if key not in TIER_FIELDS or concept not in rest:
                continue
            if line.endswith("\r"):
                line, rest = line[:-1], rest[:-1]
            start = len(key) + 1 + len(rest) - len(rest.lstrip())
            for item in _split_items(line_no, line, start, start + len(rest.strip())):
                if item.text.partition(":")[0] == concept:
                    s = item.span
                    out.append(Span(s.start_line, s.start_col, s.start_line, s.start_col + len(concept)))
        return out

    @property
    def high(self) -> list[Relationship]:
        return [r for r in self.relationships if r.tier == "HIGH"]

    @property
    def mid(self) -> list[Relationship]:
        return [r for r in self.relationships if r.tier == "MID"]

    @property
    def tokens(self) -> int:
        return -(-self.size // 4)

    def written(self) -> dict[str, str]:
        """Each CKP field's first non-empty value as written (list items joined by ``, ``), or ``""``."""
        if self._source is None:
            out = dict.fromkeys(CKP_FIELDS, "")
            for f in self._header.fields if self._header is not None else ():
                if f.key in out and not out[f.key]:
                    out[f.key] = ", ".join(i.text for i in f.items) if f.key in LIST_FIELDS else f.value
            return out
        # A clean header has each field once, every entry written ``concept:DATE``.
        high = [f"{c}:{d}" for c, t, d, _ in self.relations if t == "HIGH"]
        mid = [f"{c}:{d}" for c, t, d, _ in self.relations if t == "MID"]
        return {
            "CONCEPT": self.concept or "",
            "TLDR": self.tldr,
            "ANSWERS_WHEN": ", ".join(self.keyword_texts),
            "SIMILAR_HIGH": ", ".join(high),
            "SIMILAR_MID": ", ".join(mid),
            "CONFIDENCE": self.confidence,
            "VALIDATED": self.validated_text,
        }


def slugify(text: str) -> str:
    """A valid concept name for ``text``: ``JWT Authentication`` -> ``jwt-authentication``,
    ``caffè`` -> ``caffe`` (letters of any script are transliterated, not dropped)."""
    from .language.names import slug  # on first use: only an invalid CONCEPT needs it

    return slug(text) or "concept"


def closest(word: str, choices: list[str] | tuple[str, ...], cutoff: float = 60) -> str | None:
    """The closest of ``choices`` to ``word`` (rapidfuzz), or None when nothing is close."""
    if not choices:
        return None
    from rapidfuzz import fuzz, process  # imported when first needed: most runs never suggest

    best = process.extractOne(word, choices, scorer=fuzz.ratio, processor=None, score_cutoff=cutoff)
    return best[0] if best else None


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


def read_knowledge_file(path: str, text: str, utf8: bool = True) -> KnowledgeFile:
    """Parse ``text`` (BOM stripped) into a KnowledgeFile with its file-local findings."""
    secrets = secret_findings(text)
    if utf8 and not secrets:
        clean = _read_clean(path, text)
        if clean is not None:
            return clean
    # A file with a secret is read in full: its findings are its own, so the cache keeps no brief
    # of it and it is read (and reported) again each time.
    kf = _read_full(path, text, utf8)
    kf.local += secrets
    kf.keyword_texts = [i.text for i in kf._keywords]
    kf.relations = [(r.concept, r.tier, r.date_text, r.date) for r in kf._relationships]
    return kf


_CLEAN_FIELDS = frozenset(CKP_FIELDS)
_HEADER_BLOCK = re.compile(r"(?:[A-Z][A-Z0-9_]*:[^\n]*\n)*")
#: a tier of entries that are each ``concept:DATE`` (the dates are checked one by one)
_CLEAN_ENTRIES = re.compile(r"[a-z0-9][a-z0-9._-]*:[^,]*(?:,\s*[a-z0-9][a-z0-9._-]*:[^,]*)*")
_NEEDED = ("CONCEPT", "TLDR", "ANSWERS_WHEN", "VALIDATED")


def _read_clean(path: str, text: str) -> KnowledgeFile | None:
    """A file whose bare header has no finding of its own, read without spans; None otherwise.

    Only headers that certainly have no file-local finding pass (each field once, valid values,
    entries written ``concept:DATE``); anything else is read by ``_read_full``, which reports.
    ``KnowledgeFile._parse`` parses the rest from the header text when it is asked for.
    """
    if text.startswith("---"):
        return None
    # The header is the run of leading ``KEY:`` lines: one regex finds where it ends.
    end = _HEADER_BLOCK.match(text).end()  # type: ignore[union-attr]
    lines = text[:end].split("\n")
    lines.pop()  # after the last newline
    if end < len(text) and _BARE_KEY.match(text, end) and text.find("\n", end) < 0:
        lines.append(text[end:])  # a last header line without a newline
        end = len(text)
    values: dict[str, str] = {}
    concept_at = 0
    for n, line in enumerate(lines):
        key, _, value = line.partition(":")
        if key in values or key not in _CLEAN_FIELDS:
            return None  # a field twice, or an unknown one
        if key == "CONCEPT":
            concept_at = n
        if "\r" in value:
            if value.find("\r") != len(value) - 1:
                return None  # a lone CR ends a line: let the full parser count lines
            value = value[:-1]
        values[key] = value.strip()
    for key in _NEEDED:
        if not values.get(key):
            return None
    concept, tldr = values["CONCEPT"], values["TLDR"]
    if not CONCEPT_RE.match(concept) or len(tldr) > MAX_TLDR or _SENTENCE_END.search(tldr):
        return None
    keywords = list(map(str.strip, values["ANSWERS_WHEN"].split(",")))
    if "" in keywords:
        keywords = [k for k in keywords if k]
    if not keywords or len(keywords) > MAX_KEYWORDS or len(set(map(str.casefold, keywords))) != len(keywords):
        return None
    confidence = values.get("CONFIDENCE")
    if confidence is not None and confidence.lower() not in CONFIDENCES:
        return None
    validated = _valid_date(values["VALIDATED"])
    if validated is None:
        return None
    relations: list[Relation] = []
    for key, value in values.items():
        tier = TIER_FIELDS.get(key)
        if tier is None or not value:
            continue
        if not _CLEAN_ENTRIES.fullmatch(value):
            return None
        entries = value.split(",")
        if len(entries) > TIER_CAPS[tier]:
            return None
        for entry in entries:
            name, _, date_text = entry.strip().partition(":")
            date = _valid_date(date_text)
            if date is None:
                return None
            relations.append((name, tier, date_text, date))
    if relations:
        targets = {r[0] for r in relations}
        if concept in targets or len(targets) != len(relations):
            return None  # a self-relation, or a concept twice (in one tier or both)
    kf = KnowledgeFile(path, None, len(text))
    kf.concept, kf.tldr, kf.confidence = concept, tldr, confidence or ""
    kf.validated, kf.validated_text = validated, values["VALIDATED"]
    kf.keyword_texts, kf.relations = keywords, relations
    kf._source = text[:end]
    # Where the concept is written is asked often (definition, symbols, lens): kept from the scan.
    # What precedes it, ``CONCEPT:`` and blanks, is one UTF-16 unit a character.
    line = lines[concept_at]
    col = line.index(concept, 8)
    kf._concept_span = Span(concept_at, col, concept_at, col + len(concept))
    return kf


#: a clean file in plain values (quick to send to another process): path, size, CONCEPT, TLDR, CONFIDENCE,
#: VALIDATED as written, keywords, relations without their dates, header text, CONCEPT's span
Brief = tuple[
    str, int, str, str, str, str, list[str], list[tuple[str, str, str]], str, tuple[int, int, int, int]
]


def brief(kf: KnowledgeFile) -> Brief | None:
    """A file read by the fast scan, in plain values; None for one the full parser read."""
    if kf._source is None or kf.concept is None or kf._concept_span is None:
        return None
    relations = [(c, t, d or "") for c, t, d, _ in kf.relations]
    s = kf._concept_span
    span = (s.start_line, s.start_col, s.end_line, s.end_col)
    return (
        kf.path,
        kf.size,
        kf.concept,
        kf.tldr,
        kf.confidence,
        kf.validated_text,
        kf.keyword_texts,
        relations,
        kf._source,
        span,
    )


def from_brief(b: Brief) -> KnowledgeFile | None:
    """The file ``brief`` described; None when a date of it is not valid (not one the fast scan
    would have read)."""
    path, size, concept, tldr, confidence, validated_text, keywords, relations, source, span = b
    validated = _valid_date(validated_text)
    if validated is None:
        return None
    dated: list[Relation] = []
    for name, tier, date_text in relations:
        date = _valid_date(date_text)
        if date is None:
            return None
        dated.append((name, tier, date_text, date))
    kf = KnowledgeFile(path, None, size)
    kf.concept, kf.tldr, kf.confidence = concept, tldr, confidence
    kf.validated, kf.validated_text = validated, validated_text
    kf.keyword_texts, kf.relations = keywords, dated
    kf._source = source
    kf._concept_span = Span(*span)
    return kf


_DATES: dict[str, CkpDate | None] = {}
_UNSEEN: Any = object()


def _valid_date(text: str) -> CkpDate | None:
    """The date ``text`` names, or None when it is not valid (a dict lookup: the fast scan asks
    this of every date of every file, and a bank writes few distinct ones)."""
    date = _DATES.get(text, _UNSEEN)
    if date is _UNSEEN:
        date = parse_date(text)
        if len(_DATES) < 65536:
            _DATES[text] = date
    return date


def _read_full(path: str, text: str, utf8: bool) -> KnowledgeFile:
    """Every field with its spans, and every file-local finding."""
    kf = KnowledgeFile(path, parse_header(text), len(text))
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
            return kf  # a template to copy, not a file to give a header
        first = text.split("\n", 1)[0].split("\r", 1)[0]  # a lone CR ends a line too
        kf.local.append(
            Finding.of(
                "CKP001",
                Span(0, 0, 0, utf16_len(first)),
                "this knowledge file has no CKP header: add CONCEPT, TLDR and ANSWERS_WHEN lines "
                "at the top (quick fix: insert a compiled header)",
            )
        )
        return kf
    if header.yaml_error is not None:
        message, span = header.yaml_error
        kf.local.append(Finding.of("CKP006", span, message))
        return kf
    if header.form == "frontmatter" and not header.fields:
        if is_template_text(text):
            return kf
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
        return kf
    _read_fields(kf, header)
    return kf


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
    if len(f.items) > MAX_KEYWORDS:
        span = _span_over(f.items[MAX_KEYWORDS:])
        kf.local.append(
            Finding.of(
                "CKP031",
                span,
                f"{len(f.items)} keywords: keep at most {MAX_KEYWORDS} (the ones a question would use)",
            )
        )


def _span_over(items: list[Item]) -> Span:
    """One span from the first of ``items`` to the last: the entries over a cap."""
    first, last = items[0].span, items[-1].span
    return Span(first.start_line, first.start_col, last.end_line, last.end_col)


def _read_tier(kf: KnowledgeFile, f: Field) -> None:
    tier = TIER_FIELDS[f.key]
    rels = []
    for item in f.items:
        rel = _read_entry(kf, item, tier)
        if rel is not None:
            rels.append(rel)
    cap = TIER_CAPS[tier]
    if len(f.items) > cap:
        span = _span_over(f.items[cap:])
        kf.local.append(
            Finding.of(
                "CKP045",
                span,
                f"{f.key} has {len(f.items)} entries: keep at most {cap}, the most important first",
                cap=cap,
                field=f.key,
            )
        )
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
