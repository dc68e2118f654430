"""TLDR and CONFIDENCE: one real sentence of the file, in its language, and how sure that is.

The TLDR is the first sentence of the body that explains something: metadata lines (dates,
versions, status), list lead-ins ending in `:`, template placeholders, tables and code are
skipped. When that sentence does not name the file's title, the title leads it (`Tech context:
the backend runs on FastAPI.`). Sentence boundaries come from ``core.language`` (`。！？` too);
a sentence over the limit is cut at a clause or a word, never inside a word.
"""

from __future__ import annotations

import re

from ...language import sentences, words
from ...limits import MAX_TLDR
from .terms import Corpus, content_keys
from .text import IMAGE, LINK, WIKI_LINK, WS, Block, plain

NO_TEXT = "Notes without explanatory text yet."

_STOPS = ".!?。！？"
_CJK_STOP = re.compile(r"[。！？]")
_CJK_TEXT = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_INNER_STOP = re.compile(r"(?<![.!?])[.!?]+(?=[\"'”’)\]]*\s+(?![a-z]))")  # reads as a second sentence
_LABEL = re.compile(r"^[\W_]*([^\W\d_][\w .'/&-]{0,30}?)[\W_]*[:：]\s*")
_LABELS = re.compile(r"(?:^|\s)[^\W\d_][\w'/-]{0,20}[:：](?:\s|$)")
_DATE = re.compile(r"\b\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}日?)?|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|\d{4}年")
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])", re.IGNORECASE)
_PLACEHOLDER = re.compile(
    r"\[[^\[\]]{2,80}\]|\{\{[^{}]*\}\}|<[^<>]{2,60}>|\b(?:TODO|TBD|FIXME|XXX|lorem ipsum)\b|_{3,}|\.\.\.\s*$",
    re.IGNORECASE,
)
_TITLE_FILE = re.compile(r"\s*[(（][^()（）]*\.(?:md|markdown)[)）]\s*", re.IGNORECASE)
# `4. `, `ADR-0004 `: a record's number, not its title
_NUMBERING = re.compile(r"^(?:(?:ADR|RFC|DR)[- ]?)?\d+(?:\.\d+)*[.):]?\s+(?=[^\W\d_])", re.IGNORECASE)
_CLAUSE = ("; ", " — ", " – ", ": ", "，", "；", "：")
_COMMA = (", ", "、")


def title_of(blocks: list[Block], given: str = "") -> str:
    """The file's title: `given` (its front matter's), else its first heading; without a
    `(file.md)` remark or a lead such as `Memory Bank:`."""
    found = given if re.search(r"[^\W_]", given) else ""
    for block in blocks if not found else ():
        if block.kind == "heading" and re.search(r"[^\W_]", block.plain):
            found = block.plain
            break
    title = WS.sub(" ", _TITLE_FILE.sub(" ", found)).strip()
    last = re.split(r"[:：]\s+|\s[—–-]\s", title)[-1].strip()
    title = last if re.search(r"[^\W_]", last) else title
    return _NUMBERING.sub("", title)


def tldr(
    blocks: list[Block], subject: str, corpus: Corpus, language: str, title: str = ""
) -> tuple[str, bool]:
    """The TLDR and whether it is a sentence of the body (False: made from the title)."""
    title = title_of(blocks, title)
    for kinds in (("paragraph",), ("quote", "item")):
        for block in blocks:
            if block.kind in kinds and not _mostly_links(block.text):
                sentence = first_explanatory(plain(block.text), language)
                if sentence:
                    return fit(_with_title(title, sentence, corpus)), True
    topic = title or subject.strip()
    if topic and re.search(r"[^\W_]", topic):
        if _CJK_TEXT.search(topic):
            return fit(_cut(topic.rstrip(_STOPS + ":：、, "), MAX_TLDR - 1) + "。"), False
        return fit(f"Notes on {_cut(topic.rstrip('.!?:;, '), MAX_TLDR - 11)}."), False
    return NO_TEXT, False


def acceptable(text: str) -> bool:
    """Whether an existing TLDR is a sentence worth keeping (not metadata, a lead-in, a stub)."""
    text = text.strip()
    if not text or len(text) > MAX_TLDR or text == NO_TEXT:
        return False
    return _explains(text.rstrip(_STOPS)) and not text.endswith((":", "：", "…", "..."))


_HEAD = 1_000  # characters of a block read for its first sentence (a TLDR has at most 200)


def first_explanatory(text: str, language: str) -> str:
    """The first sentence of a plain text that explains something, or ''."""
    for sentence in sentences(text[:_HEAD], language):
        if _explains(sentence):
            return sentence
    return ""


def is_placeholder(text: str) -> bool:
    """Whether a text holds a template placeholder (`[Project Name]`, `{{x}}`, `TODO`)."""
    return _PLACEHOLDER.search(text) is not None


