"""ANSWERS_WHEN: the file's distinctive topics, weighed against the rest of the bank.

Every word, heading phrase and code identifier of the body is a candidate with a weight (a heading
or a code name weighs more than a word of prose). A candidate's rank is its weight times how much
more this body uses it than the others (``Corpus.own_share``): a word the other files use as much
ranks low. How many files use it is not counted, and a word every file uses may be a keyword of the
files that use it most: the index pattern counts matching keywords, so such a word is one more match
for the file a question is about (the claims of ``bank._over_claimed`` share it out, at most
``CLAIM_LIMIT`` files a word).

A keyword routes a question that holds every one of its words (SPEC §6a): single words route
most, so a phrase or an identifier of several words ranks at a quarter of its weight, and the
words of the concept's own name are keywords of their own (`permission` of `socket-permissions`).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import NamedTuple

from ckp_lsp.core.format.limits import MAX_KEYWORDS

from .summary import is_metadata, is_placeholder
from .terms import KANJI, PART, Corpus, is_identifier, keyword_key, part_keys, stem, tokens, usable_word
from .text import CJK_CHAR, STRONG, URL, WS, Block, emphasised, inline_code, plain

# SPEC's most (``limits.MAX_KEYWORDS``): measured on real banks, 15 or 17 keywords left the
# header-only router short of words the questions use (the ranked router weighs a keyword match
# little enough to take 20).
MIN_KEYWORDS = 5
_KEYWORD_THRESHOLD = 2.0  # past MIN_KEYWORDS, a term must weigh this much to be kept
_MAX_IDENTIFIERS = 6
SPARES = 40  # candidates past the chosen that ``trials`` may swap in

# Code
_DEFINITION = re.compile(
    r"\b(?:def|class|function|func|fn|interface|struct|enum|trait|type|module|macro|const|let|var"
    r"|val|object|record|protocol|impl)[ \t]+([A-Za-z_][A-Za-z0-9_]{2,60})"
)
_CODE_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?!\w)"
)
_CODE_TOKEN = re.compile(r"[A-Za-z_$@][\w$]*(?:(?:\.|::)[A-Za-z_]\w*)*")
#: only at the start of a name: searched from each character of a long run, it would be quadratic
_FILE_NAME = re.compile(r"(?<![\w-])[\w-]+\.(?:md|markdown|txt|json|ya?ml|toml)$", re.IGNORECASE)
# Letters only Vietnamese uses. Vietnamese writes a space between syllables, not words: one such
# syllable alone (`dịch`) means little; two in a row (`giao dịch`) are a word.
_VIETNAMESE = re.compile(r"[ăđơưĂĐƠƯ\u1ea0-\u1ef9]")


@dataclass
class Term:
    """A keyword candidate: its weight, the spellings seen and its token keys."""

    score: float = 0.0
    forms: dict[str, int] = field(default_factory=dict)
    keys: tuple[str, ...] = ()
    identifier: bool = False
    heading: bool = False  # a heading names it and the body talks about it: a topic
    code_only: bool = False  # a short name only code uses (`tid`, `exp`): a field, not a topic


class Counting:
    """The candidates of one body being counted, with the bank's stop words and segmenter."""

    def __init__(self, stops: frozenset[str], cjk: str | None, syllabic: bool = False) -> None:
        self.terms: dict[str, Term] = {}
        self.stops = stops
        self.cjk = cjk
        self.syllabic = syllabic  # the text is Vietnamese: its accented words are syllables
        # Japanese: a run of kanji the segmenter cut out of a longer compound (`全完` of `全完了`)
        # is never seen on its own; words seen only glued to other kanji are dropped.
        self.glued: set[str] = set()
        self.free: set[str] = set()
        # English: how often a word stands where a verb does (`it lives`, `revokes the`) and where
        # a noun does (`the family`, `of keys`), by key
        self.verb: Counter[str] = Counter()
        self.noun: Counter[str] = Counter()

    def add(self, form: str, weight: float, identifier: bool = False) -> None:
        """Add weight to a keyword candidate."""
        keys = part_keys(form, self.cjk)
        if not keys:
            return
        key = " ".join(keys)
        term = self.terms.get(key)
        if term is None:
            term = self.terms[key] = Term(keys=keys)
        term.score += weight
        term.forms[form] = term.forms.get(form, 0) + 1
        term.identifier = term.identifier or identifier

    def word(self, token: str) -> tuple[str, bool, float] | None:
        """A prose token as (keyword form, identifier or not, weight factor), or None."""
        return _prose_word(token, self.stops)


