"""Stems of words in inflected languages (Snowball): `база`, `базы`, `базе` share the stem `баз`.

Snowball's algorithms (``snowballstemmer``, pure Python; PyStemmer's compiled build of the same
algorithms is used instead where it is installed) cover 30-odd languages. The package is imported
on the first word stemmed, so a bank routed in English alone never pays for it; where it cannot be
imported nothing is stemmed (a query then matches the forms a keyword is written in).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .libraries import LOAD_ERRORS, failed

#: ISO 639-1 code -> Snowball algorithm
ALGORITHMS = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nb": "norwegian",
    "ne": "nepali",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}


def stemmed_languages(codes: tuple[str, ...]) -> tuple[str, ...]:
    """The codes among ``codes`` that have a stemmer, in order."""
    return tuple(c for c in codes if c in ALGORITHMS)


@functools.cache
def _stemmer(code: str) -> Callable[[str], str] | None:
    try:
        import snowballstemmer  # about 10 ms: every algorithm is imported at once
    except LOAD_ERRORS:
        failed("snowballstemmer")
        return None
    return snowballstemmer.stemmer(ALGORITHMS[code]).stemWord


@functools.lru_cache(maxsize=65_536)
def stem(word: str, code: str) -> str:
    """The stem of a case-folded word in the language ``code``; the word itself where the
    language has no stemmer or the library cannot load."""
    stemmer = _stemmer(code) if code in ALGORITHMS else None
    return word if stemmer is None else stemmer(word)


def stem_of_script(word: str) -> str:
    """The stem of a case-folded word by the language its script is written in when one language
    has a stemmer for it (Cyrillic: Russian, Greek, Arabic, Armenian, Devanagari: Hindi); the word
    itself for Latin letters (English, German or French alike) and other scripts."""
    from .detect import DEFAULT_LANGUAGE
    from .scripts import script_of

    code = DEFAULT_LANGUAGE.get(script_of(word[:1])) if word else None
    return word if code is None or code == "en" else stem(word, code)
