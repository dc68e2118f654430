"""Korean words without their particles: `토큰을` and `토큰이` are the word `토큰`.

Korean writes a particle (josa) glued to the word it marks, so the same noun has many written
forms. The particles are a closed, short list, removed here from the end of a word; a one-syllable
particle that could also end a noun (`평가`, `회의`) is removed only when at least two syllables are
left, and after a Latin name (`README.md에`, `jsdom의`) always.
"""

from __future__ import annotations

import re

_HANGUL = re.compile(r"[\uac00-\ud7af]")
# Longest first, so that `에서는` goes before `는`.
_PARTICLES_TEXT = """
    에서부터 으로부터 에게서 한테서 이라도 에서는 에서도 으로는 으로도 에게는 처럼은 까지는 부터는
    에서 에게 한테 께서 으로 로서 로써 이나 이나마 이랑 하고 까지 부터 보다 처럼 마다 조차 마저 밖에
    에는 에도 로는 로도 와는 과는 이며 이고 이란 이든 라도
    을 를 이 가 은 는 의 에 와 과 로 도 만 나 랑 께 들
"""
_PARTICLES = sorted(_PARTICLES_TEXT.split(), key=len, reverse=True)
_AMBIGUOUS_TEXT = "이 가 의 에 와 과 로 도 만 나 랑 께 들"
_AMBIGUOUS = frozenset(_AMBIGUOUS_TEXT.split())
# Endings of a verb or an adjective (`사용합니다`, `제공해야`, `구현됨`): the word is a predicate.
_PREDICATE = re.compile(
    r"(?:니다|니까|습니다|하며|해야|하여|어야|아야|하는|되는|되어|된다|한다|했다|였다|하고|하기|하면|되면|해서|됨|함|된|했|있는|없는)$"
)


def has_hangul(text: str) -> bool:
    """Whether a text holds Korean syllables."""
    return _HANGUL.search(text) is not None


def strip_particles(word: str) -> str:
    """A Korean word without the particles glued to its end (`서버에서` → `서버`); other words
    as they are."""
    if not has_hangul(word[-1:]):
        return word
    for _ in range(2):  # a plural and a case particle: `기능들을` → `기능`
        for particle in _PARTICLES:
            if not word.endswith(particle):
                continue
            stem = word[: -len(particle)]
            syllables = len(_HANGUL.findall(stem))
            latin = bool(stem) and not has_hangul(stem[-1])
            if latin or syllables >= (2 if particle in _AMBIGUOUS else 1):
                word = stem
                break
        else:
            break
    return word


def is_predicate(word: str) -> bool:
    """Whether a Korean word is a verb or adjective form (`확보합니다`), no topic."""
    return has_hangul(word) and _PREDICATE.search(word) is not None
