"""Language support for any script: words, stop words, sentences, languages and ASCII names.

Each library behind it is imported on first use, so the language server and ``ckp check`` pay
nothing for what they do not call. Where a library cannot be imported its feature falls back to a
simpler method (see ``libraries``); ``missing_libraries()`` names those that cannot.

- ``words(text)``: the words of a text; Chinese and Japanese segmented.
- ``content_words(text)``: its words without the stop words of its languages.
- ``languages(text)``: the ISO 639-1 codes of the languages it is written in.
- ``stop_words(codes)`` / ``is_stop_word(word, codes)``: ISO stop-word lists.
- ``sentences(text)``: sentence boundaries in any language (``。！？`` too).
- ``transliterate(text)`` / ``slug(text)``: ASCII spellings; ``slug`` makes a CONCEPT name.
"""

from __future__ import annotations

from .detect import languages
from .libraries import missing_libraries
from .names import MAX_SLUG, slug, transliterate
from .scripts import has_cjk, is_japanese
from .segment import words
from .sentences import sentences
from .stopwords import is_stop_word, stop_words, supported_languages


def content_words(text: str, codes: tuple[str, ...] | None = None) -> list[str]:
    """The words of a text that are not stop words of its languages (or of `codes`)."""
    found = words(text)
    stops = stop_words(codes if codes is not None else languages(text))
    return [w for w in found if w.casefold() not in stops]


__all__ = [
    "MAX_SLUG",
    "content_words",
    "has_cjk",
    "is_japanese",
    "is_stop_word",
    "languages",
    "missing_libraries",
    "sentences",
    "slug",
    "stop_words",
    "supported_languages",
    "transliterate",
    "words",
]
