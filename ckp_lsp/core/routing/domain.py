"""Whether a question is in a bank's domain (SPEC §6b: nothing is loaded when the best match is
too weak): what ranking one question gave, and the shares of the question the best file must hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .analysis import QueryWord
from .postings import Hit

#: the share of the question's weight (its words' idf) the best file must hold to be in domain…
OUT_OF_DOMAIN_COVERAGE = 0.15
#: …and when the question names something (``Kubernetes``, ``gRPC``) that no file of the bank holds
UNKNOWN_NAME_COVERAGE = 0.45
#: …and when the best file holds the question's words in its body alone: at least two of them…
BODY_ONLY_COVERAGE = 0.25
#: …or, while the question names something no file holds, this share
BODY_ONLY_NAMED_COVERAGE = 0.6
#: the question's words (as written) the best file must hold when it holds them in its body alone
BODY_ONLY_WORDS = 2


class Ranking(NamedTuple):
    """What ranking one question gave."""

    ranked: list[tuple[int, float]]  # (file, score), best first
    hits: dict[int, list[Hit]]
    index_hits: dict[int, list[str]]  # the keywords the index pattern matched, as written
    coverage: float
    unknown_names: list[str]  # the question's names the bank holds nowhere
    titled: bool  # the best file holds a word of the question in its header or headings
    held: int = 0  # the question's words (as written) the best file holds…
    asked: int = 0  # …of this many
    groups: tuple[tuple[QueryWord, frozenset[str]], ...] = ()  # the question's words and their terms

    @property
    def out_of_domain(self) -> bool:
        """Whether the best file holds too little of the question (the shares above)."""
        if not self.ranked or self.coverage < OUT_OF_DOMAIN_COVERAGE:
            return True
        if bool(self.unknown_names) and self.coverage < UNKNOWN_NAME_COVERAGE:
            return True
        if self.titled:
            return False
        # A body alone holds many words by chance: one word of the question ("Tokyo" in a weather
        # question) is not enough, nor a question about something the bank never names.
        if self.unknown_names:
            return self.coverage < BODY_ONLY_NAMED_COVERAGE
        return self.held < min(BODY_ONLY_WORDS, self.asked) or self.coverage < BODY_ONLY_COVERAGE


def keyword_coverage(
    keywords: list[str],
    groups: list[tuple[QueryWord, frozenset[str]]],
    weigh: Callable[[QueryWord, frozenset[str]], float],
    weight: float,
) -> float:
    """The share of the question's weight in the words of the keywords the index matched."""
    from .analysis import terms

    held = {t for k in keywords for t in terms(k)}
    return sum(weigh(w, g) for w, g in groups if g & held) / weight
