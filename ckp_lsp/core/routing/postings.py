"""BM25 over the fields of a bank's files: in-memory postings, one table of term -> file -> count per field.

Each field is normalised by its own length and weighted (BM25F: Robertson, Zaragoza & Taylor
2004); one field of weight 1 is plain Okapi BM25. A question word counts once however many forms of
it a file holds: its *group* is every term of the bank of the same stem (Snowball, in the bank's
languages), or of the same Korean noun, and the group's frequency and document frequency are
counted as one term's.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from functools import cached_property

from ckp_lsp.core.format.patterns import lazy
from ckp_lsp.core.format.records import Frozen, Record

from .analysis import QueryWord, fold
from .korean import is_hangul
from .korean import stem as korean_stem

K1 = 1.2
B = 0.75
#: words shorter than this are matched as written (a stem of two letters matches too much)
MIN_STEM = 3
#: a number written with an ending (``404ing``, ``500ms``, ``1990s``): where the bank holds the word
#: nowhere it stands for the number. Three digits at least: a code, a port, a size; a shorter
#: number (``2nd``, ``3x``) is in too many files to say anything
_NUMBER_WITH_ENDING = lazy(r"([0-9]{3,})[a-z]+")


class Hit(Frozen):
    """What one question word gave one file: its share of the score, and the word as written."""

    _fields = ("word", "score", "fields")
    __slots__ = _fields

    def __init__(self, word: str, score: float, fields: tuple[int, ...]) -> None:
        self.word = word
        self.score = score
        self.fields = fields  # the fields it occurs in


class Postings(Record):
    """Term -> file -> count, per field, with each file's field lengths."""

    # (no ``__slots__``: the snapshot keeps and restores its attributes, those computed on first
    # use among them, through its ``__dict__``)
    _fields = ("weights", "files", "tables", "lengths", "stemmers", "languages")

    def __init__(
        self,
        weights: tuple[float, ...],
        files: int = 0,
        tables: list[dict[str, dict[int, int]]] | None = None,
        lengths: list[list[int]] | None = None,
        stemmers: tuple[str, ...] = (),  # ISO codes whose Snowball stems group words
        languages: tuple[str, ...] = ("en",),  # the bank's languages
    ) -> None:
        self.weights = weights
        self.files = files
        self.tables = [] if tables is None else tables
        self.lengths = [] if lengths is None else lengths
        self.stemmers = stemmers
        self.languages = languages

    @classmethod
    def build(
        cls, docs: Sequence[Sequence[Sequence[str]]], weights: Sequence[float], stemmers: tuple[str, ...] = ()
    ) -> Postings:
        """Postings of ``docs``: each a sequence of fields, each field its terms."""
        counted = [[Counter(found) for found in fields] for fields in docs]
        lengths = [[len(found) for found in fields] for fields in docs]
        return cls.of_counts(counted, lengths, weights, stemmers)

    @classmethod
    def of_counts(
        cls,
        counts: Sequence[Sequence[Mapping[str, int]]],
        lengths: Sequence[Sequence[int]],
        weights: Sequence[float],
        stemmers: tuple[str, ...] = (),
    ) -> Postings:
        """Postings of documents given as each field's term counts and length."""
        p = cls(tuple(weights), len(counts), [{} for _ in weights], [[] for _ in weights], stemmers)
        for d, (fields, sizes) in enumerate(zip(counts, lengths, strict=True)):
            for f, found in enumerate(fields):
                p.lengths[f].append(sizes[f])
                table = p.tables[f]
                for term, n in found.items():
                    row = table.get(term)
                    if row is None:
                        table[term] = {d: n}
                    else:
                        row[d] = n
        return p

    @cached_property
    def _averages(self) -> list[float]:
        return [(sum(ls) / len(ls)) or 1.0 if ls else 1.0 for ls in self.lengths]

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        return frozenset().union(*(t.keys() for t in self.tables))

    @cached_property
    def _by_start(self) -> dict[str, list[str]]:
        """The vocabulary's words (of 3+ letters, not ideographs) by their first letters, accents off."""
        out: defaultdict[str, list[str]] = defaultdict(list)
        for w in self.vocabulary:
            if len(w) >= MIN_STEM and w[0].isalpha() and not _ideographic(w[0]):
                out[fold(w)].append(w)
        return out

    @cached_property
    def _hangul(self) -> list[str]:
        """The vocabulary's Korean words, sorted (a stem finds the words it starts by bisection)."""
        return sorted(w for w in self.vocabulary if is_hangul(w))

    def _korean(self, term: str) -> set[str]:
        """The bank's Korean words that start with the stem of a question's Korean word."""
        start = korean_stem(term)
        if start is None:
            return set()
        words = self._hangul
        out = set()
        for i in range(bisect_left(words, start), len(words)):
            if not words[i].startswith(start):
                break
            out.add(words[i])
        return out

    def group(self, word: QueryWord) -> frozenset[str]:
        """The bank's terms a question word stands for: its own, and those of the same stem
        (Snowball's; for a Korean word, the bank's words that start with its stem)."""
        found = {t for t in word.terms if t in self.vocabulary}
        if not found:
            number = _NUMBER_WITH_ENDING.fullmatch(word.terms[0])
            if number and number.group(1) in self.vocabulary:
                return frozenset((number.group(1),))
        if is_hangul(word.terms[-1]):
            found.update(self._korean(word.terms[-1]))
            return frozenset(found)
        if not self.stemmers:
            return frozenset(found)
        from ..language.stems import stem

        for term in word.terms:
            if len(term) < MIN_STEM or _ideographic(term[0]):
                continue
            near = self._by_start.get(fold(term), ())
            for code in self.stemmers:
                s = stem(term, code)
                found.update(w for w in near if stem(w, code) == s)
        return frozenset(found)

    def idf(self, group: frozenset[str]) -> float:
        """BM25's idf of a group of terms counted as one: ln(1 + (N - df + 0.5) / (df + 0.5))."""
        df = len(self.files_of(group))
        return math.log(1 + (self.files - df + 0.5) / (df + 0.5))

    def files_of(self, group: frozenset[str]) -> set[int]:
        out: set[int] = set()
        for table in self.tables:
            for t in group:
                row = table.get(t)
                if row:
                    out.update(row)
        return out

    def score(self, groups: Sequence[tuple[str, frozenset[str]]]) -> dict[int, list[Hit]]:
        """Each file's hits for the question's word groups ``(written, terms)``, best first."""
        avg = self._averages
        hits: defaultdict[int, list[Hit]] = defaultdict(list)
        for written, group in groups:
            if not group:
                continue
            weight = self.idf(group)
            tf: defaultdict[int, float] = defaultdict(float)
            where: defaultdict[int, list[int]] = defaultdict(list)
            for f, table in enumerate(self.tables):
                rows = [row for row in (table.get(t) for t in group) if row]
                if not rows:
                    continue
                counts = rows[0] if len(rows) == 1 else _merged(rows)
                lengths, w, norm = self.lengths[f], self.weights[f], B / avg[f]
                for d, n in counts.items():
                    tf[d] += w * n / (1 - B + norm * lengths[d])
                    where[d].append(f)
            for d, x in tf.items():
                hits[d].append(Hit(written, weight * x / (K1 + x), tuple(where[d])))
        for found in hits.values():
            found.sort(key=lambda h: -h.score)
        return hits


def _merged(rows: list[dict[int, int]]) -> dict[int, int]:
    """The counts of several terms added up per file."""
    out = dict(rows[0])
    for row in rows[1:]:
        for d, n in row.items():
            out[d] = out.get(d, 0) + n
    return out


def total(found: Sequence[Hit]) -> float:
    """A file's score: the sum of its hits."""
    return sum(h.score for h in found)


def _ideographic(char: str) -> bool:
    return "\u3005" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff" or char >= "\U00020000"
