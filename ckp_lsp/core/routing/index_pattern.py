"""The index pattern (SPEC §6a): which files an agent that reads only `_index.md` loads for a query."""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING

from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.limits import MAX_PRIMARY
from ckp_lsp.core.routing.route_table import SEPARATOR, RouteTable, related, table_of_bank

from .result import FILE_BUDGET_TOKENS, RouteEntry, RouteResult, RouteTokens, declaration
from .words import (
    ASCII_GAPS,
    MIN_STEM,
    WORD,
    ends,
    has_cjk,
    normalize,
    scripts,
    split_words,
    start,
    stems,
    text_words,
)

if TYPE_CHECKING:
    from ckp_lsp.core.bank.bank import Bank

#: tokens this long (query and keyword) may match with a typo
FUZZY_MIN_LENGTH = 5
#: rapidfuzz ratio (normalised Indel similarity, 0-100) a typo must reach: a letter dropped or
#: added passes from 5 letters on, a letter changed or two swapped from 7; a different short word
#: ("model"/"modal", "these"/"theme") does not
FUZZY_CUTOFF = 85.0
#: a keyword word in Chinese or Japanese this long matches where it stands inside the query (those
#: scripts put no space between words); a single ideograph is too common to match that way
CJK_INSIDE_MIN = 2
#: whether English words are stemmed too (beyond the plural ``s``/``es`` every word matches in)
STEMMED_ENGLISH = False


def _keyword_lines(table: RouteTable) -> list[str]:
    """Each file's keywords and concept (last), normalised and joined by SEPARATOR; empty for a
    file without a concept (it has no index row: nothing routes to it).

    Normalising every file at once costs one call instead of one per keyword.
    """
    raw = "\n".join(
        k + SEPARATOR + c if c else "" for k, c in zip(table.keywords, table.concepts, strict=True)
    )
    norm = (raw.lower() if raw.isascii() else normalize(raw)).replace(SEPARATOR + " ", SEPARATOR)
    lines = norm.split("\n")
    if len(lines) == len(table):
        return lines
    # A value held a line break: normalise file by file.
    return [
        normalize(k + SEPARATOR + c) if c else "" for k, c in zip(table.keywords, table.concepts, strict=True)
    ]


