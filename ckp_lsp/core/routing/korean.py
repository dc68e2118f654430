"""Korean particles (josa) and common question endings, stripped from a word: ``토큰을`` -> ``토큰``.

Korean writes a noun and its particle as one word (``서버에서``, "on the server"). A morphological
analyser (Kiwi) knows every form, but its model is an 88 MB package every routing process would
load; a question and a file only need to meet on the noun. So a word ends at the longest suffix of
this list that leaves at least one syllable: the case particles of the standard grammar
(``이/가``, ``을/를``, ``은/는``, ``의``, ``에``, ``에서``, ``에게``, ``(으)로``, ``와/과``, ``도``,
``만``, ``부터``, ``까지``…, with their combinations) and the polite question and connective endings
of ``하다``/``되다``/``이다`` a developer writes (``하나요``, ``합니까``, ``되는``, ``입니다``…).
A verb or adjective whose ending the list does not hold (``닫히던``, ``알려진``: a stem fused with
its ending) is looked up by its stem, the word without its last syllable, when two syllables or
more remain (``닫히`` finds ``닫히도록``); see ``stem``. A word mixing Latin letters and Hangul
(``Safari에서``, ``PDF를``) is cut where the script changes, and a Hangul part that is only a
particle is left out. A single syllable such as ``이`` may end a noun too (``고양이``): the router indexes a file's word both
whole and stripped, and a question's word looks for both forms.
"""

from __future__ import annotations

import functools
import re

#: particles and endings, longest first within the pattern (the regex tries them in order)
SUFFIXES = tuple(
    sorted(
        [
            "에서부터",
            "으로부터",
            "에서는",
            "에서도",
            "에서의",
            "에게서",
            "에게는",
            "으로는",
            "으로도",
            "으로서",
            "으로써",
            "이라는",
            "이라고",
            "이라면",
            "께서는",
            "에서",
            "에게",
            "한테",
            "께서",
            "으로",
            "부터",
            "까지",
            "마다",
            "처럼",
            "보다",
            "라는",
            "라고",
            "이나",
            "이랑",
            "에는",
            "에도",
            "와는",
            "과는",
            "와의",
            "과의",
            "로는",
            "로도",
            "만의",
            "들이",
            "들을",
            "들은",
            "들의",
            "들에",
            "은",
            "는",
            "이",
            "가",
            "을",
            "를",
            "의",
            "에",
            "로",
            "와",
            "과",
            "도",
            "만",
            "랑",
            "들",
            "하려면",
            "하는지",
            "하나요",
            "합니까",
            "했나요",
            "할까요",
            "하는데",
            "해야",
            "하는",
            "하기",
            "하고",
            "하며",
            "하면",
            "한다",
            "했다",
            "합니다",
            "되나요",
            "됩니까",
            "되는지",
            "되는",
            "되어",
            "된다",
            "됩니다",
            "인가요",
            "입니까",
            "입니다",
            "인지",
            "이다",
            "나요",
            "는지",
            "습니까",
            # the plain (banmal) endings of a question to a colleague: "고쳤어", "뿐이야", "했지"
            "이야",
            "이에요",
            "예요",
            "인가",
            "일까",
            "했어",
            "했지",
            "됐어",
            "됐지",
            "해요",
            "돼요",
            "하지",
            "되지",
        ],
        key=len,
        reverse=True,
    )
)


@functools.cache
def _suffix() -> re.Pattern[str]:
    """The suffixes as one pattern, compiled when a Korean word is first seen."""
    return re.compile("(?:" + "|".join(SUFFIXES) + ")$")


def is_hangul(word: str) -> bool:
    """Whether a word is written in Hangul syllables (its first letter is one)."""
    return bool(word) and "\uac00" <= word[0] <= "\ud7a3"


def strip_particle(word: str) -> str:
    """The word without its particle or ending (``서버에서`` -> ``서버``); a word of one syllable, or
    one the list does not end, as it is."""
    if len(word) < 2:
        return word
    m = _suffix().search(word, 1)  # at least one syllable stays
    return word[: m.start()] if m else word


#: what a particle alone is: a Hangul part of a mixed word (``PDF를``) that says nothing itself
PARTICLES = frozenset(SUFFIXES)


def stem(word: str) -> str | None:
    """The start a question's Korean word shares with its other forms: the word without its particle
    or ending, else without its last syllable (``닫히던`` -> ``닫히``); None when fewer than two
    syllables would remain (``넘는``: a stem of one syllable starts too many words)."""
    stripped = strip_particle(word)
    if stripped != word:
        return stripped if len(stripped) >= 2 else None
    return word[:-1] if len(word) >= 3 else None
