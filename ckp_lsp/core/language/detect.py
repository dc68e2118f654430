"""Which languages a text is written in: by its scripts, then by the stop words it uses."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from .scripts import CJK_RUN, KANA, MARK_CHARS, script_of
from .stopwords import languages_of_word

_SAMPLE = 8_000  # characters read of a long text: enough to see its languages
_LETTERS = re.compile(f"(?:[^\\W\\d_]|[{MARK_CHARS}])+")
# The language a script's text is in when none of its stop words decides.
DEFAULT_LANGUAGE = {
    "LATIN": "en",
    "CYRILLIC": "ru",
    "ARABIC": "ar",
    "HEBREW": "he",
    "GREEK": "el",
    "HANGUL": "ko",
    "THAI": "th",
    "DEVANAGARI": "hi",
    "BENGALI": "bn",
    "GUJARATI": "gu",
    "ARMENIAN": "hy",
}
_MIN_HITS = 3  # a second language of one script needs this many of its own stop words…
_MIN_SHARE = 0.02  # …and this share of the script's words


def languages(text: str) -> tuple[str, ...]:
    """The ISO 639-1 codes of the languages of a text, sorted; English is always one of them.

    Technical text in any language is full of English, so English is always included. Chinese and
    Japanese are told apart by kana; languages sharing a script by the stop words each uses
    (a second language of a script needs some of its own, not shared with the first).
    """
    sample = text[:_SAMPLE]
    found = {"en"}
    if CJK_RUN.search(sample):
        found.add("ja" if KANA.search(sample) else "zh")
    words: dict[str, list[str]] = defaultdict(list)
    for m in _LETTERS.finditer(sample):
        word = m.group()
        script = script_of(word[0])
        if script in DEFAULT_LANGUAGE:
            words[script].append(word.casefold())
    index = languages_of_word()
    for script, tokens in words.items():
        hits: Counter[str] = Counter()
        per_token = [index.get(t, frozenset()) for t in tokens]
        for codes in per_token:
            hits.update(codes)
        if not hits:
            found.add(DEFAULT_LANGUAGE[script])
            continue
        best = min(hits, key=lambda code: (-hits[code], code))
        found.add(best)
        firsts = {best, "en"}
        own: Counter[str] = Counter()
        for codes in per_token:
            if codes and not codes & firsts:
                own.update(codes)
        need = max(_MIN_HITS, _MIN_SHARE * len(tokens))
        found.update(code for code, n in own.items() if n >= need)
    return tuple(sorted(found))
