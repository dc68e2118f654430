"""Words of a text in any script: Chinese and Japanese segmented by real segmenters.

Text in scripts with spaces is split at anything that is not a letter, digit, mark, underscore or
an apostrophe inside a word. Runs of ideographs and kana are given to a segmenter: TinySegmenter
for Japanese (the text has kana), jieba (rjieba, its Rust port) for Chinese. jieba's dictionary is
Simplified Chinese: Traditional text is segmented through its Simplified spelling (OpenCC, one
character for one), then cut at the same places. All are imported on first use only; where a
segmenter cannot be imported, a run is cut into its overlapping pairs of characters
(``libraries``), the same way on every side of a comparison.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable

from .libraries import LOAD_ERRORS, failed
from .scripts import CJK_CHARS, CJK_RUN, MARK_CHARS, is_japanese

_WORD_CHAR = f"[^\\W{CJK_CHARS}]|[{MARK_CHARS}]"
_TOKEN = re.compile(f"[{CJK_CHARS}]+|(?:{_WORD_CHAR})+(?:['’](?:{_WORD_CHAR})+)*")
_HAS_WORD = re.compile(r"[^\W_]")


def words(text: str, language: str | None = None) -> list[str]:
    """The words of a text in reading order, case kept (NFKC-normalised: `ＡＰＩ` is `API`).

    Chinese and Japanese are segmented (`使用Redis缓存` → `使用`, `Redis`, `缓存`); `language`
    ("ja" or "zh") chooses the segmenter, else a text with kana is Japanese. Segment both sides
    of a comparison (a query and a keyword) with this function and the same `language` and they
    split the same way: a short text of kanji alone (`認証`) cannot tell, so pass the language of
    its bank (`"ja" if "ja" in languages(bank_text) else None`).
    """
    text = unicodedata.normalize("NFKC", text)
    if not CJK_RUN.search(text):
        return _TOKEN.findall(text)
    cut = _japanese() if (language == "ja" or (language is None and is_japanese(text))) else _chinese()
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        token = m.group()
        if CJK_RUN.fullmatch(token):
            out.extend(w for w in cut(token) if _HAS_WORD.search(w))
        else:
            out.append(token)
    return out


def pairs(run: str) -> list[str]:
    """A run of ideographs or kana as its overlapping pairs of characters (`用户认证` → `用户`,
    `户认`, `认证`), a lone character as itself: the cut when no segmenter can be imported. A
    keyword's pairs are among the pairs of any query that contains it."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


@functools.cache
def _japanese() -> Callable[[str], list[str]]:
    """TinySegmenter's cut (a compact trained model: no dictionary, no download)."""
    try:
        import tinysegmenter
    except LOAD_ERRORS:
        failed("tinysegmenter")
        return pairs
    segmenter = tinysegmenter.TinySegmenter()
    return segmenter.tokenize


@functools.cache
def _chinese() -> Callable[[str], list[str]]:
    """jieba's cut, through rjieba (its dictionary is compiled in), for either script."""
    try:
        import rjieba
    except LOAD_ERRORS:
        failed("rjieba")
        return pairs
    simplified = _simplified()
    if simplified is None:
        return lambda text: list(rjieba.cut(text))

    def cut(text: str) -> list[str]:
        plain = simplified(text)
        if plain == text or len(plain) != len(text):
            return list(rjieba.cut(text))
        out, at = [], 0
        for word in rjieba.cut(plain):
            out.append(text[at : at + len(word)])
            at += len(word)
        return out

    return cut


@functools.cache
def _simplified() -> Callable[[str], str] | None:
    """OpenCC's Traditional-to-Simplified conversion, or None where OpenCC cannot load."""
    try:
        import opencc

        return opencc.OpenCC("t2s").convert
    except LOAD_ERRORS:
        failed("opencc")
        return None
