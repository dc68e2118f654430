"""What the offline compiler reads of one body: blocks, candidate keywords, names and links."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ...language import is_japanese, languages
from .keywords import Term, count_terms
from .terms import CAMEL, CAMEL_PARTS, PART, Corpus, part_keys, stem
from .text import Block, Segment, clean, local_links, parse, preamble_end, segments

MAX_BODY = 100_000  # only the head of a huge body is read: bounded time on any input
_PROFILE_SIZE = 40  # the body's strongest terms, against which other concepts are compared


@dataclass
class Reading:
    """A body as the compiler reads it."""

    blocks: list[Block]
    headings: list[str]  # plain text
    terms: dict[str, Term]
    words: int  # word count of the whole body
    segments: list[Segment]  # the text in which concept names are looked for
    links: Counter[str]  # local link targets (file stem, case-folded)
    keys: set[str]  # every token key of the body
    top: set[str]  # the keys of its strongest terms and of its headings


def body_languages(body: str) -> tuple[str, ...]:
    """The languages of a body (ISO 639-1 codes, English always among them)."""
    return languages(clean(body[:MAX_BODY]))


def cjk_of(body: str) -> str | None:
    """How a body's ideographs are segmented: "ja" with kana, else None (Chinese)."""
    return "ja" if is_japanese(body[:MAX_BODY]) else None


def read_body(body: str, corpus: Corpus) -> Reading:
    """Read a body into blocks, terms, mention segments, links and keys."""
    lines = clean(body[:MAX_BODY]).split("\n")
    blocks = parse(lines[preamble_end(lines) :])
    headings = [b.plain for b in blocks if b.kind == "heading" and b.plain]
    terms = count_terms(blocks, corpus.stops, corpus.cjk, corpus.syllabic)
    found = segments(blocks)
    code = "\n".join(b.text for b in blocks if b.kind == "code")
    keys: set[str] = set()
    count = 0
    for s in found:
        parts = part_keys(s.text, corpus.cjk)
        keys.update(parts)
        count += len(parts)
    code_words = PART.findall(code)
    keys.update(stem(w) for w in set(code_words))
    return Reading(
        blocks=blocks,
        headings=headings,
        terms=terms,
        words=count + len(code_words),
        segments=found,
        links=local_links(b.text for b in blocks if b.kind != "code"),
        keys=keys,
        top=_top_keys(terms, headings, corpus.cjk),
    )


def _top_keys(terms: dict[str, Term], headings: list[str], cjk: str | None) -> set[str]:
    """The token keys of the body's strongest terms and of its headings."""
    ranked = sorted(terms.items(), key=lambda kv: (-kv[1].score, kv[0]))[:_PROFILE_SIZE]
    keys = {k for _, term in ranked for k in term.keys}
    keys.update(k for _, term in ranked for form in term.forms for k in _camel_keys(form))
    keys.update(k for h in headings for k in part_keys(h, cjk))
    return keys


def _camel_keys(form: str) -> list[str]:
    """The stems of the words inside a camelCase identifier."""
    return [stem(p) for p in CAMEL_PARTS.findall(form)] if CAMEL.search(form) else []


def term_keys(reading: Reading) -> set[str]:
    """Every key a body's candidate terms are made of (what makes a word common in a bank)."""
    return {k for term in reading.terms.values() for k in term.keys} | reading.keys