# Units a body measures things in (`15 minutes`): no topic alone, a word of one in a phrase
# (`sleep hours`, `meeting minutes`).
_UNITS = frozenset({("millisecond",), ("second",), ("minute",), ("hour",), ("ms",)})
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_SHORT = 4  # a name shorter than this that only code uses is a field or a variable (`tid`, `exp`)
_HEADING_ONLY = 0.5  # a heading's word the body never uses again is mostly structure, not a topic
_HEADING_RANK = 2.0  # a heading's word the body talks about is a topic: it ranks first
_PHRASE_RANK = 0.25  # a term of several words routes only a question that holds them all
_OWN_POWER = 1.5  # a term the other files use too ranks lower: 1.0 and 2.0 found fewer on real banks
#: a word every file uses is a keyword only of a file that uses it more than the others (an equal
#: use is a share of 1/2): on fifteen real banks 0.55 found what no threshold found, 0.6 two fewer
_SHARED = 0.55
_LATIN_NAME = 2.0  # a Latin name in Chinese or Japanese prose (`Cookie`) is a keyword from its first use


def count_terms(
    blocks: list[Block], stops: frozenset[str], cjk: str | None, syllabic: bool = False
) -> dict[str, Term]:
    """Weigh every word, heading phrase and code identifier of the body.

    A heading names a topic when the body talks about it; a heading word used nowhere else
    (`Learnings`, `Current Work Focus`) is the template's structure and weighs little.
    """
    counting = Counting(stops, cjk, syllabic)
    headings = Counting(stops, cjk, syllabic)
    bigrams: Counter[str] = Counter()
    seen: set[str] = set()
    said: set[str] = set()  # the keys of the short words written outside code
    for block in blocks:
        if block.kind != "heading":
            if block.text in seen:
                continue  # a paragraph or a line pasted twice says nothing new
            seen.add(block.text)
        if block.kind == "code":
            _count_code(block.text, counting)
            continue
        said.update(
            stem(w) for w in _ASCII_WORD.findall(plain(block.text, code=False)) if len(w) <= _SHORT + 2
        )
        if len(block.plain) < 200 and (is_placeholder(block.plain) or is_metadata(block.plain)):
            continue  # `[Feature Name]`, `Owner: Billing team`: the template's, not the topic's
        if block.kind == "heading":
            _count_heading(block.plain, headings)
            continue
        for code in inline_code(block.text):
            _count_inline_code(code, counting)
        if block.kind == "table":
            _count_prose(block.plain, 1.0, counting, Counter())  # a table names things: a stack, a map
        else:
            _count_prose(block.plain, 1.0, counting, bigrams)
            _count_word_classes(plain(block.text, code=False), counting)
        for m in STRONG.finditer(block.text):
            _count_prose(plain(emphasised(m), code=False), 0.5, counting, Counter())
    # A pair used twice is a term, in whatever forms (`отмена записи`, `отмены записи`).
    pairs: dict[str, list[tuple[str, int]]] = {}
    for phrase, n in bigrams.items():
        pairs.setdefault(" ".join(part_keys(phrase, cjk)), []).append((phrase, n))
    for forms in pairs.values():
        if sum(n for _, n in forms) >= 2:
            for phrase, n in forms:
                counting.add(phrase, 1.5 * n)
    for word in counting.glued - counting.free:
        counting.terms.pop(" ".join(part_keys(word, cjk)), None)
    for term in counting.terms.values():
        key = term.keys[0]
        if len(term.keys) == 1 and not term.identifier and counting.verb[key] > counting.noun[key]:
            term.score *= _VERB  # `revokes`, `lives`: what a topic does, not a topic
        term.code_only = len(term.keys) == 1 and len(key) < _SHORT and key.isascii() and key not in said
    used = {k for term in counting.terms.values() for k in term.keys}
    for term in headings.terms.values():
        topic = used.issuperset(term.keys)
        for form, n in sorted(term.forms.items()):
            weight = term.score * (1.0 if topic else _HEADING_ONLY) * n / sum(term.forms.values())
            counting.add(form, weight, term.identifier)
        if topic:
            counting.terms[" ".join(term.keys)].heading = True
    return counting.terms