class Router:
    """A bank's routing table, built once; ``route`` then costs a few set look-ups per query."""

    def __init__(self, source: Bank | RouteTable, file_budget_tokens: int | None = None) -> None:
        table = source if isinstance(source, RouteTable) else table_of_bank(source)
        if file_budget_tokens is None:
            file_budget_tokens = (
                FILE_BUDGET_TOKENS if isinstance(source, RouteTable) else source.config.file_budget_tokens
            )
        self.file_budget_tokens = file_budget_tokens
        self.table = table
        self.files = len(table)
        self.index_tokens = table.index_tokens
        self.total_tokens = sum(map(token_estimate, table.sizes))
        # A relationship names the file of its concept; of two files that declare one (CKP011),
        # the first by path, as ``Bank.file_of``.
        self._by_concept: dict[str, int] = {}
        for i, c in enumerate(table.concepts):
            if c and (c not in self._by_concept or table.paths[i] < table.paths[self._by_concept[c]]):
                self._by_concept[c] = i
        # Every keyword of every file in one flat list (file i's start at _starts[i]): ``_items``.
        self._lines = lines = _keyword_lines(table)
        self._starts = list(accumulate((line.count(SEPARATOR) + 1 for line in lines), initial=0))
        self._words: dict[str, tuple[str, ...]] = {}  # a keyword -> its words (see ``_words_of``)
        self._anchored: defaultdict[str, list[str]] | None = None
        self._occurs: dict[str, list[int]] | None = None
        self._typos: dict[str, frozenset[str]] = {}
        self._routed = 0

    @cached_property
    def _text(self) -> str:
        return "\n".join(self._lines)

    @cached_property
    def _items(self) -> list[str]:
        """Every keyword of every file, in one flat list: made when a server indexes them (a
        one-shot query searches the text of ``_lines``, and a kept router need not hold them)."""
        return SEPARATOR.join(self._lines).split(SEPARATOR)

    @cached_property
    def language(self) -> str | None:
        """How the bank's Chinese or Japanese is segmented: "ja" when its keywords have kana, "zh"
        when they have ideographs only, None when they have neither."""
        text = self._text
        if not has_cjk(text):
            return None
        return "ja" if scripts()[1].search(text) else "zh"

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every word of every keyword and concept, normalised (Chinese and Japanese segmented)."""
        text = self._text
        if text.isascii():
            return frozenset(text.translate(ASCII_GAPS).split())
        if self.language is None:
            return frozenset(WORD.findall(text))
        return frozenset(text_words(text.replace(SEPARATOR, "\n"), self.language))

    @cached_property
    def _cjk_vocabulary(self) -> list[str]:
        """The words of Chinese or Japanese that match inside a query's run of ideographs and kana."""
        run = scripts()[0]
        return sorted(w for w in self.vocabulary if len(w) >= CJK_INSIDE_MIN and run.fullmatch(w))

    @cached_property
    def _bank_languages(self) -> tuple[str, ...]:
        from ..language import languages

        return languages(self._text.replace(SEPARATOR, ", "))

    def _stops(self, languages: tuple[str, ...]) -> frozenset[str]:
        """The stop words of ``languages`` but English: "для", "với", "または", "の".

        ISO's English list also names topics of a technical bank ("orders", "state", "call"), so an
        English stop word in a keyword is the bank's choice. A bank and a question in plain ASCII
        load no list at all (``matched_tokens``).
        """
        from ..language import stop_words

        return stop_words(c for c in languages if c != "en")

    def _content(self, toks: tuple[str, ...]) -> tuple[str, ...]:
        """A keyword's words without its stop words (the query's are not matched either); a keyword
        of stop words alone matches nothing."""
        if len(toks) < 2 or self._text.isascii():
            return toks  # (an English bank: its stop words are its own choice, see ``_stops``)
        stops = self._stops(self._bank_languages)
        return tuple(t for t in toks if t not in stops) or toks

    @cached_property
    def _long(self) -> list[str]:
        """The words that may be written with a typo, sorted."""
        return sorted(t for t in self.vocabulary if len(t) >= FUZZY_MIN_LENGTH)

    def _words_of(self, keyword: str) -> tuple[str, ...]:
        found = self._words.get(keyword)
        if found is None:
            found = self._words[keyword] = self._content(split_words([keyword], self.language)[0])
        return found

    def _keywords_of(self, matched: set[str]) -> tuple[set[str], list[int]]:
        """The keywords all of whose words are in ``matched``, and where they occur in the flat list.

        The first query finds them with one search of the text; later ones use an index of every
        keyword filed under its longest word, built then and kept: a one-shot query (the command
        line) does not pay for the index, a server pays for it once.
        """
        self._routed += 1
        if self._anchored is None and self._routed == 1 and self.language is None:
            return self._search(matched)  # (words of Chinese or Japanese do not stand apart in the text)
        if self._anchored is None:
            self._index()
        assert self._anchored is not None and self._occurs is not None
        keywords = {
            kw
            for t in matched
            for kw in self._anchored.get(t, ())
            if len(self._words[kw]) == 1 or matched.issuperset(self._words[kw])
        }
        return keywords, sorted(k for kw in keywords for k in self._occurs.get(kw, ()))

    def _search(self, matched: set[str]) -> tuple[set[str], list[int]]:
        text = SEPARATOR.join(self._lines)  # (the items, each file's after the one before)
        hits = []
        for t in matched:  # each word where it stands alone in the text (``str.find`` is fast)
            i = text.find(t)
            while i >= 0:
                j = i + len(t)
                if (i == 0 or not text[i - 1].isalnum()) and (j == len(text) or not text[j].isalnum()):
                    hits.append(i)
                i = text.find(t, j)
        hits.sort()
        keywords: set[str] = set()
        at: list[int] = []
        k, previous = 0, 0
        for i in hits:
            k += text.count(SEPARATOR, previous, i)  # the item the hit is in
            previous = i
            if at and at[-1] == k:
                continue
            end = text.find(SEPARATOR, i)
            kw = text[text.rfind(SEPARATOR, 0, i) + 1 : end if end >= 0 else len(text)]
            if matched.issuperset(self._words_of(kw)):
                keywords.add(kw)
                at.append(k)
        return keywords, at

    def _index(self) -> None:
        distinct = [kw for kw in dict.fromkeys(self._items) if kw not in self._words]
        split = split_words(distinct, self.language)
        self._words.update(zip(distinct, map(self._content, split), strict=True))
        anchored: defaultdict[str, list[str]] = defaultdict(list)
        for kw, toks in self._words.items():
            if toks:
                anchored[toks[0] if len(toks) == 1 else max(toks, key=len)].append(kw)
        occurs: defaultdict[str, list[int]] = defaultdict(list)
        for k, kw in enumerate(self._items):
            occurs[kw].append(k)
        self._anchored, self._occurs = anchored, occurs

    # --- matching ------------------------------------------------------------------------------

    def matched_tokens(self, query: str) -> dict[str, str]:
        """The bank's keyword words that occur in ``query`` (as written, as a plural, or with a
        typo), each with the query word it stands for."""
        vocab = self.vocabulary
        norm = normalize(query)
        cjk = has_cjk(norm)
        # Kana make a query Japanese whatever the bank's keywords look like (kanji alone cannot tell).
        language = ("ja" if scripts()[1].search(norm) else self.language) if cjk else None
        found = text_words(norm, language) if cjk else WORD.findall(norm)
        candidates: dict[str, list[str]] = {}
        # Inflected languages (база, базы, базе): a query word matches the keyword words of its stem.
        stemmed = self._stemmed_languages(query, norm)
        for q in sorted(set(found), reverse=True):  # ties: the alphabetically first word wins
            hits = [s for s in stems(q) if s in vocab]
            if stemmed and not has_cjk(q):
                hits.extend(w for w in self._same_stem(q, stemmed) if w not in hits)
            if not hits and len(q) >= FUZZY_MIN_LENGTH and not has_cjk(q):
                # Only a word the bank does not know can be a typo of one it does.
                hits = sorted(self._typo_of(q))
            if hits:
                candidates[q] = hits
        if cjk:
            # Chinese and Japanese put no space between words: a keyword word inside the query
            # matches where it stands, whatever the segmenter made of the query around it.
            for w in self._cjk_vocabulary:
                if w not in candidates and w in norm:
                    candidates[w] = [w]
        out: dict[str, str] = {}
        if not candidates:
            return out
        # ISO's English list names topics of a technical bank: stop words count only where another
        # language is (and an English bank and question need not load the lists at all).
        stops = frozenset() if norm.isascii() and self._text.isascii() else self._query_stops(query)
        for q, hits in candidates.items():
            if q in stops:
                continue  # "для", "の", "với": no topic of the bank, whatever its language
            for t in hits:
                out[t] = q
        return out

    def _stemmed_languages(self, query: str, norm: str) -> tuple[str, ...]:
        """The languages of the query and the bank whose words are stemmed (see ``STEMMED_ENGLISH``).

        A bank and a question in plain ASCII are English: no language is detected, nothing imported.
        """
        if norm.isascii() and self._text.isascii():
            return ("en",) if STEMMED_ENGLISH else ()
        from ..language import languages
        from ..language.stems import stemmed_languages

        found = {*languages(query), *self._bank_languages}
        if not STEMMED_ENGLISH:
            found.discard("en")
        return stemmed_languages(tuple(sorted(found)))

    @cached_property
    def _by_start(self) -> dict[str, list[str]]:
        """The vocabulary's words (but Chinese and Japanese) by their first three letters, accents
        dropped: the words that may share a stem with a word of the same start (Snowball strips
        endings, and folds ``ё`` to ``е``, ``ä`` to ``a``)."""
        out: defaultdict[str, list[str]] = defaultdict(list)
        for w in self.vocabulary:
            if len(w) >= MIN_STEM and not has_cjk(w):
                out[start(w)].append(w)
        return out

    def _same_stem(self, q: str, codes: tuple[str, ...]) -> list[str]:
        """The vocabulary's words that share a stem with the query word ``q`` in one of ``codes``."""
        if len(q) < MIN_STEM:
            return []
        from ..language.stems import stem

        out: set[str] = set()
        near = [w for w in self._by_start.get(start(q), ()) if w != q]
        for code in codes:
            s = stem(q, code)
            for w in near:
                t = stem(w, code)
                # (a stem the stemmer left whole, ``node`` of a Russian stemmer, extends to nothing:
                # ``nodejs`` is another word)
                if (s == t and len(s) >= MIN_STEM) or (s != q and ends(w, s)) or (t != w and ends(q, t)):
                    out.add(w)
        return sorted(out)

    def _query_stops(self, query: str) -> frozenset[str]:
        """Stop words of the query's languages and the bank's."""
        from ..language import languages

        return self._stops(tuple({*languages(query), *self._bank_languages}))

    def _typo_of(self, q: str) -> frozenset[str]:
        found = self._typos.get(q)
        if found is None:
            from ckp_lsp.core.routing.typos import typos_of

            found = self._typos[q] = typos_of(q, self._long, FUZZY_CUTOFF)
        return found

    def written_keywords(self, i: int) -> list[str]:
        """File ``i``'s keywords as written, its concept last."""
        return [k.strip() for k in self.table.keywords[i].split(SEPARATOR)] + [self.table.concepts[i]]

    def _keyword_line(self, i: int) -> list[str]:
        """File ``i``'s keywords and concept, normalised."""
        return self._lines[i].split(SEPARATOR)

    def scores(self, query: str) -> dict[int, list[str]]:
        """For each file with a matching keyword, its distinct matching keywords as written, in header order.

        Keywords that stand for the same query words (``cookie`` and ``cookies``, ``jwt`` as a
        keyword and as the concept) are one keyword.
        """
        matched = self.matched_tokens(query)
        _, occurrences = self._keywords_of(set(matched))
        found: defaultdict[int, list[int]] = defaultdict(list)
        starts = self._starts
        for k in occurrences:
            i = bisect_right(starts, k) - 1
            found[i].append(k - starts[i])
        hits: dict[int, list[str]] = {}
        for i, js in found.items():
            if len(js) == 1:  # most files match one keyword: nothing to tell apart
                hits[i] = [self.written_keywords(i)[js[0]]]
                continue
            written = self.written_keywords(i)
            norm = self._keyword_line(i)
            seen: set[frozenset[str]] = set()
            out = hits[i] = []
            for j in js:
                key = frozenset(matched[t] for t in self._words_of(norm[j]))
                if key not in seen:
                    seen.add(key)
                    out.append(written[j])
        return hits

    def matches(self, query: str) -> dict[str, list[str]]:
        """Concept -> its matching keywords as written, for every file ``query`` matches."""
        return {self.table.concepts[i]: kws for i, kws in self.scores(query).items()}

    # --- routing -------------------------------------------------------------------------------

    def route(self, query: str) -> RouteResult:
        """The files to load for ``query`` (SPEC §6), the declaration line and the token estimates."""
        t = self.table
        hits = self.scores(query)
        ranked = sorted(hits, key=lambda i: (-len(hits[i]), t.concepts[i], t.paths[i]))
        primaries = ranked[:MAX_PRIMARY]

        budget = self.file_budget_tokens

        def entry(i: int, reason: str, via: str | None) -> RouteEntry:
            cost = token_estimate(t.sizes[i])
            return RouteEntry(t.concepts[i], t.paths[i], reason, hits.get(i, []), via, cost, cost > budget)

        loaded: dict[int, RouteEntry] = {i: entry(i, "match", None) for i in primaries}
        for p in primaries:
            pulled = [(c, "high") for c in related(t.high[p])] + [(c, "mid") for c in related(t.mid[p])]
            for concept, reason in pulled:
                i = self._by_concept.get(concept)
                if i is None or i in loaded or (reason == "mid" and i not in hits):
                    continue
                loaded[i] = entry(i, reason, t.concepts[p])
        entries = list(loaded.values())
        rest = [entry(i, "match", None) for i in ranked if i not in loaded]
        loaded_tokens = sum(e.tokens for e in entries)
        tokens = RouteTokens(
            self.index_tokens, loaded_tokens, self.index_tokens + loaded_tokens, self.total_tokens
        )
        first = [loaded[i] for i in primaries]
        over = [e for e in entries if e.over_budget]
        line = declaration(first, len(entries), self.files, over)
        return RouteResult(query, entries, rest, not entries, line, tokens, self.files, first, budget)
