"""Names in ASCII: transliteration of any script and the slug a CONCEPT is made of.

anyascii transliterates every script (`caffè` → `caffe`, `Активный` → `Aktivnyy`, Chinese to
pinyin); Japanese is read with pykakasi (`進捗状況` → `shinchokujoukyou`), since its kanji read
differently from Chinese. Both are imported on first use. Without pykakasi Japanese is spelled as
Chinese; without anyascii a word is decomposed and loses its accents (`caffè` → `caffe`) and letters
with no ASCII spelling are dropped.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable

from .libraries import LOAD_ERRORS, failed
from .scripts import CJK_RUN, is_japanese
from .segment import words

MAX_SLUG = 64
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")  # activeContext → active Context; OAuth stays one
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def transliterate(text: str, language: str | None = None) -> str:
    """The text in ASCII; words of other scripts lower-case, Chinese and Japanese ones spaced.

    `language` "ja" reads ideographs as Japanese; without it a text with kana is Japanese.
    """
    text = unicodedata.normalize("NFKC", text)
    if CJK_RUN.search(text):
        japanese = language == "ja" or (language is None and is_japanese(text))
        read = _kakasi() if japanese else None
        if read is not None:
            text = " ".join(read(text))
        else:
            text = CJK_RUN.sub(lambda m: " " + " ".join(words(m.group(), "zh")) + " ", text)
    # Per word, so that anyascii's capitals between syllables (`HanGugEo`) do not read as words.
    return " ".join(_anyascii()(w) if w.isascii() else _anyascii()(w).casefold() for w in text.split(" "))


def slug(text: str, language: str | None = None) -> str:
    """A CONCEPT-ready name: ASCII lower-case words joined by `-`, at most 64 characters.

    `activeContext` → `active-context`, `caffè` → `caffe`, `Активный контекст` →
    `aktivnyy-kontekst`, `活动上下文` → `huodong-shangxiawen`, `進捗状況` → `shinchokujoukyou`.
    It is '' when the text has nothing to spell (only punctuation or symbols).
    """
    ascii_text = transliterate(_CAMEL.sub(" ", text), language)
    name = _NOT_SLUG.sub("-", ascii_text.casefold()).strip("-")
    if len(name) > MAX_SLUG:
        head = name[: MAX_SLUG + 1]
        cut = head.rsplit("-", 1)[0] if "-" in head else ""
        name = cut if len(cut) >= MAX_SLUG // 2 else name[:MAX_SLUG]
    return name.strip("-")


@functools.cache
def _anyascii() -> Callable[[str], str]:
    """anyascii, imported on first use; the accents-off decomposition where it cannot be."""
    try:
        from anyascii import anyascii
    except LOAD_ERRORS:
        failed("anyascii")
        return _without_marks
    return anyascii


def _without_marks(text: str) -> str:
    """The ASCII left of a text decomposed (NFKD) without its combining marks: `caffè` → `caffe`."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


@functools.cache
def _kakasi() -> Callable[[str], list[str]] | None:
    """Japanese text to its Hepburn reading, word by word (pykakasi, about 0.4 s to load); None
    where pykakasi cannot be imported."""
    try:
        import pykakasi
    except LOAD_ERRORS:
        failed("pykakasi")
        return None
    kakasi = pykakasi.kakasi()

    def read(text: str) -> list[str]:
        return [item["hepburn"] or item["orig"] for item in kakasi.convert(text)]

    return read
