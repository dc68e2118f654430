"""Sentences that speak to the reader or point back, in every language the project reads.

Two closed classes of words, the same in every text of a language: the words that open a request
(the reader addressed: `you`, `vous`, `du`, `ты`, `你`, `あなた`, `당신`; `please` and its peers;
`act as`), and the words that open a sentence pointing back at the one before it (`this was`,
`c'était`, `das war`, `это было`, `这是因为`, `そのため`, `이로 인해`; `as above`). Such a sentence
says nothing about a file alone. The lists are data, one line per language: a language is added
by a line, never by a rule.
"""

from __future__ import annotations

import functools
import re

#: the words that open a request, per ISO 639-1 code (`|` between alternatives; a trailing
#: space where the word must stand alone: `tu ` is not `tutorial`)
REQUEST_OPENINGS: dict[str, str] = {
    "en": "you|your|please|act as|acting as|i want you|imagine you|pretend you",
    "fr": "tu|vous|ton|votre|vos|tes|s'il te plaît|s'il vous plaît|merci de|agis comme|agissez comme"
    "|je veux que tu|je veux que vous|imagine que tu",
    "es": "tú|tu|usted|ustedes|vosotros|eres|sois|por favor|actúa como|actua como|quiero que|imagina que",
    "pt": "você|voce|vocês|voces|tu|seu papel|sua tarefa|por favor|aja como|atue como|quero que|imagine que",
    # (`du` with its verb: alone it is French `du`, "of the"; every list is read for every text)
    "de": "du bist|du sollst|du musst|du kannst|du wirst|du hast|dein|deine|deinen|bitte|agiere als"
    "|handle als|ich möchte, dass du|stell dir vor",
    "it": "tu|voi|sei un|sei una|per favore|agisci come|voglio che tu|immagina di",
    "ru": "ты|вы|твой|твоя|ваш|ваша|пожалуйста|действуй как|представь",
    "zh": "你|您|请你|請你|请扮演|請扮演|请帮我|請幫我",
    "ja": "あなた|君は|きみは|お前",
    "ko": "당신|너는|네가",
}

#: the words that open a sentence pointing back at the one before it
BACK_OPENINGS: dict[str, str] = {
    "en": "this was|this were|that was|it was|these were|those were|this had|it had|as above"
    "|as mentioned|as noted|as described|as shown|see above|same as above",
    "fr": "c'était|c’était|ce fut|cela a été|ceci était|il s'agissait|comme indiqué|comme mentionné"
    "|comme ci-dessus|voir ci-dessus",
    "es": "esto fue|eso fue|esto era|eso era|como se indicó|como se mencionó|como arriba|ver arriba",
    "pt": "isso foi|isto foi|isso era|isto era|como mencionado|como indicado|como acima|ver acima",
    "de": "das war|dies war|es war|das waren|dies waren|wie oben|siehe oben|wie bereits erwähnt",
    "it": "questo era|questo è stato|ciò era|come sopra|come indicato|vedi sopra",
    "ru": "это был|это была|это было|это были|как указано выше|как упоминалось|см. выше",
    "zh": "这是因为|這是因為|这导致|這導致|这使得|這使得|如上所述|如前所述|同上",
    "ja": "そのため|それにより|これにより|その結果|上記の通り|上記のとおり|前述の通り|前述のとおり",
    "ko": "이로 인해|그래서|그 결과|위와 같이|앞서 언급한",
}

#: Japanese and Korean requests close the sentence (`…してください`, `…해주세요`)
REQUEST_ENDINGS: dict[str, str] = {
    "ja": "してください|して下さい|しなさい",
    "ko": "해주세요|해 주세요|하십시오",
}

_MARKS = "[\"“”'‘’«»「『(（*_\\s]*"


@functools.cache
def _opening(table: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """One pattern for the openings of every language: a word of an alphabet stands alone (`tu`
    is not `tutorial`); one of ideographs, kana or Hangul runs on (`你是`, `당신은`)."""
    words = sorted({w for _, ws in table for w in ws.split("|")}, key=len, reverse=True)
    alternatives = "|".join(re.escape(w) + (r"(?![^\W_])" if _alphabetic(w[-1]) else "") for w in words)
    return re.compile(f"{_MARKS}(?:{alternatives})", re.IGNORECASE)


def _alphabetic(c: str) -> bool:
    """A letter of an alphabet whose words are written apart (Latin, Greek, Cyrillic)."""
    return c.isalpha() and ord(c) < 0x1100


@functools.cache
def _ending() -> re.Pattern[str]:
    """The endings of a request in Japanese and Korean."""
    words = sorted({w for ws in REQUEST_ENDINGS.values() for w in ws.split("|")}, key=len, reverse=True)
    return re.compile(f"(?:{'|'.join(map(re.escape, words))})[。.!！]?$")


def is_request(sentence: str) -> bool:
    """Whether a sentence asks the reader (an agent) to do something: it opens with a word that
    addresses the reader, or closes as a Japanese or Korean request does."""
    text = sentence.strip()
    return (
        _opening(tuple(REQUEST_OPENINGS.items())).match(text) is not None
        or _ending().search(text[-20:]) is not None
    )


def points_back(sentence: str) -> bool:
    """Whether a sentence opens by pointing back at the one before it (`This was …`, `As above`)."""
    return _opening(tuple(BACK_OPENINGS.items())).match(sentence.strip()) is not None