# English words that come before a noun (determiners, prepositions) and around a verb (subject
# pronouns and auxiliaries before it, a determiner after it): a word's neighbours tell which it is
# where no tagger is at hand.
_BEFORE_NOUN_TEXT = """
    a an the its their our your his her this these those every each some any no of for with from
    in on at by into per via
"""
_BEFORE_VERB_TEXT = """
    it they he she we i which who that is are was were be been being can could will would should
    must may might does do did not never always also only
"""
_AFTER_VERB_TEXT = "a an the its their our your his her this these those every each all"
_BEFORE_NOUN = frozenset(_BEFORE_NOUN_TEXT.split())
_BEFORE_VERB = frozenset(_BEFORE_VERB_TEXT.split())
_AFTER_VERB = frozenset(_AFTER_VERB_TEXT.split())
_ENGLISH_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
_VERB = 0.5  # the weight left to a word that stands as a verb more often than as a noun


def _count_word_classes(text: str, counting: Counting) -> None:
    """Count where each English word of a prose text stands as a verb and where as a noun."""
    found = _ENGLISH_WORD.findall(text)
    low = [w.casefold() for w in found]
    for i, word in enumerate(low):
        if word in _BEFORE_NOUN or word in _BEFORE_VERB or not found[i].islower():
            continue  # (a capitalised word is a name or starts a sentence)
        before = low[i - 1] if i else ""
        after = low[i + 1] if i + 1 < len(low) else ""
        key = stem(word)
        if before in _BEFORE_NOUN:
            counting.noun[key] += 1
        elif before in _BEFORE_VERB or after in _AFTER_VERB:
            counting.verb[key] += 1


def _count_prose(text: str, weight: float, counting: Counting, bigrams: Counter[str]) -> None:
    """Count the words of a prose text and its adjacent pairs of content words."""
    previous, previous_end = "", -1
    text = URL.sub(" · ", text) if "/" in text or "@" in text else text
    # In Chinese or Japanese prose a word in Latin letters is a name (`Redis`, `Cookie`).
    latin_names = CJK_CHAR.search(text) is not None
    for token, start, end in tokens(text, counting.cjk):
        info = counting.word(token)
        if info is None:
            previous = ""
            continue
        word, identifier, factor = info
        if latin_names and word.isascii() and word[:1].isalpha():
            factor *= _LATIN_NAME
        syllable = _syllable(word, counting.syllabic)
        if counting.cjk == "ja" and KANJI.search(word):
            glued = KANJI.match(text[start - 1 : start] if start else "") or KANJI.match(text[end : end + 1])
            (counting.glued if glued else counting.free).add(word)
        if not syllable:
            counting.add(word, weight * factor, identifier)
        spaced = CJK_CHAR.search(word) is None  # words with spaces between them: pairs mean something
        if previous and not identifier and start == previous_end + 1 and spaced:
            bigrams[f"{previous} {word.casefold()}"] += 1
        previous, previous_end = ("" if identifier or not spaced else word.casefold()), end


@functools.lru_cache(maxsize=1 << 16)
def _prose_word(token: str, stops: frozenset[str]) -> tuple[str, bool, float] | None:
    """A prose token as (keyword form, identifier or not, weight factor), or None."""
    if _FILE_NAME.match(token):
        return None  # a file of the bank is a link, not a topic
    word = usable_word(token, stops)
    if not word:
        return None
    identifier = is_identifier(word)
    factor = 0.6 if word.endswith("ed") and not identifier else 1.0  # participles weigh less
    return word, identifier, factor * (1.5 if word.isupper() else 1.0)  # acronyms weigh more


