"""The words of keywords and questions as the index pattern (SPEC §6a) matches them: NFKC,
case-folded, split at ``-``, ``.`` and ``_``; Chinese and Japanese segmented; plural forms."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from ckp_lsp.core.format.patterns import lazy

#: a word: letters and digits
WORD = lazy(r"[^\W_]+")
#: words shorter than this, and stems, are not matched by their stem
MIN_STEM = 3
#: letters of an ending a word may add to another word's stem (see ``ends``)
MAX_ENDING = 2


def ends(word: str, stem: str) -> bool:
    """Whether ``word`` is ``stem`` and an ending of a letter or two.

    Snowball cuts some short words too far (``отмена`` -> ``отм`` beside ``отмену`` -> ``отмен``,
    ``приём`` -> ``при``): a word is also the form of another's stem it plainly extends.
    """
    if len(stem) < MIN_STEM + 1:
        return False
    word = word.replace("ё", "е")  # as Snowball's Russian stems are written
    return word.startswith(stem) and len(word) - len(stem) <= MAX_ENDING


def start(word: str) -> str:
    """The first letters of a word (as many as a stem has at least) without accents: ``ёлка`` ->
    ``елк``, ``häuser`` -> ``hau``. Two words of one stem start alike."""
    head = word[: MIN_STEM + 1]
    if head.isascii():
        return head[:MIN_STEM]
    return "".join(c for c in unicodedata.normalize("NFKD", head) if not unicodedata.combining(c))[:MIN_STEM]


def normalize(text: str) -> str:
    """Unicode NFKC, case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """The word tokens of ``text``, normalised; ``-``, ``.`` and ``_`` separate words."""
    return WORD.findall(normalize(text))


def stems(token: str) -> Iterable[str]:
    """The token and its singular or plural forms (``s``/``es``) that a keyword may be written in."""
    yield token
    if len(token) >= 2:
        yield token + "s"
        yield token + "es"
    if token.endswith("s") and len(token) >= 3:
        yield token[:-1]
    if token.endswith("es") and len(token) >= 4:
        yield token[:-2]


ASCII_GAPS = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum() and c != "\n"})


def split_words(texts: list[str], language: str | None = None) -> list[tuple[str, ...]]:
    """The distinct words of each normalised text; ASCII texts all at once (``str.split`` is fast).

    Chinese and Japanese are segmented (``language``: "ja" or "zh", the bank's), as queries are.
    """
    joined = "\n".join(texts)
    if not joined.isascii() or joined.count("\n") != len(texts) - 1:
        return [tuple(dict.fromkeys(text_words(t, language))) for t in texts]
    out: list[tuple[str, ...]] = []
    for line in joined.translate(ASCII_GAPS).split("\n"):
        parts = line.split()
        out.append((parts[0],) if len(parts) == 1 else tuple(dict.fromkeys(parts)))
    return out


@functools.cache
def scripts() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Runs of ideographs and kana, and kana: imported when a text is not ASCII (the language
    package costs start-up time an English bank need not pay)."""
    from ..language.scripts import CJK_RUN, KANA

    return CJK_RUN, KANA


def has_cjk(text: str) -> bool:
    """Whether ``text`` has Chinese or Japanese in it (words not separated by spaces)."""
    return not text.isascii() and scripts()[0].search(text) is not None


def text_words(text: str, language: str | None) -> list[str]:
    """The words of a normalised text; runs of ideographs and kana segmented into words."""
    if not has_cjk(text):
        return WORD.findall(text)
    from ..language import words as segmented

    return [w.casefold() for w in segmented(text, language) if WORD.search(w)]
