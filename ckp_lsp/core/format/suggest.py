"""Suggestions for what was meant: the closest of the names known, and a valid concept name for a text."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping, Sequence

from ckp_lsp.core.format.fields import CONCEPT_RE

#: most concepts an unknown one is compared with for a suggestion (CKP041)
SUGGEST_POOL = 1000
#: what separates the words of a concept name
NAME_WORD = re.compile(r"[-._]+")


def slugify(text: str) -> str:
    """A valid concept name for ``text``: ``JWT Authentication`` -> ``jwt-authentication``,
    ``caffè`` -> ``caffe`` (letters of any script are transliterated, not dropped)."""
    from ckp_lsp.core.language.names import slug  # on first use: only an invalid CONCEPT needs it

    return slug(text) or "concept"


def closest(word: str, choices: list[str] | tuple[str, ...], cutoff: float = 60) -> str | None:
    """The closest of ``choices`` to ``word`` (rapidfuzz), or None when nothing is close."""
    if not choices:
        return None
    from rapidfuzz import fuzz, process  # imported when first needed: most runs never suggest

    best = process.extractOne(word, choices, scorer=fuzz.ratio, processor=None, score_cutoff=cutoff)
    return best[0] if best else None


def suggest_concept(
    concept: str, names: list[str], concept_words: Callable[[], Mapping[str, Sequence[str]]]
) -> str | None:
    """The one of ``names`` (sorted) closest to ``concept`` (CKP041's suggestion), or None;
    ``concept_words`` gives the names by each word of them.

    Above SUGGEST_POOL concepts only the names sharing the longest prefix with ``concept``
    that leaves at most SUGGEST_POOL of them are compared, so that checking a bank with many
    unknown entries stays linear in its size.
    """
    if len(names) > SUGGEST_POOL:
        lo, hi, k = 0, len(names), 0
        while hi - lo > SUGGEST_POOL and k < len(concept):
            k += 1
            lo = bisect.bisect_left(names, concept[:k], lo, hi)
            hi = bisect.bisect_left(names, concept[:k] + "\U0010ffff", lo, hi)
        # Names sharing a word with it too (``ghost-ledger`` -> ``billing-ledger``), unless common.
        words = concept_words()
        pool = set(names[lo:hi])
        for word in NAME_WORD.split(concept):
            sharing = words.get(word, ())
            if len(sharing) <= SUGGEST_POOL:
                pool.update(sharing)
        names = sorted(pool)
    # A declared name that is not a valid one ('JWT Authentication', CKP010) is no suggestion:
    # written into an entry it would be a new CKP040.
    return closest(concept, [n for n in names if CONCEPT_RE.match(n)])
