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

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .detect import languages
    from .libraries import missing_libraries
    from .names import MAX_SLUG, slug, transliterate
    from .scripts import has_cjk, is_japanese
    from .segment import words
    from .stopwords import is_stop_word, stop_words, supported_languages

#: each name of the package and its module, imported when the name is first asked for: a module of
#: the package (``scripts``, ``stems``) is imported without the others (the prompt hook's start)
_MODULES = {
    "languages": "detect",
    "missing_libraries": "libraries",
    "MAX_SLUG": "names",
    "slug": "names",
    "transliterate": "names",
    "has_cjk": "scripts",
    "is_japanese": "scripts",
    "words": "segment",
    "is_stop_word": "stopwords",
    "stop_words": "stopwords",
    "supported_languages": "stopwords",
}

# (imported here: the module ``sentences`` would otherwise hide the function of its name)
from .sentences import sentences  # noqa: E402


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
