"""The CKP header's grammar (SPEC §2), in one place: the fields' names, which are required, listed
or tiers, how a key is written, what a concept name and a confidence may be, the token estimate,
and the values a parsed header is made of.

Everything that reads a header asks this module: the parser, the fast scan, completion's reading
of a half-typed header, the offline compiler and the router (where a body starts)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Literal

from ckp_lsp.core.format.patterns import lazy
from ckp_lsp.core.format.records import Record
from ckp_lsp.core.format.text import Span, span_of

if TYPE_CHECKING:
    from ckp_lsp.core.format.dates import CkpDate  # an annotation only: a hook reads headers without dates

CKP_FIELDS = (
    "CONCEPT",
    "TLDR",
    "ANSWERS_WHEN",
    "SIMILAR_HIGH",
    "SIMILAR_MID",
    "CONFIDENCE",
    "VALIDATED",
)


REQUIRED_FIELDS = ("CONCEPT", "TLDR", "ANSWERS_WHEN")


LIST_FIELDS = frozenset({"ANSWERS_WHEN", "SIMILAR_HIGH", "SIMILAR_MID"})


TIER_FIELDS = {"SIMILAR_HIGH": "HIGH", "SIMILAR_MID": "MID"}
#: a concept's name (SPEC §2), unanchored: what an entry's or a row's concept is written as
CONCEPT_NAME = r"[a-z0-9][a-z0-9._-]*"
CONCEPT_PATTERN = f"^{CONCEPT_NAME}$"
CONCEPT_RE = lazy(CONCEPT_PATTERN)
CONFIDENCES = ("high", "medium", "low")

#: a header key as a bare header writes it (SPEC §2: a header line matches ``^[A-Z][A-Z0-9_]*:``)
KEY_NAME = r"[A-Z][A-Z0-9_]*"
#: a bare header line's key, up to and with its colon; the key is group 1
BARE_KEY = lazy(f"({KEY_NAME}):")
#: the bare header at the top of a text: the run of leading ``KEY: value`` lines and their newlines
BARE_HEADER = lazy(rf"(?:{KEY_NAME}:[^\n]*\n)*")
#: a front-matter key that is a CKP field or meant as one (CKP003); any other key is the user's
FIELD_KEY = lazy(f"^{KEY_NAME}$")
#: a front-matter key line as it is being typed: a YAML key (group 1), blanks, a colon
TYPED_KEY = lazy(r"([A-Za-z_][\w.-]*)[ \t]*:(?=\s|$)")


def bare_header_end(lines: list[str], start: int = 0) -> int:
    """The first line from ``start`` that is not a bare header line (``KEY: value``)."""
    end, match = start, BARE_KEY.match
    while end < len(lines) and match(lines[end]):
        end += 1
    return end


#: characters a token is estimated at (SPEC §6)
CHARS_PER_TOKEN = 4


def token_estimate(chars: int) -> int:
    """SPEC §6's token estimate of ``chars`` characters: characters ÷ 4, rounded up."""
    return -(-chars // CHARS_PER_TOKEN)


#: where a TLDR's first sentence ends and a second begins
_SENTENCE_END = lazy(r"[.!?](?=\s+[A-Z0-9])")


Form = Literal["bare", "frontmatter"]


class Item(Record):
    """One comma- or list-separated item of a value: a keyword or a relationship entry."""

    _fields = ("text", "span", "quoted", "placed")
    __slots__ = _fields

    def __init__(self, text: str, span: Span, quoted: Span | None = None, placed: bool = True) -> None:
        self.text = text
        self.span = span
        self.quoted = quoted  # the item with the quotes around it, when YAML quotes it
        self.placed = placed  # False: the text is not written at ``span`` as is (no fix may edit it)


class Field(Record):
    """One ``KEY: value`` of the header, as written."""

    _fields = ("key", "key_span", "value", "value_span", "items", "line")
    __slots__ = _fields

    def __init__(
        self, key: str, key_span: Span, value: str, value_span: Span, items: list[Item], line: int
    ) -> None:
        self.key = key
        self.key_span = key_span
        self.value = value
        self.value_span = value_span
        self.items = items
        self.line = line


class Header(Record):
    """A parsed header: its form, every field in order, and where it ends."""

    _fields = ("form", "fields", "end_line", "yaml_error", "user_keys")
    __slots__ = _fields

    def __init__(
        self,
        form: Form,
        fields: list[Field] | None = None,
        end_line: int = 0,  # first line after the header (after the closing fence)
        yaml_error: tuple[str, Span] | None = None,
        user_keys: list[str] | None = None,
    ) -> None:
        self.form = form
        self.fields: list[Field] = [] if fields is None else fields
        self.end_line = end_line
        self.yaml_error = yaml_error
        self.user_keys: list[str] = [] if user_keys is None else user_keys

    def first(self, key: str) -> Field | None:
        for f in self.fields:
            if f.key == key:
                return f
        return None


#: builds a Span from a tuple without the keyword-handling ``__new__`` of a NamedTuple
_span = functools.partial(tuple.__new__, Span)


def _split_items(line_no: int, line: str, start: int, end: int) -> list[Item]:
    """Comma-separated items of ``line[start:end]``, each with its own tight span."""
    items = []
    ascii_line = line.isascii()
    pos = start
    for part in line[start:end].split(","):
        text = part.strip()
        if text:
            a = pos + len(part) - len(part.lstrip())
            b = a + len(text)
            span = _span((line_no, a, line_no, b)) if ascii_line else span_of(line_no, line, a, b)
            items.append(Item(text, span))
        pos += len(part) + 1
    return items


class Relationship(Record):
    """An entry of SIMILAR_HIGH or SIMILAR_MID: a concept and the date it was validated."""

    _fields = ("concept", "tier", "span", "concept_span", "date_text", "date", "date_span")
    __slots__ = _fields

    def __init__(
        self,
        concept: str,
        tier: str,
        span: Span,
        concept_span: Span,
        date_text: str | None = None,
        date: CkpDate | None = None,
        date_span: Span | None = None,
    ) -> None:
        self.concept = concept
        self.tier = tier
        self.span = span
        self.concept_span = concept_span
        self.date_text = date_text
        self.date = date
        self.date_span = date_span
