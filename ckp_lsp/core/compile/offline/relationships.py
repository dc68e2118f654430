"""SIMILAR_HIGH and SIMILAR_MID from evidence both ways, never from a common word.

Evidence that file A relates to concept B: A links to B, A names B (on purpose: in a heading, a
code span, a multi-word or capitalised name), and A's body uses B's keywords. Evidence is looked
for both ways — in a whole-bank compile from both bodies; for one file, B's own header listing A
stands for B's side. HIGH needs a deliberate reference both ways backed by shared keywords; one
deliberate reference, or keywords shared both ways, is MID. A name that many files of the bank
use as a plain word (`memory`) counts only where it is named on purpose.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ckp_lsp.core.format.limits import MAX_HIGH, MAX_MID

from .reading import Reading
from .terms import PART, Corpus, content_keys, part_keys, stem

_HIGH_OVERLAP = 0.45  # keyword overlap that makes a repeated one-way dependency HIGH
_OVERLAP = 0.25  # keyword overlap that counts as shared topics


@dataclass(frozen=True)
class Profile:
    """A concept as token keys: its name, keywords and TLDR words, and the names it goes by."""

    concept: str
    name: tuple[str, ...]
    keywords: tuple[tuple[str, ...], ...]
    tldr: frozenset[str]
    keys: frozenset[str]
    targets: frozenset[str]  # link targets that mean it: its concept and its file's stem, folded
    lists: frozenset[str] = frozenset()  # the concepts its header relates to


@functools.lru_cache(maxsize=8192)
def profile(
    concept: str,
    tldr: str,
    answers_when: tuple[str, ...],
    stops: frozenset[str],
    cjk: str | None = None,
    stem_name: str = "",
    lists: frozenset[str] = frozenset(),
) -> Profile:
    """Read a concept's header into token keys (`stops` and `cjk` as the bank's ``Corpus``)."""
    name = part_keys(concept)
    keywords = []
    for keyword in answers_when:
        keys = tuple(content_keys(keyword, stops, cjk))
        if keys and keys != name:
            keywords.append(keys)
    tldr_keys = frozenset(content_keys(tldr, stops, cjk)) - set(name)
    everything = set(name) | tldr_keys | {k for kw in keywords for k in kw}
    targets = frozenset(t.casefold() for t in (concept, stem_name) if t)
    return Profile(
        concept, name, tuple(dict.fromkeys(keywords)), tldr_keys, frozenset(everything), targets, lists
    )


@dataclass
class Evidence:
    """What one body shows of its relation to one concept."""

    links: int = 0
    plain: int = 0  # mentions of the concept's name
    explicit: int = 0  # mentions that name it on purpose
    overlap: float = 0.0  # weighted share of its keywords and TLDR words the body uses
    hits: int = 0  # its keywords found in the body

    @property
    def deliberate(self) -> bool:
        """A link or a mention on purpose."""
        return bool(self.links or self.explicit)

    @property
    def shared(self) -> bool:
        """Enough of the concept's topics in the body."""
        return self.hits >= 2 and self.overlap >= _OVERLAP

    @property
    def strength(self) -> float:
        """For ordering: references count most, then mentions and overlap."""
        return 3.0 * self.links + 2.0 * self.explicit + self.plain + 3.0 * self.overlap


