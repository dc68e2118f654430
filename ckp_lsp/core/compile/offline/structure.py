"""Whether a sentence of a body is the document's structure rather than what the file is about.

A TLDR says what a file is about. Sentences that only organise a document are no TLDR in any
language: a status line (`Status: Refactor (80%)`, a ✅), a list lead-in (`… the following:`,
`次の機能があります。`), a closing line (`That is all.`), a pointer (`See ROADMAP.md.`), a
fragment (a label and a few words, a path), a request to the agent (`You are an expert …`), a
sentence that points back (`This was …`) or a text cut inside brackets or quotes.
"""

from __future__ import annotations

import re
import unicodedata

from ...language import address

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W\d_]{2,}")

# Marks that say how far a piece of work is, not what it is.
_STATUS_MARK = re.compile(r"[✅❌⚠🚧⏳🔄✔✓☑✗✘🟢🟡🟠🔴⭕🏗]")
#: only at the start of a number: searched from each digit of a long run, it would be quadratic
_PERCENT = re.compile(r"(?<!\d)\d+(?:[.,]\d+)?\s*%")
_STATUS_LABEL = re.compile(
    r"(?:^|[\s(（])(?:status|state|progress|estado|estatus|stato|statut|stand|состояние|статус|прогресс"
    r"|状态|狀態|状態|進捗|상태|진행)\s*[:：]",
    re.IGNORECASE,
)
# Words that announce a list or a table: the sentence introduces what follows, it says nothing.
_LEAD_IN = re.compile(
    r"\b(?:the following|as follows|listed below|below are|siguientes?|a continuación|seguintes?"
    r"|a seguir|folgende[nmrs]?|nachfolgend|suivante?s?|ci-dessous|seguenti|следующ\w*|ниже)\b"
    r"|以下の|次の(?:よう|通り|とおり|機能|項目|手順|点)|下記|如下|以下(?:是|为|為|几|幾|内容|功能|步骤|步驟)|下列"
    r"|다음과|아래와|다음의",
    re.IGNORECASE,
)
_CLOSING = re.compile(
    r"^(?:that'?s|that is|this is) (?:all|it)\b|\bend of (?:the |this )?(?:document|file|notes)\b"
    r"|^(?:thanks?|thank you|happy coding)\b|^fin del documento|^以上(?:です|となります|。|$)|^(?:谢谢|謝謝)",
    re.IGNORECASE,
)
_POINTER = re.compile(
    r"^(?:see|refer to|for (?:more )?details|more (?:details|info)|details (?:are )?in|read more|siehe|vgl"
    r"|véase|ver|voir|consulte|см\.?|подробн\w*|详见|詳見|参见|參見|请参阅|請參閱|詳しくは|詳細は|자세한)\b",
    re.IGNORECASE,
)
#: each alternative starts where its run of name characters starts (linear on a long run)
_PATH = re.compile(
    r"(?<![\w.-])(?:[\w.-]+/)+[\w.-]*|(?<![\w-])[\w-]+\.(?:md|mdc|py|ts|tsx|js|mjs|json|ya?ml|toml|sh)\b"
)
_POINTER_REMARK = re.compile(
    # Each alternative starts where the spaces before it start: the same leftmost match, in linear time.
    r"(?<!\s)\s*[(（](?:see|cf\.?|siehe|ver|voir|см\.?|详见|参见|參見|詳細は)[^()（）]*[)）]"
    r"|(?<!\s)\s*[,，;；]\s*(?:see|siehe|详见|詳見|参见|參見|請參閱|请参阅)\b[^.。]*(?=[.。]?$)",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"^([^\W\d_][\w .'/&+-]{0,30}?|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\w ]{1,12})\s*[:：]\s+"
)
#: a label before a full-width colon, which needs no space after it (`TASK001 已完成：…`)
_CJK_LABEL = re.compile(r"([^:：\n]{1,24})：")
PAIRS = (("(", ")"), ("（", "）"), ("[", "]"), ("「", "」"), ("『", "』"), ("“", "”"), ("《", "》"))


def size(text: str) -> int:
    """How much a text says: its words of two letters or more, an ideograph or syllable as half."""
    cjk = len(_CJK.findall(text))
    return len(_WORD.findall(_CJK.sub(" ", text))) + cjk // 2


# Words that say how far work is (`done`, `已完成`, `完了`, `erledigt`), in a label or a short line.
_STATUS_WORD = re.compile(
    r"\b(?:done|completed?|finished|verified|ready|in progress|wip|implementation status|current focus"
    r"|erledigt|abgeschlossen|dokumentiert|fertig|completad[oa]s?|conclu[ií]d[oa]s?|pendientes?|pendentes?"
    r"|listo|pronto|terminad[oa]|готово|исправлено|выполнено|завершено)\b"
    r"|已完成|完成|未实施|未實施|进行中|進行中|待办|待辦|完了|済み|未着手|완료|진행 중",
    re.IGNORECASE,
)
# The same words in the Latin-script languages with their accents folded (`TERMINÉ`, `terminado`,
# `terminato`; `complété`, `completado`; `concluído`; `résolu`): one stem and a participle's
# ending cover them all.
_STATUS_STEM = re.compile(
    r"\b(?:termin|complet|conclu|finali[sz]|achev|resol|verifi|valid|fini|livr|corrig|implement)"
    r"(?:e|ee|es|ees|ed|ad[oa]s?|at[oa]|id[oa]s?|u|ue|ie|i|ert|iert)?\b"
    r"|\b(?:en cours|in corso|em (?:andamento|curso)|en (?:progreso|curso)|a faire|pendiente|bloque)\b",
    re.IGNORECASE,
)


