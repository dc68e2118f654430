"""The ranked router (SPEC §6b): every knowledge file ranked by the question's words, fields weighted.

A file's score is BM25F over its header (concept, TLDR, keywords, file name), headings and body,
plus a boost where the index pattern (6a) matches its keywords, so the ranked router finds what
the index finds (a keyword of words many files hold boosts less). The best file is a primary; up
to two more are, when they score at least a quarter of it (SPEC's "at most 3 primaries"). Every
other file loaded is a relationship of a primary, within the budget of files: ``SIMILAR_HIGH``, and
``SIMILAR_MID`` only where the question matches that file too (its keywords, header or headings,
or a score a primary would have; a word of its body alone is not enough). A question whose best file holds too little of it (``domain``) loads nothing.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.project.within import Folder
from ckp_lsp.core.routing.route_table import FULL_READ_LIMIT, SEPARATOR, RouteTable, related, table_of_bank

from .analysis import QueryWord, query_words
from .compounds import held_apart
from .documents import (
    BODY,
    HEADER,
    HEADINGS,
    FileText,
    analyse,
    header_text,
    language_of,
    read_file_text,
    stemmers,
)
from .domain import Ranking, keyword_coverage
from .index_pattern import MAX_PRIMARY, Router
from .keyword_boost import keyword_rarity
from .postings import Hit, Postings, total
from .result import RouteEntry, RouteResult, RouteTokens, declaration
from .store import Analysed, RouteStore

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank

#: header above headings above body (BM25F field weights)
WEIGHTS = (3.0, 2.0, 1.0)
#: files loaded at most: the primaries and the relationships that fit beside them
MAX_LOADED = 4
#: a second or third primary scores at least this share of the best file
PRIMARY_SHARE = 0.25
#: the boost of a file the index pattern matches, as a share of the best BM25 score per keyword of
#: a word one file holds (a keyword of words many files hold boosts less: ``keyword_rarity``)
INDEX_BOOST = 0.5
#: what a word the bank does not hold weighs, unless written as a name, as a share of a rare word
UNKNOWN_WORD_SHARE = 0.35
#: words named in the declaration per file at most
DECLARED_WORDS = 6
#: files matched but not loaded that a result lists
MATCHED_LISTED = 10


#: a word of hiragana alone is Japanese grammar (particles, endings: "どう", "です", "ように"); the
#: words a question is about are written in kanji, katakana or Latin letters
_HIRAGANA = re.compile("[\u3041-\u309f]+")


class RankedRouter:
    """A bank's files ranked for each question; built once, ``route`` then scores the postings."""

    def __init__(
        self,
        source: Bank | RouteTable,
        file_budget_tokens: int | None = None,
        texts: Sequence[FileText] | None = None,
        store: RouteStore | None = None,
    ) -> None:
        table = source if isinstance(source, RouteTable) else table_of_bank(source)
        self._tabled(table, file_budget_tokens if file_budget_tokens is not None else _budget(source))
        if texts is not None:
            self.texts = texts
        analysed = self._analyse(store)
        self.language = language_of(analysed)
        languages = tuple(sorted({"en"}.union(*(a.languages for a in analysed))))
        self.postings = Postings.of_counts(
            [a.counts for a in analysed], [a.lengths for a in analysed], WEIGHTS, stemmers(languages)
        )
        self.postings.languages = languages

    def _tabled(self, table: RouteTable, file_budget_tokens: int | None, index: Router | None = None) -> None:
        self.index = index if index is not None else Router(table, file_budget_tokens)
        self.table = table
        self.files = len(table)
        self.file_budget_tokens = self.index.file_budget_tokens

    @classmethod
    def restored(
        cls,
        table: RouteTable,
        file_budget_tokens: int,
        postings: Postings,
        language: str | None,
        index: Router | None = None,
    ) -> RankedRouter:
        """The router of a table and the postings (and index pattern) a built one had
        (``snapshot``): nothing is read."""
        router = cls.__new__(cls)
        router._tabled(table, file_budget_tokens, index)
        router.language, router.postings = language, postings
        return router

    def _analyse(self, store: RouteStore | None) -> list[Analysed]:
        """Every file analysed: taken from ``store`` where the file did not change, else read."""
        root = self.table.root
        if store is None or root is None or "texts" in self.__dict__ or len(self.table) > FULL_READ_LIMIT:
            texts = self.texts
            language = language_of(texts)
            return [analyse(t, language) for t in texts]
        stats: list[os.stat_result | None] = []
        kept: list[Analysed | None] = []
        for path in self.table.paths:
            try:
                st = os.stat(root / path)
            except OSError:
                st = None
            stats.append(st)
            kept.append(store.get(path, st) if st is not None else None)
        read = {i: self._text(i) for i, a in enumerate(kept) if a is None}
        language = language_of([*(a for a in kept if a is not None), *read.values()])
        out = []
        for i, a in enumerate(kept):
            if a is not None and (a.language == language or not (a.kana or a.ideographs)):
                out.append(a)
                continue
            a = analyse(read[i] if i in read else self._text(i), language)
            st = stats[i]
            if st is not None:
                store.put(self.table.paths[i], st, a)
            out.append(a)
        store.save()
        return out

    @cached_property
    def _disk(self) -> Folder:
        """The bank's folder, whose files alone are read (``within.Folder``)."""
        assert self.table.root is not None
        return Folder(self.table.root)

    def _text(self, i: int) -> FileText:
        t = self.table
        return read_file_text(
            self._disk, t.paths[i], t.concepts[i], t.tldrs[i], t.keywords[i].split(SEPARATOR)
        )

    @cached_property
    def texts(self) -> Sequence[FileText]:
        """The files' texts (read on first use where the analysis came from the store)."""
        return _texts_of(self.table)

    @property
    def index_tokens(self) -> int:
        return self.index.index_tokens

    @property
    def total_tokens(self) -> int:
        """Tokens of every knowledge file: what an agent without CKP reads."""
        return self.index.total_tokens

    def groups(self, query: str) -> list[tuple[QueryWord, frozenset[str]]]:
        """The question's words (stop words left out) and the bank's terms each stands for."""
        found = query_words(query, self.language)
        stops = question_stop_words(query, self.postings.languages)
        out = []
        for w in found:
            if _HIRAGANA.fullmatch(w.written):
                continue
            group = self.postings.group(w)
            # A stop word written as a name is (".md" in a Korean question: ISO's English list has
            # "md") is the question's subject where the bank holds it.
            if w.terms[0] not in stops or (w.name and group):
                out.append((w, group))
        if self.language is not None:
            out.extend(self._inside_runs(query, {t for _, g in out for t in g}))
        return out

    def _inside_runs(self, query: str, seen: set[str]) -> list[tuple[QueryWord, frozenset[str]]]:
        """Words of the bank's Chinese or Japanese that stand inside the question's runs of ideographs
        (a segmenter may cut a question differently from the file it asks about)."""
        import unicodedata

        from ..language.scripts import CJK_RUN

        runs = CJK_RUN.findall(unicodedata.normalize("NFKC", query).casefold())
        if not runs:
            return []
        return [
            (QueryWord(w, (w,)), frozenset((w,)))
            for w in sorted(self._cjk_vocabulary)
            if w not in seen and not _HIRAGANA.fullmatch(w) and any(w in r for r in runs)
        ]

    @cached_property
    def _cjk_vocabulary(self) -> frozenset[str]:
        from ..language.scripts import CJK_RUN

        return frozenset(w for w in self.postings.vocabulary if len(w) >= 2 and CJK_RUN.fullmatch(w))

    def ranking(self, query: str) -> Ranking:
        """Files by score (best first, ties by path), their hits, the index pattern's keywords of
        each, and the best file's coverage of the question's weight (0-1)."""
        groups = self.groups(query)
        hits = self.postings.score([(w.written, g) for w, g in groups])
        index_hits = self.index.scores(query)
        scores = {i: total(h) for i, h in hits.items()}
        top = max(scores.values(), default=0.0)
        most = max((len(k) for k in index_hits.values()), default=0)
        rarity = {
            k: keyword_rarity(self.postings, k, self.language) for kws in index_hits.values() for k in kws
        }
        for i, kws in index_hits.items():
            scores[i] = scores.get(i, 0.0) + INDEX_BOOST * max(top, 1.0) * sum(rarity[k] for k in kws) / most
        ranked = sorted(scores.items(), key=lambda s: (-s[1], self.table.paths[s[0]]))
        # A word is known by its first group: an identifier's whole (``DynamoDB``), not one of its
        # pieces (``db``, which ``TimescaleDB`` holds too).
        first: dict[str, frozenset[str]] = {}
        for w, g in groups:
            first.setdefault(w.written, g)
        unknown_names = {w.written for w, _ in groups if w.name and not first[w.written]}
        weight = sum(self._weight(w, g) for w, g in groups)
        coverage = 0.0
        held = 0
        if ranked and weight:
            best = ranked[0][0]
            # (a compound's pieces the best file holds only apart: `cross-platform` for `cross-encoder`)
            stops = question_stop_words(query, self.postings.languages) if "-" in query else ()
            apart = held_apart(query, groups, best, self.postings, stops)
            held = len({w.written for w, g in groups if g and best in self.postings.files_of(g)})
            # (per group, not per written word: the pieces of an identifier share theirs)
            coverage = (
                sum(
                    self._weight(w, g)
                    for w, g in groups
                    if g and best in self.postings.files_of(g) and w.written.casefold() not in apart
                )
                / weight
            )
            if best in index_hits:
                coverage = max(coverage, keyword_coverage(index_hits[best], groups, self._weight, weight))
        titled = bool(ranked) and (
            ranked[0][0] in index_hits or any(set(h.fields) - {BODY} for h in hits.get(ranked[0][0], ()))
        )
        return Ranking(
            ranked,
            hits,
            index_hits,
            coverage,
            sorted(unknown_names),
            titled,
            held,
            len({w.written for w, _ in groups}),
            tuple(groups),
        )

    def _weight(self, word: QueryWord, group: frozenset[str]) -> float:
        """What a question word weighs in its coverage: its idf; a word the bank does not hold weighs
        as a word of no file when it is written as a name (a technology the bank does not know), a
        share of that otherwise (a paraphrase of what the bank says in other words)."""
        if group:
            return self.postings.idf(group)
        unknown = math.log(1 + (self.postings.files + 0.5) / 0.5)
        return unknown if word.name else UNKNOWN_WORD_SHARE * unknown

    def route(self, query: str) -> RouteResult:
        """The files to load for ``query`` (SPEC §6b), the declaration line and the token estimates."""
        t = self.table
        found = self.ranking(query)
        ranked, hits, index_hits = found.ranked, found.hits, found.index_hits
        budget = self.file_budget_tokens
        score = dict(ranked)

        def entry(i: int, reason: str, via: str | None) -> RouteEntry:
            cost = token_estimate(t.sizes[i])
            keywords = index_hits.get(i, [])
            return RouteEntry(
                t.concepts[i],
                t.paths[i],
                reason,
                keywords,
                via,
                cost,
                cost > budget,
                _words(hits.get(i, []), keywords),
                round(score.get(i, 0.0), 4),
            )

        primaries: list[int] = []
        if not found.out_of_domain:
            best = ranked[0][1]
            primaries = [i for i, s in ranked[:MAX_PRIMARY] if s >= PRIMARY_SHARE * best]
        loaded: dict[int, RouteEntry] = {i: entry(i, "match", None) for i in primaries}
        strong = PRIMARY_SHARE * ranked[0][1] if primaries else math.inf  # a primary's score
        for reason in ("high", "mid"):
            for p in primaries:
                for concept in related(t.high[p] if reason == "high" else t.mid[p]):
                    i = self.index._by_concept.get(concept)
                    if i is None or i in loaded or len(loaded) >= MAX_LOADED:
                        continue
                    if reason == "mid" and not _matches(i, hits, index_hits, score.get(i, 0.0) >= strong):
                        continue
                    loaded[i] = entry(i, reason, t.concepts[p])
        entries = list(loaded.values())
        rest = [entry(i, "match", None) for i in [i for i, _ in ranked if i not in loaded][:MATCHED_LISTED]]
        loaded_tokens = sum(e.tokens for e in entries)
        tokens = RouteTokens(
            self.index.index_tokens,
            loaded_tokens,
            self.index.index_tokens + loaded_tokens,
            self.index.total_tokens,
        )
        first = [loaded[i] for i in primaries]
        over = [e for e in entries if e.over_budget]
        line = declaration(first, len(entries), self.files, over)
        return RouteResult(query, entries, rest, not entries, line, tokens, self.files, first, budget)


