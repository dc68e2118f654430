"""The analysis of words the ranked router applies to a question and to every file alike.

A text becomes its *terms*: NFKC, case-folded words (Chinese and Japanese segmented by the
language package), identifiers split at case and ``_`` with the whole identifier kept too
(``parseInvoiceCsv`` -> ``parse``, ``invoice``, ``csv``, ``parseinvoicecsv``), Korean words whole
and without their particle (``토큰을`` -> ``토큰을``, ``토큰``). Stems are not written into the terms:
the router stems a question's word and looks for the words of the bank that share its stem
(``postings.Postings.group``), so a bank is indexed without stemming its whole vocabulary.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator

from ckp_lsp.core.format.patterns import lazy
from ckp_lsp.core.format.records import Frozen

from .korean import PARTICLES, is_hangul, strip_particle

#: a word of two letters or more, or a number
_ASCII_TERM = re.compile(r"[a-z0-9]{2,}|[0-9]")
#: a word with ``_`` or a capital inside it: an identifier to split
_IDENTIFIER = re.compile(r"\b[a-z0-9]*[A-Z_][A-Za-z0-9_]*")
_WORD = re.compile(r"\w+")
#: the pieces of an identifier: ``HTTPServer`` -> ``HTTP``, ``Server``; ``v2Api`` -> ``v``, ``2``, ``Api``
_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\W\d_A-Za-z]+")
#: a word of Latin letters or digits and Hangul together (``Safari에서``, ``pdf와``)
_MIXED_HANGUL = lazy(r"[a-z0-9][\uac00-\ud7a3]|[\uac00-\ud7a3][a-z0-9]")
_SCRIPT_PART = lazy(r"[\uac00-\ud7a3]+|[^\uac00-\ud7a3]+")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")


@functools.cache
def _cjk() -> re.Pattern[str]:
    """Ideographs and kana (compiled when a text that is not ASCII is first seen: the class is large)."""
    from ..language.scripts import CJK_CHARS

    return re.compile(f"[{CJK_CHARS}]")


def _pieces(token: str) -> list[str]:
    """An identifier's words, case-folded; [] when the token is one plain word."""
    if "_" not in token and not _INNER_CAPITAL.search(token):
        return []
    parts = [p.casefold() for part in token.split("_") for p in _PIECE.findall(part)]
    return parts if len(parts) > 1 else []


def _ascii_terms(text: str, out: list[str]) -> None:
    """Terms of ASCII text: its words lower-cased (``_`` separates them) in one pass of the regex
    engine, then the identifiers among them (``parseInvoiceCsv``, ``retry_backoff``) added in
    pieces and whole."""
    out.extend(_ASCII_TERM.findall(text.lower()))
    for token in _IDENTIFIER.findall(text) if ("_" in text or not text.islower()) else ():
        parts = _pieces(token)
        if not parts:
            continue
        if "_" in token:
            out.append("".join(parts))  # the whole identifier (its words are in already)
        else:
            out.extend(p for p in parts if len(p) > 1)  # its words (the whole is in already)


def _word_terms(token: str, out: list[str]) -> None:
    """Terms of one word of any script but Chinese and Japanese."""
    if token.isascii():
        _ascii_terms(token, out)
        return
    parts = _pieces(token)
    if parts:
        out.extend(parts)
        out.append("".join(parts))
        return
    word = token.casefold()
    if _MIXED_HANGUL.search(word):
        # "safari에서", "pdf를": each script's part on its own, a particle alone left out
        for part in _SCRIPT_PART.findall(word):
            if not is_hangul(part) or part not in PARTICLES:
                _word_terms(part, out)
        return
    out.append(word)
    if is_hangul(word):
        stripped = strip_particle(word)
        if stripped != word:
            out.append(stripped)


def terms(text: str, language: str | None = None) -> list[str]:
    """The terms of ``text`` in reading order (see the module); ``language`` ("ja" or "zh", the
    bank's) chooses the segmenter for ideographs without kana."""
    out: list[str] = []
    if text.isascii():
        _ascii_terms(text, out)
        return out
    text = unicodedata.normalize("NFKC", text)
    if _cjk().search(text) is None:
        for token in _WORD.findall(text):
            _word_terms(token, out)
        return out
    from ..language import words

    for token in words(text, language):
        if _cjk().match(token):
            out.append(token.casefold())
        else:
            _word_terms(token, out)
    return out


class QueryWord(Frozen):
    """A word of the question as written, and the terms it stands for."""

    _fields = ("written", "terms", "name")
    __slots__ = _fields

    def __init__(self, written: str, terms: tuple[str, ...], name: bool = False) -> None:
        self.written = written
        self.terms = terms
        self.name = name  # written as a name is (see ``_is_name``)


def query_words(query: str, language: str | None = None) -> list[QueryWord]:
    """The words of a question, each with its terms, in order, without repeats."""
    text = unicodedata.normalize("NFKC", query)
    ascii_only = text.isascii()  # (no ideograph: the large class is not compiled for it)
    if not ascii_only and _cjk().search(text) is not None:
        from ..language import words

        tokens: Iterable[str] = words(text, language)
    else:
        tokens = _WORD.findall(text)
    seen: dict[str, QueryWord] = {}
    # (letters past Latin Extended-B: Cyrillic, Greek, Hangul, kana, ideographs…)
    foreign = any(c.isalpha() and ord(c) > 0x24F for c in text)
    for n, token in enumerate(tokens):
        name = _is_name(token, n == 0, foreign)
        found: list[str] = []
        if not ascii_only and _cjk().match(token):
            found.append(token.casefold())
        else:
            _word_terms(token, found)
        for term in _query_groups(token, found):
            key = term[0]
            if key not in seen:
                seen[key] = QueryWord(token, term, name)
    return list(seen.values())


def _is_name(token: str, first: bool, foreign: bool) -> bool:
    """Whether a question word is written as a technology or product is: a capital inside it or
    after the first word (``iOS``, ``Redis``, ``gRPC``), a digit after a letter (``S3``), or Latin letters in a
    question written in another script. Such a word, unknown to the bank, says the question is about
    something else; a plain word the bank lacks may be a paraphrase."""
    if token[:1].isdigit():
        return False  # a number with its unit ("50MB", "404ing") names no technology
    if any(c.isdigit() for c in token) and any(c.isalpha() for c in token):
        return True
    if not token.isascii():
        return False
    if foreign and token.isalpha():
        return True
    inner = any(c.isupper() for c in token[1:])
    return inner or (not first and token[:1].isupper())


def _query_groups(token: str, found: list[str]) -> Iterator[tuple[str, ...]]:
    """The terms of one question word as the groups the ranking counts once each: a Korean word and
    its stripped form are one; the pieces of an identifier each count, and the whole too."""
    if len(found) == 2 and is_hangul(found[0]):
        yield (found[1], found[0])
        return
    for t in found:
        yield (t,)


@functools.lru_cache(maxsize=4096)
def fold(word: str) -> str:
    """A word's first letters without accents, for finding words of the same stem: ``häuser`` ->
    ``hau``."""
    head = word[:4]
    if not head.isascii():
        head = "".join(c for c in unicodedata.normalize("NFKD", head) if not unicodedata.combining(c))
    return head[:3]