def _folded(text: str) -> str:
    """A text without its accents (`TERMINÉ` → `TERMINE`)."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def status_word(text: str) -> bool:
    """Whether a text holds a word that says how far work is, in any of the languages read."""
    return _STATUS_WORD.search(text) is not None or _STATUS_STEM.search(_folded(text)) is not None


_DATE_LEAD = re.compile(r"^\W*(?:\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}日?)?|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})\b")
#: the text before a dash or colon that parts two clauses
_FIRST_CLAUSE = re.compile(r"([^\n:：—–]{1,60}?)\s(?:-|—|–)\s")
_VERSION_MARK = re.compile(r"(?:\^|~|>=|<=|==)\s*\d|(?<![\w.])v?\d+\.\d+(?:\.\d+)?\+?(?![\w.])")


def is_status(sentence: str) -> bool:
    """A status line: a progress mark, a `Status:` label, a date that leads it, a word of progress
    in a label or a short line, or a percentage in a short line."""
    if _STATUS_MARK.search(sentence) or _STATUS_LABEL.search(sentence) or _DATE_LEAD.match(sentence):
        return True
    label = _LABEL.match(sentence) or _CJK_LABEL.match(sentence)
    if label and status_word(label.group(1)):
        return True
    if status_word(sentence) and size(sentence) < 8:
        return True
    first = _FIRST_CLAUSE.match(sentence)
    if first and status_word(first.group(1)) and size(first.group(1)) < 6:
        return True  # `No tasks in progress - the system is ready …`
    return bool(_PERCENT.search(sentence)) and size(sentence) < 10


def has_version(sentence: str) -> bool:
    """Whether a sentence pins a version (`^20.3.0`, `>=2.2.0`, `v5.3+`): a line of a stack list."""
    return _VERSION_MARK.search(sentence) is not None


def is_lead_in(sentence: str) -> bool:
    """A sentence that introduces a list: it ends in a colon or announces what follows."""
    return sentence.rstrip().endswith((":", "：")) or _LEAD_IN.search(sentence) is not None


def is_closing(sentence: str) -> bool:
    """A closing line (`That is all for this document.`)."""
    return _CLOSING.search(sentence.strip()) is not None


def is_pointer(sentence: str) -> bool:
    """A pointer to another place (`See ROADMAP.md for details.`) or a line that is mostly paths."""
    text = sentence.strip().lstrip("(（*_ ")
    if _POINTER.match(text):
        return True
    paths = sum(len(m.group()) for m in _PATH.finditer(text))
    return paths * 2 >= len(text.rstrip(".。"))


def balanced(text: str) -> bool:
    """Whether every bracket and quote a text opens is closed in it."""
    if any(text.count(a) != text.count(b) for a, b in PAIRS):
        return False
    return text.count('"') % 2 == 0 and text.count("「") == text.count("」")


def without_pointer_remark(sentence: str) -> str:
    """A sentence without a `(see docs/x.md)` remark."""
    return _POINTER_REMARK.sub("", sentence)


def split_label(sentence: str) -> tuple[str, str]:
    """(label, rest) of a sentence led by a short label (`Purpose: …`), else ('', sentence)."""
    m = _LABEL.match(sentence)
    if not m or size(m.group(1)) > 4:
        return "", sentence
    return m.group(1).strip(), sentence[m.end() :]


# A heading marker inside running text: the file lost a line break there (`… w### Context`).
_RUN_IN_HEADING = re.compile(r"(?:\w|\s)#{2,6}\s+[^\W\d_]")


def is_request(sentence: str) -> bool:
    """A request to the agent (`You are an expert …`, `Act as …`, `Vous êtes …`, `你是…`), in any
    language read: the rest of its text is a request too."""
    return address.is_request(sentence)


_INNER_LABEL = re.compile(r"[^\W\d_][:：](?=\s|[^\x00-\x7f])")


def structure(sentence: str, long_enough: int) -> str | None:
    """Why a sentence is structure rather than meaning (None: it says something), for a sentence
    that must hold at least ``long_enough`` words."""
    if is_status(sentence):
        return "status"
    if is_lead_in(sentence):
        return "lead-in"
    if is_closing(sentence):
        return "closing"
    if is_pointer(sentence):
        return "pointer"
    if not balanced(sentence) or _RUN_IN_HEADING.search(sentence):
        return "cut"
    if is_request(sentence):
        return "request"
    if address.points_back(sentence):
        return "back-reference"
    if len(_INNER_LABEL.findall(sentence)) >= 2:
        return "label"  # `Focus: Plan: …`, `方案：視角：…`: fields, not a sentence
    if size(sentence) < long_enough:
        return "fragment"
    return None
