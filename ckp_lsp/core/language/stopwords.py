"""Stop words of every language: the ISO lists of ``stopwordsiso`` (58 languages).

The lists are loaded on first use; where ``stopwordsiso`` cannot be imported there are none, and
where OpenCC cannot, the Chinese list is in Simplified characters only. English is the one exception: ISO's English list was made for
web search and also lists words that are topics in a technical bank (``auth``, ``index``,
``test``, ``system``…); those few are kept as words.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from collections.abc import Iterable

from .libraries import LOAD_ERRORS, failed

# Words of ISO's English list that name a topic in a technical bank, so never stop words here.
_ENGLISH_TOPICS_TEXT = """
    api area areas auth bill caption click computer copy empty fire free goods group groups home
    homepage index information interest interests invention join keys length member members
    microsoft move null open opened opening page pages present research result results ring room
    rooms site state states system test value values webpage website width world
"""
_ENGLISH_TOPICS = frozenset(_ENGLISH_TOPICS_TEXT.split())


@functools.cache
def _data() -> str | None:
    """The text of the package's data file (its JSON, 200 KB), or None where it is not found.

    The file is read without importing the package: the import reads the package's version from
    the installed metadata, which costs more than the lists (50-100 ms).
    """
    try:
        spec = importlib.util.find_spec("stopwordsiso")
    except (*LOAD_ERRORS, ValueError):
        return None
    for folder in list(spec.submodule_search_locations or []) if spec is not None else []:
        path = os.path.join(folder, "stopwords-iso.json")
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as fh:
                    return fh.read()
            except (OSError, UnicodeDecodeError):
                return None
    return None


@functools.cache
def _raw() -> dict[str, list[str]]:
    """Every ISO stop-word list as the package ships it, by ISO 639-1 code."""
    try:
        text = _data()
        if text is not None:
            data = json.loads(text)
            if isinstance(data, dict):
                return {str(k): [str(w) for w in v] for k, v in data.items() if isinstance(v, list)}
        import stopwordsiso
    except (*LOAD_ERRORS, ValueError):
        failed("stopwordsiso")
        return {}
    return {code: sorted(stopwordsiso.stopwords(code)) for code in stopwordsiso.langs()}


def _raw_list(code: str) -> list[str]:
    """One language's list as the package ships it: only its part of the JSON decoded (a question
    in English needs one list of 58), else every list."""
    text = _data()
    key = f'"{code}":'
    at = text.find(key) if text is not None and code.isalnum() else -1
    while text is not None and at > 0:
        # A string followed by a colon is a key of the JSON's one object (in a list, a string is
        # followed by a comma or the list's end).
        if text[at - 1] in "{,":
            try:
                words, _ = json.JSONDecoder().raw_decode(text, at + len(key))
            except ValueError:
                break
            if isinstance(words, list) and all(isinstance(w, str) for w in words):
                return words
            break
        at = text.find(key, at + 1)
    return _raw().get(code, [])


@functools.cache
def _list(code: str) -> frozenset[str]:
    """One language's list, case-folded (English without the topics of a technical bank)."""
    words = frozenset(w.casefold() for w in _raw_list(code))
    return words - _ENGLISH_TOPICS if code == "en" else words


def _lists() -> dict[str, frozenset[str]]:
    """Every ISO stop-word list, case-folded, by ISO 639-1 code."""
    return {code: _list(code) for code in sorted(_raw())}


def supported_languages() -> tuple[str, ...]:
    """The ISO 639-1 codes that have a stop-word list."""
    return tuple(_lists())


@functools.lru_cache(maxsize=256)
def _stop_words(languages: tuple[str, ...]) -> frozenset[str]:
    found = frozenset().union(*(_list(code) for code in languages))
    return found | _traditional() if "zh" in languages else found


@functools.cache
def _traditional() -> frozenset[str]:
    """The Chinese list (written in Simplified characters) in Traditional ones as well."""
    try:
        import opencc

        convert = opencc.OpenCC("s2t").convert
    except LOAD_ERRORS:
        failed("opencc")
        return frozenset()
    return frozenset(convert(word) for word in _list("zh"))


def stop_words(languages: Iterable[str]) -> frozenset[str]:
    """The union of the stop words (case-folded) of the given languages; unknown codes add none."""
    return _stop_words(tuple(sorted(set(languages))))


def is_stop_word(word: str, languages: Iterable[str] = ("en",)) -> bool:
    """Whether a word is a stop word of any of the given languages (case-insensitive)."""
    return word.casefold() in stop_words(languages)


@functools.cache
def languages_of_word() -> dict[str, frozenset[str]]:
    """Each stop word and the languages that list it (for guessing a text's languages)."""
    index: dict[str, set[str]] = {}
    for code, words in _lists().items():
        for word in words:
            index.setdefault(word, set()).add(code)
    return {word: frozenset(codes) for word, codes in index.items()}
