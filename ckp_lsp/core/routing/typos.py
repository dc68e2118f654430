"""Typos of a question word: the bank's words within RapidFuzz's ``fuzz.ratio`` cutoff of it.

RapidFuzz is the scorer, but importing it costs a one-shot process (``ckp route``, the prompt
hook) more than routing does; most words of a question are a typo of no word of the bank, and a
bound on the ratio proves it without the import.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: the most words the bound is tried on (in Python, about 5 µs a word): past it, or once RapidFuzz
#: is imported, RapidFuzz scores them all at once
BOUNDED_WORDS = 1_000
#: how far below the cutoff a bound must be to skip a word (RapidFuzz scores in floating point)
_MARGIN = 1e-6


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


def typos_of(q: str, words: Sequence[str], cutoff: float) -> frozenset[str]:
    """The ``words`` whose ``fuzz.ratio`` with ``q`` is at least ``cutoff`` (0-100)."""
    maybe = words
    if len(words) <= BOUNDED_WORDS and "rapidfuzz" not in sys.modules:
        counts = {c: q.count(c) for c in set(q)}
        maybe = [w for w in words if _may_reach(q, counts, w, cutoff)]
        if not maybe:
            return frozenset()
    from rapidfuzz import fuzz, process

    return frozenset(
        c[0] for c in process.extract(q, maybe, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
    )
