"""Scripts of text: which writing systems a text uses, and the character classes of words."""

from __future__ import annotations

import functools
import unicodedata

from ckp_lsp.core.format.patterns import lazy

# Ideographs and kana: scripts written without spaces between words.
CJK_CHARS = (
    "\u3005\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
# Combining marks Python's \w leaves out, without which Indic, Thai or Hebrew words fall apart.
MARK_CHARS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0dff\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u200c\u200d"
)
# (compiled when first used: a class of every ideograph costs a one-shot process more than its question)
CJK_RUN = lazy(f"[{CJK_CHARS}]+")
KANA = lazy("[\u3040-\u309f\u30a0-\u30fa\u30fd-\u30ff\u31f0-\u31ff\uff66-\uff9d]")


@functools.lru_cache(maxsize=4096)
def script_of(char: str) -> str:
    """The script of a letter as Unicode names it (LATIN, CYRILLIC, CJK, HIRAGANA…), or ''."""
    if char < "\u0080":
        return "LATIN" if char.isalpha() else ""
    try:
        name = unicodedata.name(char)
    except ValueError:
        return ""
    first = name.split(" ", 1)[0]
    if first in ("FULLWIDTH", "HALFWIDTH"):
        first = name.split(" ", 2)[1]
    return "CJK" if first in ("CJK", "IDEOGRAPHIC") else first


def has_cjk(text: str) -> bool:
    """Whether a text has ideographs or kana (words not separated by spaces)."""
    return not text.isascii() and CJK_RUN.search(text) is not None


def is_japanese(text: str) -> bool:
    """Whether a text with ideographs reads as Japanese: it has kana."""
    return KANA.search(text) is not None
