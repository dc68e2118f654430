"""How much a keyword the index pattern matched boosts its file in the ranked router: by how rare
its words are in the bank. A keyword many files claim (`cards` in a bank of card games) tells
little of which file a question is about; with every keyword boosting alike, such keywords made
their files the best over the one that answers, on real banks."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .postings import Postings

#: the share of a rare keyword's boost left to a keyword of a word every file holds
SHARED_KEYWORD_BOOST = 0.5


def keyword_rarity(postings: Postings, keyword: str, language: str | None) -> float:
    """A keyword's share of the boost: 1 when its rarest word is in one file (or none), down to
    ``SHARED_KEYWORD_BOOST`` when every file holds it (BM25 idf against a one-file word's)."""
    from .analysis import terms

    one = math.log(1 + (postings.files - 0.5) / 1.5)
    idf = max((postings.idf(frozenset((t,))) for t in terms(keyword, language)), default=one)
    share = min(1.0, idf / one) if one > 0 else 1.0
    return SHARED_KEYWORD_BOOST + (1 - SHARED_KEYWORD_BOOST) * share