class Relating:
    """The bank's concepts prepared once, to find the evidence any body holds about each."""

    def __init__(self, profiles: list[Profile], corpus: Corpus) -> None:
        self.profiles = profiles
        self.corpus = corpus
        df: Counter[str] = Counter(k for p in profiles for k in p.keys)
        self.weights = {k: 1.0 / (1.0 + 0.3 * (n - 1)) for k, n in df.items()}  # shared words tell less
        # A word in many concepts' headers weighs almost nothing: it is not worth looking up.
        limit = max(16, len(profiles) // 20)
        self.by_key: dict[str, list[tuple[int, tuple[str, ...], float]]] = {}
        self.by_tldr: dict[str, list[int]] = {}
        self.totals: list[tuple[float, float]] = []
        for i, p in enumerate(profiles):
            total = 0.0
            for kw in p.keywords:
                w = sum(self.weights[k] for k in kw) / len(kw)
                total += w
                rarest = min(kw, key=lambda k: (df[k], k))
                if df[rarest] <= limit:
                    self.by_key.setdefault(rarest, []).append((i, kw, w))
            for k in p.tldr:
                if df[k] <= limit:
                    self.by_tldr.setdefault(k, []).append(i)
            self.totals.append((total, sum(self.weights[k] for k in p.tldr)))
        self.by_target: dict[str, list[int]] = {}
        self.glued: dict[str, list[int]] = {}
        self.single: dict[str, list[int]] = {}  # one-word names by their word
        self.pairs: dict[tuple[str, str], list[int]] = {}  # longer names by their first two words
        for i, p in enumerate(profiles):
            for target in p.targets:
                self.by_target.setdefault(target, []).append(i)
            if len(p.name) == 1:
                self.single.setdefault(p.name[0], []).append(i)
            elif p.name:
                self.pairs.setdefault((p.name[0], p.name[1]), []).append(i)
            # A name written as one word (`techContext`, `activeContext.md`) is named on purpose.
            for glued in {stem("".join(p.name)), *(stem(re.sub(r"[\W_]+", "", t)) for t in p.targets)}:
                if glued and (len(p.name) != 1 or glued != p.name[0]):
                    self.glued.setdefault(glued, []).append(i)
        self.firsts = set(self.single) | {first for first, _ in self.pairs} | set(self.glued)
        self.common = {i for i, p in enumerate(profiles) if len(p.name) == 1 and corpus.common(p.name[0])}

    def evidence(self, reading: Reading, skip: str = "") -> dict[int, Evidence]:
        """The evidence a body holds about each concept (those with none left out)."""
        found: dict[int, Evidence] = {}
        own = skip.casefold()

        def of(i: int) -> Evidence:
            if i not in found:
                found[i] = Evidence()
            return found[i]

        for target, n in reading.links.items():
            for i in self.by_target.get(target, ()):
                of(i).links += n
        for i, (plain, explicit, emphatic) in self._mentions(reading).items():
            e = of(i)
            if i in self.common:
                e.plain, e.explicit = emphatic, emphatic
            else:
                e.plain, e.explicit = plain, explicit
        self._overlaps(reading, of)
        return {i: e for i, e in found.items() if self.profiles[i].concept.casefold() != own and _any(e)}

    def _overlaps(self, reading: Reading, of: Callable[[int], Evidence]) -> None:
        """Add each concept's keyword overlap with the body."""
        keys, top = reading.keys, reading.top
        found: dict[int, list[float]] = {}
        for key in keys:
            for i, kw, w in self.by_key.get(key, ()):
                if len(kw) == 1 or all(k in keys for k in kw):
                    got = found.setdefault(i, [0.0, 0.0, 0.0])
                    got[0] += w if all(k in top for k in kw) else w / 2
                    got[2] += 1
        for key in top:
            for i in self.by_tldr.get(key, ()):
                found.setdefault(i, [0.0, 0.0, 0.0])[1] += self.weights[key]
        for i, (kw_found, tldr_found, hits) in found.items():
            total, tldr_total = self.totals[i]
            tldr_cover = tldr_found / tldr_total if tldr_total else 0.0
            if total:
                if hits:
                    e = of(i)
                    e.overlap, e.hits = 0.7 * kw_found / total + 0.3 * tldr_cover, int(hits)
            else:  # a concept without keywords: its TLDR's words are all there is
                tldr_hits = sum(1 for k in self.profiles[i].tldr if k in top)
                if tldr_hits:
                    e = of(i)
                    e.overlap, e.hits = tldr_cover, tldr_hits

    def _mentions(self, reading: Reading) -> dict[int, tuple[int, int, int]]:
        """For each concept named in the body: mentions, deliberate ones, emphatic ones."""
        counts: dict[int, list[int]] = {}
        firsts = self.firsts
        if not firsts:
            return {}
        for segment in reading.segments:
            text = segment.text
            tokens = [(m.start(), m.end(), stem(m.group())) for m in PART.finditer(text)]
            for pos, (_, _, key) in enumerate(tokens):
                if key not in firsts:
                    continue
                for i in self.glued.get(key, ()):
                    c = counts.setdefault(i, [0, 0, 0])
                    c[0], c[1], c[2] = c[0] + 1, c[1] + 1, c[2] + segment.emphatic
                candidates = self.single.get(key, [])
                if pos + 1 < len(tokens):
                    candidates = candidates + self.pairs.get((key, tokens[pos + 1][2]), [])
                for i in candidates:
                    name = self.profiles[i].name
                    span = _match_name(text, tokens, pos, name)
                    if span:
                        c = counts.setdefault(i, [0, 0, 0])
                        c[0] += 1
                        c[1] += _explicit(text, span, name, segment.emphatic)
                        c[2] += segment.emphatic
        return {i: (c[0], c[1], c[2]) for i, c in counts.items()}


def _any(e: Evidence) -> bool:
    return bool(e.links or e.plain or e.hits)


def tier(ab: Evidence, ba: Evidence | None, listed_back: bool = False) -> str:
    """HIGH, MID or nothing for A → B from the evidence both ways.

    `ba` is None when B's body is not at hand (one file compiled alone): then B's header listing
    A stands for B's deliberate reference, and the overlap is taken as mutual.
    """
    back_deliberate = ba.deliberate if ba is not None else listed_back
    back_shared = ba.shared if ba is not None else ab.shared
    if ab.deliberate and back_deliberate and (ab.shared or back_shared):
        return "high"  # each names the other on purpose, and they share topics
    if ab.deliberate or (back_deliberate and (ab.hits or (ba.hits if ba is not None else 0))):
        return "mid"
    if ab.plain >= 2 or (ab.plain and ab.hits):
        return "mid"
    if ab.shared and back_shared and max(ab.hits, ba.hits if ba is not None else 0) >= 3:
        return "mid"
    return ""


#: at most this many HIGH the offline compiler writes: each is loaded with the file, always
OFFLINE_HIGH = 2
#: of a bank of n files, one file relates to at most n / RELATED_SHARE of them (HIGH and MID)
RELATED_SHARE = 4


def relationship_cap(files: int) -> int:
    """How many relationships (HIGH and MID) one file of a bank of ``files`` files may have, so
    that no file pulls in much of a small bank."""
    return max(2, min(MAX_HIGH + MAX_MID, files // RELATED_SHARE))


def ranked_tiers(
    candidates: Iterable[tuple[str, str, float]], files: int = 1_000
) -> tuple[list[str], list[str]]:
    """(HIGH, MID) from (concept, tier, strength): strongest first, caps applied (OFFLINE_HIGH, and
    ``relationship_cap`` of a bank of ``files`` files in all), overflow to MID."""
    high: list[tuple[float, str]] = []
    mid: list[tuple[float, str]] = []
    for concept, level, strength in candidates:
        (high if level == "high" else mid).append((strength, concept))
    high.sort(key=lambda item: (-item[0], item[1]))
    cap = relationship_cap(files)
    keep = min(OFFLINE_HIGH, cap)
    mid.extend(high[keep:])
    mid.sort(key=lambda item: (-item[0], item[1]))
    top = list(dict.fromkeys(c for _, c in high[:keep]))
    rest = [c for c in dict.fromkeys(c for _, c in mid) if c not in top]
    return top, rest[: min(MAX_MID, cap - len(top))]


def _match_name(
    text: str, tokens: list[tuple[int, int, str]], pos: int, name: tuple[str, ...]
) -> tuple[int, int] | None:
    """The span of a concept name starting at token `pos`, word-bounded, or None."""
    if pos + len(name) > len(tokens):
        return None
    for j, key in enumerate(name):
        if tokens[pos + j][2] != key:
            return None
        if j and not _joins(text[tokens[pos + j - 1][1] : tokens[pos + j][0]]):
            return None
    start, end = tokens[pos][0], tokens[pos + len(name) - 1][1]
    if text[start - 1 : start] == "_" or text[end : end + 1] == "_":
        return None
    return start, end


def _joins(gap: str) -> bool:
    """Whether the text between two words of a name keeps them one name (`http-headers`)."""
    return 0 < len(gap) <= 3 and all(c in " \t._-/" for c in gap)


def _explicit(text: str, span: tuple[int, int], name: tuple[str, ...], emphatic: bool) -> bool:
    """Whether a mention names the concept on purpose rather than as a common word."""
    surface = text[span[0] : span[1]]
    if emphatic or len(name) > 1 or any(c.isdigit() for c in surface):
        return True
    if any(c.isupper() for c in surface[1:]):
        return True
    before = text[: span[0]].rstrip(" \t\"'([*_")
    return surface[:1].isupper() and bool(before) and before[-1] not in ".!?:"
