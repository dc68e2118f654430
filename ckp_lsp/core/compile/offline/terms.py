"""Words as the offline compiler compares them: token keys, stems, stop words, identifiers.

Two texts are compared by their keys: each word case-folded without a plural ending, Chinese and
Japanese segmented into words (``core.language``). ``Corpus`` holds how many files of the bank use
each key, so that a word every file uses tells nothing.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ...language import has_cjk, stop_words, words
from ...language.korean import has_hangul, is_predicate, strip_particles
from ...language.stems import stem_of_script
from .text import CJK_CHAR

# Words too generic to route by in any technical bank (English), on top of the languages' stop
# words: document structure (overview, notes, status), time and quantity words.
_STOP_TEXT = """
    a about above after again against all almost along already also although always am among an
    and another any anyone anything are aren't around as at be became because become becomes been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't done down during each either else enough etc even ever every everything
    few for from further get gets getting give given gives go goes going gone got had hadn't has
    hasn't have haven't having he her here hers herself him himself his how however i if in into
    is isn't it it's its itself just keep keeps kept know known let lets like likely made make
    makes making many may maybe me might mine more most much must my myself need needed needs
    neither never new next no nor not nothing now of off often on once one only onto or other
    others otherwise our ours ourselves out over own per perhaps put quite rather really same see
    seen set sets several shall she should shouldn't show shows since so some something sometimes
    still such take takes than that that's the their theirs them themselves then there there's
    therefore these they thing things this those though through thus to together too took toward
    towards two under until up upon us use used uses using usually very via want wants was wasn't
    way ways we well were weren't what what's when where whether which while who whom whose why
    will with within without won't would wouldn't yes yet you your yours yourself yourselves
    able across actually add added adds allow allows already anyway based basically better
    call called calls case cases certain change changes come comes contain contains could
    different does done easy either example examples first following follows found full good
    great help here's high however important include included includes including instead
    kind last later least less lot lots low main mean means mostly must near nearly note notes
    number numbers okay ok part parts possible probably provide provides real reason right run
    runs say says second simple simply since small start started step steps sure three today
    true false try tries turn type types typically used useful value values whatever work works
    working write written wrong yet zero
    data info information
    overview introduction intro summary background reference references contents toc todo faq
    misc appendix detail details section sections chapter see also tldr eg ie vs cf
    http https www com org html md
    pitfalls checklist responsibilities rule rules conventions guideline guidelines limitation
    limitations caveat caveats status goal goals context decision decisions prerequisite
    prerequisites tip tips gotcha gotchas link links resource resources glossary history
    changelog roadmap idea ideas question questions answer answers problem problems solution
    solutions approach option options choice choices alternative alternatives pro pros con cons
    time times day days week weeks month months year years date dates old level levels name names
    page pages text item items list lists default version versions line lines end side top
    bottom left rest point points place order stuff anything everything someone
    monday tuesday wednesday thursday friday saturday sunday
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

_TOKEN = re.compile(r"\w+(?:[-.'’]\w+)*")
PART = re.compile(r"[^\W_]+")
CAMEL = re.compile(r"[a-z][A-Z]")
CAMEL_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_HIRAGANA_ONLY = re.compile(r"[\u3040-\u309f\u30fc]+")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")
KANJI = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3005]")


@dataclass(frozen=True, eq=False)  # hashed by identity: one bank's corpus keys caches
class Corpus:
    """The bank as a whole: its number of files, how many use each key, and its stop words."""

    files: int = 1
    df: Counter[str] = field(default_factory=Counter)
    stops: frozenset[str] = STOP_WORDS
    cjk: str | None = None  # "ja" or "zh": how the bank's ideographs are segmented
    syllabic: bool = False  # Vietnamese: words are written as syllables separated by spaces
    weight: Counter[str] = field(default_factory=Counter)  # each term's weight over all bodies
    mass: float = 0.0  # the weight of every term of every body

    def idf(self, keys: Iterable[str]) -> float:
        """How distinctive a term is: near 0 for a word every file uses, more the rarer it is."""
        n = min((self.df[k] for k in keys), default=1)
        return math.log((self.files + 1) / max(n, 1))

    def everywhere(self, keys: Iterable[str]) -> bool:
        """Whether every file of a bank of three or more uses each of the keys: such a term tells no
        file from another."""
        return self.files >= 3 and all(self.df[k] >= self.files for k in keys)

    def own_share(self, key: str, weight: float, body_mass: float) -> float:
        """How much more one body uses a term than the rest of the bank, from 0 to 1: 1 when the
        others never use it, 1/2 when they use it as often, less when they use it more."""
        others, rest = self.weight[key] - weight, self.mass - body_mass
        if others <= 0 or rest <= 0 or body_mass <= 0:
            return 1.0
        ratio = (weight / body_mass) / (others / rest)
        return ratio / (1.0 + ratio)

    def common(self, key: str) -> bool:
        """Whether a concept's one-word name is used by so many other files of the bank (over a
        quarter) that finding it in a text proves nothing."""
        return self.files >= 4 and (self.df[key] - 1) * 4 > self.files


