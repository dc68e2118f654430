"""The offline compiler (SPEC §7): deterministic, no network, a header from Markdown bodies.

One file (``compile_offline``) is compiled against the other concepts' headers; a whole bank
(``compile_bank``) in phases — every file's concept, keywords and TLDR first, then relationships
from the evidence of every body both ways — so the result does not depend on file order.

Steps, one module each: ``text`` (Markdown blocks), ``terms`` (word keys, stop words, the bank's
word statistics), ``keywords``, ``summary`` (TLDR, CONFIDENCE), ``concept``, ``relationships``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..model import Answer, CompileInput, ConceptSummary
from .bank import BankFile, compile_bank
from .concept import derive_concept
from .keywords import MAX_KEYWORDS, MIN_KEYWORDS, choose_keywords, keyword_name
from .reading import MAX_BODY, body_languages, cjk_of, read_body
from .relationships import MAX_HIGH, MAX_MID, Relating, profile, ranked_tiers, tier
from .summary import DESCRIPTION, MAX_TLDR, confidence, described, title_of, tldr
from .terms import PART, STOP_WORDS, Corpus, corpus_stops

__all__ = [
    "MAX_BODY",
    "MAX_HIGH",
    "MAX_KEYWORDS",
    "MAX_MID",
    "MAX_TLDR",
    "MIN_KEYWORDS",
    "STOP_WORDS",
    "BankFile",
    "compile_bank",
    "compile_offline",
]


def compile_offline(inp: CompileInput) -> Answer:
    """Compile one file's header from its body and the other concepts' headers; never raises."""
    langs = body_languages(inp.body)
    cjk = cjk_of(inp.body)
    stops = corpus_stops(langs)
    others = unique_others(inp.others)
    profiles = [
        profile(o.concept, o.tldr, tuple(o.answers_when), stops, cjk, lists=frozenset(o.similar))
        for o in others
    ]
    df: Counter[str] = Counter(k for p in profiles for k in p.keys)
    corpus = Corpus(files=len(profiles) + 1, df=df, stops=stops, cjk=cjk, syllabic="vi" in langs)
    reading = read_body(inp.body, corpus)
    df.update(reading.keys)
    title = title_of(reading.blocks, inp.title)
    taken = {o.concept.casefold() for o in others}
    concept = inp.concept if inp.concept is not None else derive_concept(inp.path_hint, title, taken, cjk)
    keywords, strong, *_ = choose_keywords(
        reading.terms, keyword_name(concept), corpus, {" ".join(p.name) for p in profiles}, reading.headings
    )
    if inp.description and described(inp.description):
        summary, source = described(inp.description), DESCRIPTION
    else:
        summary, source = tldr(
            reading.blocks,
            concept,
            corpus,
            main_language(langs),
            inp.title,
            keywords=keywords,
            taken={o.tldr.casefold() for o in others},
        )
    evidence = Relating(profiles, corpus).evidence(reading, skip=concept)
    candidates = []
    for i, e in evidence.items():
        level = tier(e, None, listed_back=concept.casefold() in profiles[i].lists)
        if level:
            candidates.append((profiles[i].concept, level, e.strength))
    high, mid = ranked_tiers(candidates, len(others) + 1)
    return Answer(
        tldr=summary,
        answers_when=keywords,
        similar_high=high,
        similar_mid=mid,
        confidence=confidence(reading.words, source, strong),
        concept=concept if inp.concept is None else None,
    )


def main_language(langs: Iterable[str]) -> str:
    """The language whose sentence rules apply: the first one other than English."""
    return next((code for code in langs if code != "en"), "en")


def unique_others(others: Iterable[ConceptSummary]) -> list[ConceptSummary]:
    """The other concepts with a usable name, each once, in the given order."""
    seen: set[str] = set()
    unique = []
    for other in others:
        folded = other.concept.strip().casefold()
        if folded and folded not in seen and PART.search(folded):
            seen.add(folded)
            unique.append(other)
    return unique
