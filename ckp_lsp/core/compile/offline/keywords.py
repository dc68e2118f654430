"""ANSWERS_WHEN: the file's distinctive topics, weighed against the rest of the bank.

Every word, heading phrase and code identifier of the body is a candidate with a weight (a heading
or a code name weighs more than a word of prose). A candidate's rank is its weight times how rare
it is in the bank (``Corpus.idf``): a word every file uses routes nowhere.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .terms import PART, Corpus, is_identifier, keyword_key, part_keys, tokens, usable_word
from .text import STRONG, URL, WS, Block, emphasised, inline_code, plain

MAX_KEYWORDS = 15
MIN_KEYWORDS = 5
_KEYWORD_THRESHOLD = 2.0  # past MIN_KEYWORDS, a term must weigh this much to be kept
_MAX_IDENTIFIERS = 6

# Code
_DEFINITION = re.compile(
    r"\b(?:def|class|function|func|fn|interface|struct|enum|trait|type|module|macro|const|let|var"
    r"|val|object|record|protocol|impl)[ \t]+([A-Za-z_][A-Za-z0-9_]{2,60})"
)
_CODE_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?!\w)"
)
_CODE_TOKEN = re.compile(r"[A-Za-z_$@][\w$]*(?:(?:\.|::)[A-Za-z_]\w*)*")
_CALL_SUFFIX = re.compile(r"\(.*\)$|\[\]$")
_FILE_NAME = re.compile(r"[\w-]+\.(?:md|markdown|txt|json|ya?ml|toml)$", re.IGNORECASE)


@dataclass
class Term:
    """A keyword candidate: its weight, the spellings seen and its token keys."""

    score: float = 0.0
    forms: dict[str, int] = field(default_factory=dict)
    keys: tuple[str, ...] = ()
    identifier: bool = False


class Counting:
    """The candidates of one body being counted, with the bank's stop words and segmenter."""

    def __init__(self, stops: frozenset[str], cjk: str | None) -> None:
        self.terms: dict[str, Term] = {}
        self.stops = stops
        self.cjk = cjk

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


_HEADING_ONLY = 0.3  # a heading's word the body never uses again is structure, not a topic


def count_terms(blocks: list[Block], stops: frozenset[str], cjk: str | None) -> dict[str, Term]:
    """Weigh every word, heading phrase and code identifier of the body.

    A heading names a topic when the body talks about it; a heading word used nowhere else
    (`Learnings`, `Current Work Focus`) is the template's structure and weighs little.
    """
    counting = Counting(stops, cjk)
    headings = Counting(stops, cjk)
    bigrams: Counter[str] = Counter()
    for block in blocks:
        if block.kind == "code":
            _count_code(block.text, counting)
            continue
        if block.kind == "heading":
            _count_heading(block.plain, headings)
            continue
        for code in inline_code(block.text):
            _count_inline_code(code, counting)
        if block.kind == "table":
            _count_prose(block.plain, 0.5, counting, Counter())
        else:
            _count_prose(block.plain, 1.0, counting, bigrams)
        for m in STRONG.finditer(block.text):
            _count_prose(plain(emphasised(m), code=False), 0.5, counting, Counter())
    for phrase, n in bigrams.items():
        if n >= 2:
            counting.add(phrase, 1.5 * n)
    used = {k for term in counting.terms.values() for k in term.keys}
    for term in headings.terms.values():
        factor = 1.0 if used.issuperset(term.keys) else _HEADING_ONLY
        for form, n in sorted(term.forms.items()):
            counting.add(form, term.score * factor * n / sum(term.forms.values()), term.identifier)
    return counting.terms


def _count_prose(text: str, weight: float, counting: Counting, bigrams: Counter[str]) -> None:
    """Count the words of a prose text and its adjacent pairs of content words."""
    previous, previous_end = "", -1
    text = URL.sub(" · ", text) if "/" in text or "@" in text else text
    for token, start, end in tokens(text, counting.cjk):
        info = counting.word(token)
        if info is None:
            previous = ""
            continue
        word, identifier, factor = info
        counting.add(word, weight * factor, identifier)
        if previous and not identifier and start == previous_end + 1 and word.isascii():
            bigrams[f"{previous} {word.casefold()}"] += 1
        previous, previous_end = ("" if identifier or not word.isascii() else word.casefold()), end


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
            counting.add(word, 2.5 if len(run) == 1 else 1.0, is_identifier(word))
        if 2 <= len(run) <= 3 and all(w.isascii() for w in run):
            counting.add(" ".join(run), 3.0)


def _count_inline_code(code: str, counting: Counting) -> None:
    """Weigh an inline code span: a single name counts much, a command only its identifiers."""
    name = _CALL_SUFFIX.sub("", code.strip().lstrip("@$")).strip()
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


def choose_keywords(
    terms: dict[str, Term], name: str, corpus: Corpus, names: Iterable[str], headings: list[str]
) -> tuple[list[str], int]:
    """ANSWERS_WHEN (the concept name, then the body's most distinctive terms) and how many of
    them recur (weigh at least the keyword threshold: evidence for CONFIDENCE).

    `names` are the other concepts' names as keys: another concept's name as a keyword would
    route that concept's questions here.
    """
    taken = set(names)
    chosen = [name] if keyword_key(name, corpus.cjk) else []
    keys = {keyword_key(name, corpus.cjk)} if chosen else set()
    keys.update(part_keys(name))  # `active` adds nothing to `active-context`
    identifiers = strong = 0
    for score, rank, key, term in ranked(terms, corpus):
        if len(chosen) >= MAX_KEYWORDS:
            break
        if len(chosen) >= MIN_KEYWORDS and score < _KEYWORD_THRESHOLD:
            continue
        if rank <= 0 or key in keys or key in taken or (len(term.keys) > 1 and keys.issuperset(term.keys)):
            continue  # a phrase whose words are all keywords already adds nothing to routing
        if term.identifier and identifiers >= _MAX_IDENTIFIERS:
            continue
        chosen.append(display(term))
        keys.add(key)
        identifiers += term.identifier
        strong += score >= _KEYWORD_THRESHOLD
    if not chosen:
        chosen.append(_fallback_keyword(headings))
    return chosen, strong


def ranked(terms: dict[str, Term], corpus: Corpus) -> list[tuple[float, float, str, Term]]:
    """(weight, rank, key, term) by rank: weight times rarity in the bank, ties by key."""
    out = [(term.score, term.score * corpus.idf(term.keys), key, term) for key, term in terms.items()]
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