def corpus_stops(languages: Iterable[str]) -> frozenset[str]:
    """The stop words of a bank: those of its languages and the generic words above."""
    return STOP_WORDS | stop_words(languages)


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A case-folded word without a plural ending, as routing matches `s`/`es` plurals; a word of
    an inflected language its Snowball stem (`записи`, `запись` -> `запис`), as routing matches."""
    w = word.casefold()
    if not w.isascii():
        if has_hangul(w):
            return strip_particles(w)
        return w if has_cjk(w) else stem_of_script(w)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


@functools.lru_cache(maxsize=1 << 16)
def part_keys(text: str, cjk: str | None = None) -> tuple[str, ...]:
    """The stems of the alphanumeric runs of a text, Chinese and Japanese segmented."""
    if has_cjk(text):
        return tuple(stem(p) for w in words(text, cjk) for p in PART.findall(w))
    return tuple(stem(p) for p in PART.findall(text))


def keyword_key(keyword: str, cjk: str | None = None) -> str:
    """The key under which two keywords count as the same."""
    return " ".join(part_keys(keyword, cjk))


def content_keys(text: str, stops: frozenset[str], cjk: str | None = None) -> list[str]:
    """The stems of a text's words that carry meaning (no stop words, no single letters)."""
    return [k for k in part_keys(text, cjk) if len(k) >= 2 and k not in stops]


def tokens(text: str, cjk: str | None = None) -> list[tuple[str, int, int]]:
    """The word tokens of a prose text with their offsets (Chinese and Japanese segmented)."""
    found = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    if not has_cjk(text):
        return found
    out: list[tuple[str, int, int]] = []
    for token, start, end in found:
        if not CJK_CHAR.search(token):
            out.append((token, start, end))
            continue
        pos = start
        for word in words(token, cjk):
            at = text.find(word, pos, end)
            at = pos if at < 0 else at
            out.append((word, at, at + len(word)))
            pos = at + len(word)
    return out


@functools.lru_cache(maxsize=1 << 16)
def is_identifier(token: str) -> bool:
    """Whether a token reads as a code name (snake_case, camelCase, dotted)."""
    return "_" in token.strip("_") or "." in token or "::" in token or bool(CAMEL.search(token))


@functools.lru_cache(maxsize=1 << 16)
def usable_word(token: str, stops: frozenset[str] = STOP_WORDS) -> str:
    """A prose token as a keyword candidate (case kept for identifiers and acronyms), or ''."""
    token = re.sub(r"['’]s$", "", token).strip("_")
    if not token or "'" in token or "’" in token or len(token) > 40:
        return ""
    if not any(c.isalpha() for c in token) or token.startswith("__"):
        return ""
    if "." in token and any(len(p) < 2 or not any(c.isalpha() for c in p) for p in token.split(".")):
        return ""
    if is_identifier(token):
        return token
    if has_hangul(token):
        if is_predicate(token):
            return ""  # `확보합니다`: a verb form, no topic
        token = strip_particles(token)  # `토큰을` is the word `토큰`
    low = token.casefold()
    if low in stops or stem(low) in stops:
        return ""
    if CJK_CHAR.search(low):
        # One ideograph or a run of hiragana is grammar (particles, endings), not a topic; a word
        # that starts or ends in hiragana is a verb form or a particle stuck to a word.
        if len(low) < 2 or _HIRAGANA_ONLY.fullmatch(low):
            return ""
        return "" if _HIRAGANA.match(low[0]) or _HIRAGANA.match(low[-1]) else low
    if len(low) < (2 if has_hangul(low) else 3) and not (token.isupper() and len(token) == 2):
        return ""  # (a Korean syllable is a letter block: two of them make a word, `토큰`)
    if sum(c.isdigit() for c in low) * 2 >= len(low):
        return ""  # `P1`, `v2`, `2024`: labels and numbers, not topics
    if len(low) > 6 and low.endswith(("ally", "ously", "ively", "ently", "antly", "ately", "ingly")):
        return ""
    return token if token.isupper() and len(token) <= 6 else low
