"""Which other concepts an LLM prompt lists: a bounded few, chosen by the offline compiler's evidence.

Listing every concept of the bank makes the prompt grow with the bank (44,000 tokens for one file
of a 1,000-file bank). The model needs the concepts the file may relate to: those its header
names now, then those with evidence either way — the body links to or names them, shares their
distinctive keywords, or their own header lists this file — the same evidence the offline
compiler relates files by.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter

from .model import CompileInput, ConceptSummary
from .offline import unique_others
from .offline.reading import body_languages, cjk_of, read_body
from .offline.relationships import Profile, Relating, profile
from .offline.terms import Corpus, corpus_stops, part_keys

DEFAULT_CANDIDATES = 40
# The offline compiler's own cache holds 8,192 profiles; a 10,000-file bank would thrash it on
# every file of a ``compile --all``.
_profile = functools.lru_cache(maxsize=65_536)(profile.__wrapped__)
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
    stops = corpus_stops(body_languages(inp.body))
    seen, profiles, relating = _relating(others, stops, cjk_of(inp.body))
    index = {o.concept: i for i, o in enumerate(others)}
    reading = read_body(inp.body, relating.corpus)
    own = inp.concept or ""
    scores: dict[int, float] = {}
    for j, e in relating.evidence(reading, skip=own).items():
        i = index.get(seen[j].concept)
        if i is not None:
            scores[i] = e.strength
    # The other way: concepts whose header lists this file, or whose keywords name it.
    name = set(part_keys(own or inp.path_hint))
    for j, p in enumerate(profiles):
        i = index.get(seen[j].concept)
        if i is None:
            continue
        if own and own in p.lists:
            scores[i] = scores.get(i, 0.0) + _LISTS_THIS_FILE
        elif name and name <= p.keys:
            scores[i] = scores.get(i, 0.0) + 1.0
    return sorted(scores, key=lambda i: (-scores[i], others[i].concept))


_Prepared = tuple[list[ConceptSummary], list[Profile], Relating]
_PREPARED: dict[tuple[frozenset[str], str | None], tuple[frozenset[ConceptSummary], _Prepared]] = {}
_LOCK = threading.Lock()
_SLACK = 2  # concepts by which two files' lists of others may differ and still share one Relating


def _relating(others: list[ConceptSummary], stops: frozenset[str], cjk: str | None) -> _Prepared:
    """The bank's other concepts prepared for evidence, shared by the files of one run.

    Preparing 10,000 concepts takes seconds; each file of a ``compile --all`` sees the same bank but
    itself, so one preparation of them all (the union) serves every file.
    """
    wanted = frozenset(others)
    key = (stops, cjk)
    with _LOCK:
        hit = _PREPARED.get(key)
    if hit is not None and wanted <= hit[0] and len(hit[0]) - len(wanted) <= _SLACK:
        return hit[1]
    chosen = list(others)
    if hit is not None and len(wanted ^ hit[0]) <= 2 * _SLACK:
        chosen = sorted(wanted | hit[0], key=lambda o: o.concept)  # the union, for the files to come
    profiles = [
        _profile(o.concept, o.tldr, tuple(o.answers_when), stops, cjk, lists=frozenset(o.similar))
        for o in chosen
    ]
    df: Counter[str] = Counter(k for p in profiles for k in p.keys)
    prepared = (
        chosen,
        profiles,
        Relating(profiles, Corpus(files=len(profiles) + 1, df=df, stops=stops, cjk=cjk)),
    )
    with _LOCK:
        _PREPARED.clear()  # one bank at a time: the memory of one preparation
        _PREPARED[key] = (frozenset(chosen), prepared)
    return prepared