def _count_heading(text: str, counting: Counting) -> None:
    """Weigh a heading: a one-word heading is a keyword, a short run of words a phrase."""
    runs: list[list[str]] = [[]]
    end = -1
    for token, start, stop in tokens(text, counting.cjk):
        word = usable_word(token, counting.stops) if not _FILE_NAME.match(token) else ""
        if not word or (runs[-1] and text[end:start].strip()):
            runs.append([])
        if word:
            runs[-1].append(word if is_identifier(word) else word.casefold())
        end = stop
    for run in runs:
        for word in run:
            if not _syllable(word, counting.syllabic):
                counting.add(word, 2.5 if len(run) == 1 else 1.0, is_identifier(word))
        if 2 <= len(run) <= 3 and not any(CJK_CHAR.search(w) for w in run):
            counting.add(" ".join(run), 3.0)


def _syllable(word: str, syllabic: bool) -> bool:
    """Whether a word is a Vietnamese syllable, a keyword only with its neighbour: it has a letter
    only Vietnamese uses, or any accent in a Vietnamese text."""
    return _VIETNAMESE.search(word) is not None or (syllabic and not word.isascii())


def without_call_suffix(code: str) -> str:
    """``code`` without a call's arguments (``f(x)`` -> ``f``) or an array's ``[]``; string
    operations, as a pattern for it backtracked over every ``(`` (quadratic on a run of them)."""
    if code.endswith("[]"):
        return code[:-2]
    if code.endswith(")"):
        opened = code.find("(", code.rfind("\n") + 1)
        if opened >= 0:
            return code[:opened]
    return code


def _count_inline_code(code: str, counting: Counting) -> None:
    """Weigh an inline code span: a single name counts much, a command only its identifiers."""
    name = without_call_suffix(code.strip().lstrip("@$")).strip()
    if _FILE_NAME.match(name):
        return
    if _CODE_TOKEN.fullmatch(name):
        if is_identifier(name):
            if len(name) <= 40 and not name.startswith("__"):
                counting.add(name, 2.5, True)
        else:
            word = usable_word(name, counting.stops)
            if word:
                counting.add(word, 2.0)
        return
    for m in _CODE_IDENTIFIER.finditer(code):
        counting.add(m.group(), 1.0, True)


def _count_code(code: str, counting: Counting) -> None:
    """Weigh a code block's defined names and its camelCase / snake_case identifiers."""
    for m in _DEFINITION.finditer(code):
        name = m.group(1)
        if is_identifier(name):
            counting.add(name, 2.0, True)
        elif (word := usable_word(name, counting.stops)) and len(word) >= 4:
            counting.add(word, 1.0)
    for m in _CODE_IDENTIFIER.finditer(code):
        if len(m.group()) <= 40:
            counting.add(m.group(), 0.5, True)


def keyword_name(concept: str | None) -> str:
    """The concept name as a keyword: no commas, pipes or line breaks."""
    return WS.sub(" ", re.sub(r"[,|;]", " ", concept or "")).strip()


class Chosen(NamedTuple):
    """A file's ANSWERS_WHEN, how many recur (weigh at least the keyword threshold: evidence for
    CONFIDENCE), and the rank of each (case-folded) for sharing them out in a bank."""

    keywords: list[str]
    strong: int
    ranks: dict[str, float]
    spare: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the next candidates, best first, with their keys


