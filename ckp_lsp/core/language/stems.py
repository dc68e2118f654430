"""Stems of words in inflected languages (Snowball): `база`, `базы`, `базе` share the stem `баз`.

Snowball's algorithms (``snowballstemmer``, pure Python; PyStemmer's compiled build of the same
algorithms is used instead where it is installed) cover 30-odd languages. The package is imported
on the first word stemmed, so a bank routed in English alone never pays for it; where it cannot be
imported nothing is stemmed (a query then matches the forms a keyword is written in).
"""

from __future__ import annotations

import _thread
import functools
import importlib
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType

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
    """The stemmer ``snowballstemmer.stemmer`` gives (PyStemmer's where it is installed), with only
    its own algorithm imported: the package imports all 30 at once, which every prompt a hook
    routes would pay for."""
    algorithm = ALGORITHMS[code]
    try:
        with _LOADING:
            if importlib.util.find_spec("snowballstemmer") is None:
                raise ImportError("snowballstemmer")
            try:
                import Stemmer  # what snowballstemmer prefers

                return Stemmer.Stemmer(algorithm).stemWord
            except LOAD_ERRORS:
                pass
            module = _algorithm(algorithm)
    except (*LOAD_ERRORS, ValueError):
        failed("snowballstemmer")
        return None
    found = getattr(module, f"{algorithm.title()}Stemmer", None)
    if found is None:  # a version that lays its algorithms out otherwise
        import snowballstemmer

        return snowballstemmer.stemmer(algorithm).stemWord
    return found().stemWord


#: held while an algorithm is imported (below): no other thread sees the package half made
_LOADING = _thread.allocate_lock()  # (``threading.Lock``, without importing ``threading``)


def _algorithm(algorithm: str) -> ModuleType:
    """The module of one of snowballstemmer's algorithms, without running the package's
    ``__init__`` (which imports every algorithm) unless it ran already."""
    name = f"snowballstemmer.{algorithm}_stemmer"
    if "snowballstemmer" in sys.modules:
        return importlib.import_module(name)
    spec = importlib.util.find_spec("snowballstemmer")
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError("snowballstemmer")
    # The package as an empty module while its submodule loads; the package itself is imported
    # as usual afterwards (the algorithms already loaded are taken as they are).
    sys.modules["snowballstemmer"] = importlib.util.module_from_spec(spec)
    try:
        return importlib.import_module(name)
    finally:
        del sys.modules["snowballstemmer"]


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
