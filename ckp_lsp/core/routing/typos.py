"""Typos of a question word: the bank's words within RapidFuzz's ``fuzz.ratio`` cutoff of it.

RapidFuzz is the scorer, but importing it costs a one-shot process (``ckp route``, the prompt
hook) more than routing does. Most words of a question are a typo of no word of the bank, and a
bound on the ratio proves it without the import; the few words the bound leaves are scored here,
exactly (the ratio is a ratio of whole numbers), and only a word whose ratio lies too close to the
cutoff for floating point to be sure of RapidFuzz's answer is left to RapidFuzz.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: the most words the bound is tried on (in Python, about 5 µs a word): past it, or once RapidFuzz
#: is imported, RapidFuzz scores them all at once
BOUNDED_WORDS = 1_000
#: how far below the cutoff a bound must be to skip a word (RapidFuzz scores in floating point)
_MARGIN = 1e-6
#: how far from the cutoff an exact ratio must be for the answer to be RapidFuzz's (which adds
#: 1e-5 of the whole scale to the cutoff it searches with, and compares its float with it)
_SURE = 1e-2


def _may_reach(q: str, counts: dict[str, int], word: str, cutoff: float) -> bool:
    """Whether ``fuzz.ratio(q, word)`` can reach ``cutoff``.

    The ratio is ``200 * LCS / (len(q) + len(word))``, and the longest common subsequence holds
    no more of a letter than either word does.
    """
    total = len(q) + len(word)
    limit = (cutoff - _MARGIN) * total
    if 200 * min(len(q), len(word)) < limit:
        return False
    common = sum(min(n, word.count(c)) for c, n in counts.items())
    return 200 * common >= limit


def common_length(a: str, b: str) -> int:
    """The length of the longest common subsequence of ``a`` and ``b`` (bit-parallel, a machine
    word's worth of ``a`` at a time: Allison and Dix's algorithm on Python's integers)."""
    masks: dict[str, int] = {}
    for i, c in enumerate(a):
        masks[c] = masks.get(c, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for c in b:
        u = v & masks.get(c, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


def _reaches(q: str, word: str, cutoff: float) -> bool | None:
    """Whether ``fuzz.ratio(q, word)`` reaches ``cutoff``, from the exact ratio; None when it lies
    within ``_SURE`` of the cutoff (RapidFuzz's own arithmetic decides)."""
    total = len(q) + len(word)
    if total == 0:
        return None
    ratio = 200 * common_length(q, word)
    if ratio >= (cutoff + _SURE) * total:
        return True
    if ratio <= (cutoff - _SURE) * total:
        return False
    return None


def decided(q: str, words: Sequence[str], cutoff: float) -> tuple[set[str], list[str]]:
    """The ``words`` whose ``fuzz.ratio`` with ``q`` is shown to reach ``cutoff`` without
    RapidFuzz, and those whose ratio lies too close to it to tell (the others do not reach it)."""
    counts = {c: q.count(c) for c in set(q)}
    found: set[str] = set()
    close = []
    for w in words:
        if _may_reach(q, counts, w, cutoff):
            side = _reaches(q, w, cutoff)
            if side is None:
                close.append(w)
            elif side:
                found.add(w)
    return found, close


def typos_of(q: str, words: Sequence[str], cutoff: float) -> frozenset[str]:
    """The ``words`` whose ``fuzz.ratio`` with ``q`` is at least ``cutoff`` (0-100)."""
    found: set[str] = set()
    if len(words) <= BOUNDED_WORDS and "rapidfuzz" not in sys.modules:
        found, close = decided(q, words, cutoff)
        if not close:
            return frozenset(found)
        words = close
    from rapidfuzz import fuzz, process

    scored = process.extract(q, words, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
    return frozenset(found.union(c[0] for c in scored))