def choose_keywords(
    terms: dict[str, Term],
    name: str,
    corpus: Corpus,
    names: Collection[str],
    headings: list[str],
    exclude: frozenset[str] = frozenset(),
) -> Chosen:
    """ANSWERS_WHEN: the concept name, then the body's most distinctive terms.

    `names` are the other concepts' names as keys: another concept's name as a keyword would
    route that concept's questions here. `exclude` holds keywords (case-folded) left to others.
    """
    taken = names
    ranks: dict[str, float] = {}
    chosen = [name] if keyword_key(name, corpus.cjk) else []
    # The name routes only a question holding all its words: each of them (`permission` of
    # `socket-permissions`) stays a candidate of its own, ranked as any other word of the body.
    keys = {keyword_key(name, corpus.cjk)} if chosen else set()
    identifiers = strong = 0
    spare: list[tuple[str, tuple[str, ...]]] = []
    for score, rank, key, term in ranked(terms, corpus):
        if len(spare) >= SPARES:
            break
        if rank <= 0 or key in keys or key in taken or (len(term.keys) > 1 and keys.issuperset(term.keys)):
            continue  # a phrase whose words are all keywords already adds nothing to routing
        if term.identifier and identifiers >= _MAX_IDENTIFIERS:
            continue
        if (term.code_only and not term.heading) or term.keys in _UNITS:
            continue
        shown = display(term)
        if shown.casefold() in exclude:
            continue
        weak = len(chosen) >= MIN_KEYWORDS and score < _KEYWORD_THRESHOLD and not term.identifier
        if weak or len(chosen) >= MAX_KEYWORDS:
            # (a code name said once is still the file's: `devDependencies`, `LOCAL_DIR`)
            spare.append((shown, term.keys))  # one a trial on the bank's own text may still take
            continue
        chosen.append(shown)
        ranks[shown.casefold()] = rank
        keys.add(key)
        identifiers += term.identifier
        strong += score >= _KEYWORD_THRESHOLD
    if not chosen:
        chosen.append(_fallback_keyword(headings))
    named = {display(t) for t in terms.values() if is_name(t)}
    head, rest = chosen[:1], chosen[1:]
    # The technologies and names a file is about come first (`PostgreSQL`, `Redis`), then its topics.
    chosen = head + [k for k in rest if k in named] + [k for k in rest if k not in named]
    return Chosen(chosen, strong, ranks, tuple(spare))


_NAME = re.compile(r"[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*")


def is_name(term: Term) -> bool:
    """Whether a term is a name (a technology, a product: `PostgreSQL`, `NestJS`, `JWT`): one word
    that starts with a capital and has another, no `_`, `.` or lower-case start of code."""
    return len(term.keys) == 1 and any(_NAME.fullmatch(form) for form in term.forms)


def ranked(terms: dict[str, Term], corpus: Corpus) -> list[tuple[float, float, str, Term]]:
    """(weight, rank, key, term) by rank, ties by key: the weight times how much more this body uses
    the term than the rest of the bank (its own share, to the power ``_OWN_POWER``); a heading's
    topic ranks twice as high, a term of several words at a quarter.

    How many files use a word (its idf) is not counted, and a word every file uses is left out only
    where this body uses it no more than the others (``_SHARED``):
    the index pattern scores a file by its number of matching keywords, so a word most files use
    but this one most (`steam` of the file on the Steam API, `头像` of the avatar task) is one the
    questions on this file hold and one more match for it; the bank's word shares between files
    through the claims (``bank._over_claimed``). Measured on fifteen real banks (index-mode recall
    75 → 80 of 120 without the idf, 83 with every file's words, 84 with the share squared to 1.5).

    The weight counts whole (measured against its square root: the words a file keeps coming
    back to are the ones its questions use, more often than a rare word said once)."""
    mass = sum(term.score for term in terms.values())
    shares = {key: corpus.own_share(key, term.score, mass) for key, term in terms.items()}
    out = [
        (
            term.score,
            term.score
            * (
                shares[key] ** _OWN_POWER
                if shares[key] >= _SHARED or not corpus.everywhere(term.keys)
                else 0.0
            )
            * (_HEADING_RANK if term.heading else 1.0)
            * (_PHRASE_RANK if len(term.keys) > 1 else 1.0),
            key,
            term,
        )
        for key, term in terms.items()
    ]
    out.sort(key=lambda item: (-item[1], item[2]))
    return out


def display(term: Term) -> str:
    """A term's keyword spelling: its most frequent form, lower-case unless an identifier."""
    form = min(term.forms.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return WS.sub(" ", form if term.identifier else form.casefold())


def _fallback_keyword(headings: list[str]) -> str:
    """A keyword for a body that offered none: a word of its first heading, or 'notes'."""
    for heading in headings:
        for part in PART.findall(heading):
            if len(part) >= 2:
                return part.casefold()
    return "notes"
