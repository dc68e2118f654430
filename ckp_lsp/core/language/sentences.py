"""Sentences of a text in any language, by sentencex (rules for about 300 languages).

It knows each language's abbreviations (`e.g.`, `Dr.`, `т.е.`), decimals and versions (`v1.2`)
and the full stops of Chinese and Japanese (`。！？`), which need no space after them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from .detect import languages
from .scripts import CJK_RUN, is_japanese

# Abbreviations that sentencex's rules split after (`Dr. Who`, `approx. 5 pm`).
_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:dr|prof|approx|incl|resp|esp|st|vol|ca|jr|sr|inc|ltd|vs|cf|no|nr|bzw|usw|ca)\.$",
    re.IGNORECASE,
)


def sentences(text: str, language: str | None = None) -> list[str]:
    """The sentences of a plain text, stripped, in order; `language` is an ISO 639-1 code.

    Without a language, a text with ideographs is Japanese (with kana) or Chinese, else the
    first language other than English that the text uses, else English.
    """
    if not text.strip():
        return []
    code = language or _language(text)
    found: list[str] = []
    for piece in _segment()(code, text):
        piece = piece.strip()
        if not piece:
            continue
        if found and _ABBREVIATION.search(found[-1]):
            found[-1] = f"{found[-1]} {piece}"
        else:
            found.append(piece)
    return found


def _language(text: str) -> str:
    """The language whose rules split this text."""
    if CJK_RUN.search(text):
        return "ja" if is_japanese(text) else "zh"
    return next((code for code in languages(text) if code != "en"), "en")


@functools.cache
def _segment() -> Callable[[str, str], Iterable[str]]:
    """sentencex.segment, imported on first use."""
    import sentencex

    return sentencex.segment
