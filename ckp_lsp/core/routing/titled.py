"""The question's weight each file holds in its header or headings (which of two files the question
names more), computed for the files compared only."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from .analysis import QueryWord
from .documents import HEADER, HEADINGS
from .postings import Postings


class Titled:
    """The question's weight (its words' idf) each file holds in its header or headings, computed
    for the files asked about only."""

    def __init__(self, postings: Postings, groups: Sequence[tuple[QueryWord, frozenset[str]]]) -> None:
        self.postings, self.groups = postings, [g for _, g in groups if g]
        self.found: dict[int, float] = {}

    @cached_property
    def _idf(self) -> list[float]:
        return [self.postings.idf(g) for g in self.groups]

    def __call__(self, i: int) -> float:
        if i not in self.found:
            named = self.postings.tables[HEADER], self.postings.tables[HEADINGS]
            self.found[i] = sum(
                w
                for g, w in zip(self.groups, self._idf, strict=True)
                if any(i in table.get(t, ()) for table in named for t in g)
            )
        return self.found[i]