def _explains(sentence: str) -> bool:
    """Whether a sentence says something: enough words, no label-and-value, no placeholder."""
    if sentence.endswith((":", "：")) or _PLACEHOLDER.search(sentence):
        return False
    cjk = len(_CJK_TEXT.findall(sentence))
    if cjk:
        if cjk < 8 and len(words(sentence)) < 4:
            return False
    elif len(_LETTER_WORD.findall(sentence)) < 3:
        return False
    return not is_metadata(sentence)


def is_metadata(sentence: str) -> bool:
    """A metadata line: `Status: Accepted`, `Last updated: 2024-05-01`, `Version 1.2 (2024-05)`."""
    if len(_LABELS.findall(sentence)) >= 2:
        return True  # `Status: Accepted Date: 2024-01-05`
    rest = _DATE.sub(" ", _VERSION.sub(" ", sentence))
    if rest != sentence and len(_LETTER_WORD.findall(rest)) + len(_CJK_TEXT.findall(rest)) // 2 < 4:
        return True  # mostly dates and version numbers
    label = _LABEL.match(sentence)
    if label:
        value = sentence[label.end() :]
        if _DATE.search(value) or _VERSION.search(value):
            return True
        if len(_LETTER_WORD.findall(value)) + len(_CJK_TEXT.findall(value)) // 3 <= 4:
            return True  # a field and its value (`Owner: Jane Doe`, `Build: Visual Studio 2022`)
    return False


def _with_title(title: str, sentence: str, corpus: Corpus) -> str:
    """The sentence, led by the title when it does not name the title's words itself."""
    title = title.rstrip(_STOPS + ":：;, ")
    title_keys = set(content_keys(title, corpus.stops, corpus.cjk))
    said = set(content_keys(sentence, corpus.stops, corpus.cjk))
    if not title_keys or any(_same_word(t, s) for t in title_keys for s in said):
        return sentence
    joined = f"{title}：{sentence}" if _CJK_TEXT.search(title) else f"{title}: {sentence}"
    return joined if len(joined) <= MAX_TLDR else sentence


def _same_word(a: str, b: str) -> bool:
    """Whether two keys are one word in two forms (`deploy`, `deployments`)."""
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def _mostly_links(md: str) -> bool:
    """Whether a block is a list of links or badges rather than prose."""
    linked = sum(len(m.group(1)) for m in LINK.finditer(md)) + sum(
        len(m.group(1)) for m in WIKI_LINK.finditer(md)
    )
    rest = plain(WIKI_LINK.sub(" ", LINK.sub(" ", IMAGE.sub(" ", md))))
    return (linked > 0 or "![" in md) and len(_LETTER_WORD.findall(rest)) < 3


def fit(sentence: str) -> str:
    """One sentence of at most MAX_TLDR characters that ends with one full stop."""
    text = WS.sub(" ", sentence).strip()
    cjk = bool(_CJK_TEXT.search(text))
    text = _one_sentence(text)
    text = text.rstrip(":：")
    if len(text) > MAX_TLDR:
        text = _cut(text, MAX_TLDR - 1)
    text = text.rstrip(" ,;:-–—([{\"'、，；：")
    if not text.endswith(tuple(_STOPS)):
        text += "。" if cjk and _CJK_TEXT.search(text[-1:]) else "."
    return text if len(text) > 1 else NO_TEXT


def _one_sentence(text: str) -> str:
    """Drop inner stops that read as a sentence end (CKP020); `e.g. JWT` becomes `e.g., JWT`."""

    def fix(m: re.Match[str]) -> str:
        word = _WORD_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
        return ".," if word and word.group(1).casefold() in ("e.g", "i.e") else ""

    return _INNER_STOP.sub(fix, text)


def _cut(text: str, limit: int) -> str:
    """Cut a text to `limit` characters at a clause or word boundary, never inside a word."""
    if len(text) <= limit:
        return text
    head = text[: limit + 1]
    for marks in (_CLAUSE, _COMMA):
        clause = max(head.rfind(c) for c in marks)
        if clause >= limit * 2 // 3:
            return head[:clause]
    space = head.rfind(" ")
    if space >= limit // 3:
        return head[:space]
    end = 0  # no space (Chinese, Japanese): cut after the last whole word that fits
    for word in words(text[: limit + 40]):
        at = text.find(word, end)
        if at < 0 or at + len(word) > limit:
            break
        end = at + len(word)
    return text[:end] if end else text[:limit]


def confidence(words_in_body: int, has_sentence: bool, strong_keywords: int) -> str:
    """How sure the header is, from its evidence: a real sentence and repeated topics.

    high: the TLDR is a sentence of the body and at least five topics recur (in headings, code
    or more than once); low: no explanatory sentence and almost no text; medium otherwise.
    """
    if not has_sentence and (words_in_body < 8 or strong_keywords < 2):
        return "low"
    if has_sentence and strong_keywords >= 5:
        return "high"
    return "medium"
