"""Sentences of a text in any language, by sentencex (rules for about 300 languages).

It knows each language's abbreviations (`e.g.`, `Dr.`, `т.е.`), decimals and versions (`v1.2`)
and the full stops of Chinese and Japanese (`。！？`), which need no space after them. Where it
cannot be imported, a text is split after `.!?` followed by a space or the end and after `。！？`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from ckp_lsp.core.format.patterns import lazy

from .libraries import LOAD_ERRORS, failed
from .scripts import CJK_RUN, is_japanese

# Abbreviations that sentencex's rules split after (`Dr. Who`, `approx. 5 pm`).
_ABBREVIATION = lazy(
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
    if not text.isascii() and CJK_RUN.search(text):
        return "ja" if is_japanese(text) else "zh"
    from .detect import languages  # (when asked: the package imports this module at its start)

    return next((code for code in languages(text) if code != "en"), "en")


@functools.cache
def _segment() -> Callable[[str, str], Iterable[str]]:
    """sentencex.segment, imported on first use; the plain split where it cannot be."""
    try:
        import sentencex
    except LOAD_ERRORS:
        failed("sentencex")
        return _plain_split
    return sentencex.segment


# A full stop and its closing quotes or brackets: `.!?` before a space or the end, `。！？` anywhere.
_STOP = lazy(r"[.!?][\"'”’)\]]*(?=\s|$)|[。！？][」』”’）]*")


def _plain_split(language: str, text: str) -> list[str]:
    """Sentences without sentencex: cut after each full stop followed by a space or the end (or
    after a Chinese or Japanese one); the only abbreviations known are ``_ABBREVIATION``'s."""
    del language  # the same rule for every language
    cuts = [m.end() for m in _STOP.finditer(text)]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
