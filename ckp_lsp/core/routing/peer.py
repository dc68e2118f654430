"""The peer every change to routing is measured against: plain Okapi BM25 over each file's raw text.

No fields, no header, no relationships: the file's whole text as one field (k1 = 1.2, b = 0.75),
analysed as the ranked router analyses it (the same words, stems, segmentation and particles), so
the comparison measures the ranking and not the reading of a language.
"""

from __future__ import annotations

from collections.abc import Sequence

from .analysis import query_words, terms
from .documents import FileText, bank_language, bank_languages, stemmers
from .postings import Postings, total


class PlainBM25:
    """BM25 over the raw text of a bank's files."""

    def __init__(self, texts: Sequence[FileText]) -> None:
        self.paths = [t.path for t in texts]
        self.language = bank_language(texts)
        self.postings = Postings.build(
            [[terms(t.raw or t.header + "\n" + t.body, self.language)] for t in texts],
            (1.0,),
            stemmers(bank_languages(texts)),
        )

    def top(self, query: str, k: int) -> list[str]:
        """The paths of the ``k`` best files for ``query`` (ties by path); fewer when fewer match."""
        from .ranked import question_stop_words

        stops = question_stop_words(query, self.postings.languages)
        groups = [
            (w.written, self.postings.group(w))
            for w in query_words(query, self.language)
            if w.terms[0] not in stops
        ]
        hits = self.postings.score(groups)
        ranked = sorted(hits, key=lambda d: (-total(hits[d]), self.paths[d]))
        return [self.paths[d] for d in ranked[:k]]
