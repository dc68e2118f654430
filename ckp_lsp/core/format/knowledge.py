"""A knowledge file: its header in SPEC terms, read by a fast scan when it is clean and by
``full_reader`` (every span, the findings it has on its own) otherwise.

Findings that need the rest of the bank (unknown or duplicate concepts, staleness, keyword
claims) or the day (a date in the future) are computed by ``checks``; everything here depends on
the file's text alone.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any

from ckp_lsp.core.agent.redaction import secret_findings
from ckp_lsp.core.bank.findings import Finding
from ckp_lsp.core.format.dates import CkpDate, parse_date
from ckp_lsp.core.format.fields import (
    _SENTENCE_END,
    BARE_HEADER,
    BARE_KEY,
    CKP_FIELDS,
    CONCEPT_NAME,
    CONCEPT_RE,
    CONFIDENCES,
    LIST_FIELDS,
    REQUIRED_FIELDS,
    TIER_FIELDS,
    Header,
    Item,
    Relationship,
    _split_items,
    token_estimate,
)
from ckp_lsp.core.format.full_reader import read_in_full
from ckp_lsp.core.format.limits import MAX_KEYWORDS, MAX_TLDR, TIER_CAPS
from ckp_lsp.core.format.text import Span

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
        return token_estimate(self.size)

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
#: a tier of entries that are each ``concept:DATE`` (the dates are checked one by one)
_CLEAN_ENTRIES = re.compile(rf"{CONCEPT_NAME}:[^,]*(?:,\s*{CONCEPT_NAME}:[^,]*)*")
_NEEDED = (*REQUIRED_FIELDS, "VALIDATED")


def _read_clean(path: str, text: str) -> KnowledgeFile | None:
    """A file whose bare header has no finding of its own, read without spans; None otherwise.

    Only headers that certainly have no file-local finding pass (each field once, valid values,
    entries written ``concept:DATE``); anything else is read by ``_read_full``, which reports.
    ``KnowledgeFile._parse`` parses the rest from the header text when it is asked for.
    """
    if text.startswith("---"):
        return None
    # The header is the run of leading ``KEY:`` lines: one regex finds where it ends.
    end = BARE_HEADER.match(text).end()  # type: ignore[union-attr]
    lines = text[:end].split("\n")
    lines.pop()  # after the last newline
    if end < len(text) and BARE_KEY.match(text, end) and text.find("\n", end) < 0:
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
    kf = KnowledgeFile(path, None, len(text))
    read_in_full(kf, text, utf8)
    return kf