def _matches(i: int, hits: dict[int, list[Hit]], index_hits: dict[int, list[str]], strong: bool) -> bool:
    """Whether the question matches a MID file itself: its keywords, or words of its header or
    headings; a word of its body alone is not enough, unless the file is ``strong`` (it scores as a
    primary would, a quarter of the best, but three files rank above it)."""
    if strong or i in index_hits:
        return True
    return any(HEADER in h.fields or HEADINGS in h.fields for h in hits.get(i, ()))


def _words(found: list[Hit], keywords: list[str]) -> list[str]:
    """The question's words a file holds, as written, best first, without those its keywords name."""
    from .analysis import terms

    named = {t for k in keywords for t in terms(k)}
    out: list[str] = []
    for h in found:
        word = h.word.casefold()
        if word in named or word.removesuffix("s") in named or h.word in out:
            continue  # (the keyword already says it: "guard" for "guards")
        out.append(h.word)
    return out[: max(0, DECLARED_WORDS - len(keywords))]


def _budget(source: Bank | RouteTable) -> int | None:
    return None if isinstance(source, RouteTable) else source.config.file_budget_tokens


def _texts_of(table: RouteTable) -> list[FileText]:
    """The files' texts: read from disk where the table knows the bank's root, else the headers.

    A bank of more than ``FULL_READ_LIMIT`` files is ranked by its headers, as ``ckp route`` reads
    it from ``_index.md``: reading every body would cost seconds at 10,000 files.
    """
    if table.root is None or len(table) > FULL_READ_LIMIT:
        return [
            FileText(p, header_text(p, c, tldr, k.split(SEPARATOR)), "")
            for p, c, k, tldr in zip(table.paths, table.concepts, table.keywords, table.tldrs, strict=True)
        ]
    disk = Folder(table.root)
    return [
        read_file_text(disk, p, c, tldr, k.split(SEPARATOR))
        for p, c, k, tldr in zip(table.paths, table.concepts, table.keywords, table.tldrs, strict=True)
    ]


def question_stop_words(query: str, bank: tuple[str, ...]) -> frozenset[str]:
    """Stop words of the question's languages and the bank's (English always): "how", "для", "の".

    A question in plain ASCII over a bank in English is English: its languages are not detected
    (detection reads every language's list).
    """
    from ..language import stop_words

    if query.isascii() and bank == ("en",):
        return stop_words(bank)
    from ..language import languages  # (detection is imported only for a question it reads)

    return stop_words({*languages(query), *bank})
