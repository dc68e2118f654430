"""Which other concepts an LLM prompt lists: a bounded few, chosen by the offline compiler's evidence.

Listing every concept of the bank makes the prompt grow with the bank (44,000 tokens for one file
of a 1,000-file bank). The model needs the concepts the file may relate to: those its header
names now, then those with evidence either way — the body links to or names them, shares their
distinctive keywords, or their own header lists this file — the same evidence the offline
compiler relates files by.
"""

from __future__ import annotations

from collections import Counter

from .model import CompileInput, ConceptSummary
from .offline import unique_others
from .offline.reading import body_languages, cjk_of, read_body
from .offline.relationships import Relating, profile
from .offline.terms import Corpus, corpus_stops, part_keys

DEFAULT_CANDIDATES = 40
_LISTS_THIS_FILE = 4.0  # their header relates to this file: as strong as a link from it


def candidates(inp: CompileInput, limit: int = DEFAULT_CANDIDATES) -> tuple[ConceptSummary, ...]:
    """At most ``limit`` of ``inp.others``: the header's current ones, then the best by evidence."""
    others = unique_others(o for o in inp.others if o.concept != inp.concept)
    if len(others) <= limit:
        return tuple(others)
    by_name = {o.concept: o for o in others}
    chosen: dict[str, ConceptSummary] = {}
    for name in inp.current:
        if name in by_name and len(chosen) < limit:
            chosen[name] = by_name[name]
    for i in _by_evidence(inp, others):
        if len(chosen) >= limit:
            break
        chosen.setdefault(others[i].concept, others[i])
    return tuple(chosen.values())


def _by_evidence(inp: CompileInput, others: list[ConceptSummary]) -> list[int]:
    """Indexes of ``others`` with any evidence of a relation to the file, strongest first."""
    langs = body_languages(inp.body)
    cjk = cjk_of(inp.body)
    stops = corpus_stops(langs)
    profiles = [
        profile(o.concept, o.tldr, tuple(o.answers_when), stops, cjk, lists=frozenset(o.similar))
        for o in others
    ]
    df: Counter[str] = Counter(k for p in profiles for k in p.keys)
    corpus = Corpus(files=len(profiles) + 1, df=df, stops=stops, cjk=cjk)
    reading = read_body(inp.body, corpus)
    own = inp.concept or ""
    scores: dict[int, float] = {
        i: e.strength for i, e in Relating(profiles, corpus).evidence(reading, skip=own).items()
    }
    # The other way: concepts whose header lists this file, or whose keywords name it.
    name = set(part_keys(own or inp.path_hint))
    for i, p in enumerate(profiles):
        if own and own in p.lists:
            scores[i] = scores.get(i, 0.0) + _LISTS_THIS_FILE
        elif name and name <= p.keys:
            scores[i] = scores.get(i, 0.0) + 1.0
    return sorted(scores, key=lambda i: (-scores[i], others[i].concept))
