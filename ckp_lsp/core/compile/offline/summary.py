"""TLDR and CONFIDENCE: one real sentence of the file, in its language, and how sure that is.

The TLDR is the first sentence of the body that explains something: metadata lines (dates,
versions, status), list lead-ins ending in `:`, template placeholders, tables and code are
skipped. When that sentence does not name the file's title, the title leads it (`Tech context:
the backend runs on FastAPI.`). Sentence boundaries come from ``core.language`` (`。！？` too);
a sentence over the limit is cut at a clause or a word, never inside a word.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from ckp_lsp.core.format.limits import MAX_TLDR

from ...language import sentences, words
from .logs import dated_log, log_summary
from .structure import (
    PAIRS,
    balanced,
    has_version,
    is_request,
    is_status,
    size,
    split_label,
    structure,
    without_pointer_remark,
)
from .subjects import BOLD_LEAD, first_list, listed
from .terms import Corpus, content_keys
from .text import CJK_CHAR, IMAGE, LINK, WIKI_LINK, WS, Block, code_spans, plain

NO_TEXT = "Notes without explanatory text yet."

_STOPS = ".!?。！？"
_CJK_STOP = re.compile(r"[。！？]")
_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_INNER_STOP = re.compile(r"(?<![.!?])[.!?]+(?=[\"'”’)\]]*\s+(?![a-z]))")  # reads as a second sentence
_LABEL = re.compile(r"^[\W_]*([^\W\d_][\w .'/&-]{0,30}?)[\W_]*[:：]\s*")
_LABELS = re.compile(r"(?:^|\s)[^\W\d_][\w'/-]{0,20}[:：](?:\s|$)")
_DATE = re.compile(r"\b\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}日?)?|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|\d{4}年")
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])", re.IGNORECASE)
# (`players[pid]` is an index into code, not a placeholder: a bracket after a word opens none)
_PLACEHOLDER = re.compile(
    r"(?<![\w\]])\[[^\[\]]{2,80}\]|\{\{[^{}]*\}\}|<[^<>]{2,60}>|\b(?:TODO|TBD|FIXME|XXX|lorem ipsum)\b|_{3,}|\.\.\.\s*$",
    re.IGNORECASE,
)
#: starts where the spaces before it start (linear on a long run of them)
_TITLE_FILE = re.compile(r"(?<!\s)\s*[(（][^()（）]*\.(?:md|markdown)[)）]\s*", re.IGNORECASE)
# `4. `, `ADR-0004 `: a record's number, not its title
_NUMBERING = re.compile(r"^(?:(?:ADR|RFC|DR)[- ]?)?\d+(?:\.\d+)*[.):]?\s+(?=[^\W\d_])", re.IGNORECASE)
#: a short aside (an expansion, an example); starts where the spaces before it start: linear
_REMARK = re.compile(r"(?<!\s)\s*[(（][^()（）]{0,60}[)）]")
_CLAUSE = ("; ", " — ", " – ", ": ", "，", "；", "：")
_COMMA = (", ", "、")


def title_of(blocks: list[Block], given: str = "", part: int = -1) -> str:
    """The file's title: `given` (its front matter's), else its first heading; without a
    `(file.md)` remark or a lead such as `Memory Bank:` (``part=0``: that lead alone)."""
    found = given if re.search(r"[^\W_]", given) else ""
    for block in blocks if not found else ():
        if block.kind == "heading" and re.search(r"[^\W_]", block.plain):
            found = block.plain
            break
    title = WS.sub(" ", _TITLE_FILE.sub(" ", found)).strip()
    parts = [p.strip() for p in re.split(r"[:：]\s+|\s[—–-]\s", title)]
    if part == -1:  # the last part that names something, not a date or a status (`… - DONE`)
        parts = [p for p in parts if not is_status(p)] or parts
    last = parts[part]
    title = last if re.search(r"[^\W_]", last) else title
    return _NUMBERING.sub("", title)


#: where a TLDR came from, the evidence CONFIDENCE weighs: the file's own description, a sentence
#: of a paragraph or of a list item, or the title and keywords (no sentence of the body would do)
DESCRIPTION, PARAGRAPH, ITEM, TITLE = "description", "paragraph", "item", "title"

_EMOJI = re.compile(r"\d?[\ufe0f\u20e3]+|[\u2600-\u27bf\U0001f000-\U0001faff]")
_CODE_NAME = re.compile(r"^[a-z]+[A-Z]|_|\.\w")  # `graphqlClient`, `msg.append`: code, not a topic
#: a value that opens with a path or a code name (`fix/30 …`, `settings.ts …`): a field's value
_CODE_VALUE = re.compile(r"[^\s/_.]*[/_.]\w")
_FIELD_ITEM = re.compile(r"[^`:：\n]{1,30}[:：]\s*`")
_CANDIDATES = 60  # sentences looked at, at most: the first explanatory ones are near the top
# A list item that names a path or a code name and says what it is (`tests/e2e/ - the e2e suite`)
#: split at the first separator: two runs of \S* meeting at any one of them were quadratic
_ENTRY = re.compile(r"^[^\s/._]*[/._]\S*\s+[-–—:：]\s")


def tldr(
    blocks: list[Block],
    subject: str,
    corpus: Corpus,
    language: str,
    title: str = "",
    *,
    keywords: Sequence[str] = (),
    taken: Collection[str] = frozenset(),
    title_shared: bool = False,
    common_headings: Collection[str] = frozenset(),
) -> tuple[str, str]:
    """The TLDR and where it came from (PARAGRAPH, ITEM or TITLE).

    The first sentence of a paragraph (else of a list item) that says what the file is about and
    that no other file of the bank has as its TLDR (`taken`, case-folded); without one, the title
    and the file's first keywords. A title many files share (`title_shared`: the project's name)
    leads no sentence. A file with no such sentence near its top is named by its title and its
    subjects (``subjects.listed``; `common_headings` are a template's, no subject).
    """
    given = title
    title = WS.sub(" ", _EMOJI.sub(" ", title_of(blocks, given))).strip()
    lead = "" if title_shared or is_status(title) else title
    deep: list[tuple[str, str]] = []
    log = dated_log(blocks)
    for at, index, source, sentence in _candidates(blocks, language, first_list(blocks)):
        if log and log.whole and index in log.inside:  # one entry's sentence, for a whole log
            text = log_summary(log, _log_title(blocks, given, subject), taken)
            if text:
                return text, ITEM
            log = None
        text = fit(_with_title(lead, sentence, corpus))
        if not balanced(text):
            text = fit(sentence)
        if balanced(text) and text.casefold() not in taken:
            if at < _LEAD:
                return text, source
            deep.append((text, source))
    if log and log.whole:  # a log none of whose entries has a sentence of its own
        text = log_summary(log, _log_title(blocks, given, subject), taken)
        if text:
            return text, ITEM
    # No sentence near the top says what the file is: a list file is its title and its subjects
    # (one bullet of it, or a sentence deep in it, says what one part is).
    heading = lead or WS.sub(" ", _EMOJI.sub(" ", title_of(blocks, given, part=0))).strip()
    if not is_status(heading):
        text = listed(blocks, heading, taken, common_headings)
        if text:
            return text, ITEM
    if deep:
        return deep[0]
    return _from_title(title or subject.strip(), subject, keywords, corpus, taken, language), TITLE


def _log_title(blocks: list[Block], given: str, subject: str) -> str:
    """What a log is of: its own title (front matter, a first `#` heading that is no entry), else
    its CONCEPT in words (`decision-log` → `Decision log`): a section heading names one part."""
    first = next((b for b in blocks if b.kind == "heading"), None)
    if (
        not re.search(r"[^\W_]", given)
        and first is not None
        and first.level == 1
        and not is_status(first.plain)
    ):
        given = first.plain
    title = title_of([], given, part=0) if re.search(r"[^\W_]", given) else ""
    if title:
        return WS.sub(" ", _EMOJI.sub(" ", title)).strip()
    words_ = subject.replace("-", " ").replace("_", " ").strip()
    return words_[:1].upper() + words_[1:]


def _candidates(blocks: list[Block], language: str, subjects_at: int) -> Iterator[tuple[int, int, str, str]]:
    """The sentences that say something (with the number of text blocks before theirs and the
    index of their block),
    paragraphs first, then quotes and list items; not an item that is one part of a list: from
    the first list of subjects on (after its first item, `subjects_at`)."""
    looked = 0
    for kinds, source, need in ((("paragraph",), PARAGRAPH, 5), (("quote", "item"), ITEM, 8)):
        at = 0  # blocks of text before this one
        previous = ""
        for index, block in enumerate(blocks):
            at += block.kind != "heading"
            after, previous = previous, block.kind
            if block.kind not in kinds or _mostly_links(block.text):
                continue
            if block.kind == "item" and (index > subjects_at or _subject_item(block, after)):
                continue
            for sentence in _sentences(block.text, language):
                looked += 1
                if looked > _CANDIDATES:
                    return
                if is_request(split_label(sentence)[1]):
                    break  # the rest of a prompt is the prompt too
                found = meaning(sentence, need, item=source == ITEM)
                if found:
                    yield at - 1, index, source, found


#: a stop inside a code span while a text is split into sentences, as a private-use character
#: (no text holds one, no splitter ends a sentence at one), and back
_HIDE_STOPS = str.maketrans({c: chr(0xE000 + i) for i, c in enumerate(".!?。！？")})
_SHOW_STOPS = str.maketrans({chr(0xE000 + i): c for i, c in enumerate(".!?。！？")})
_DROP_STAND_INS = str.maketrans(dict.fromkeys(_SHOW_STOPS))


def _sentences(md: str, language: str) -> list[str]:
    """The sentences of a Markdown block's plain text; a stop inside a code span (`./start.sh`,
    `v1.2`) ends no sentence, so no sentence is left with a dangling word where the code was."""
    if "`" not in md:
        return sentences(plain(md)[:_HEAD], language)
    md = md.translate(_DROP_STAND_INS)
    parts: list[str] = []
    at = 0
    for _start, a, b, _end in code_spans(md):
        parts += [md[at:a], md[a:b].translate(_HIDE_STOPS)]
        at = b
    hidden = "".join(parts) + md[at:]
    return [s.translate(_SHOW_STOPS) for s in sentences(plain(hidden)[:_HEAD], language)]


def _subject_item(block: Block, after: str) -> bool:
    """Whether a list item is one part of a list: after its first item (`after` another), nested,
    or naming a subject in bold and then saying more of it (not a field such as `**Purpose**:`,
    whose value may say what the file is)."""
    if block.kind != "item":
        return False
    if after == "item" or _FIELD_ITEM.match(block.text):
        return True  # one item among others, or a field and its code value (`类型：`dict``)
    bold = BOLD_LEAD.match(block.text)
    return block.level >= 2 or bool(bold and bold.group(2) and size(bold.group(1)) >= 2)


def meaning(sentence: str, need: int = 5, item: bool = False) -> str:
    """The sentence as a TLDR ('' when it is structure, not meaning): a short label that leads it
    (`Purpose: …`) and a `(see …)` remark dropped, emoji removed."""
    if is_status(sentence) or (item and (_ENTRY.match(sentence) or has_version(sentence))):
        return ""  # (a list item that pins a version is a line of a stack, not a summary)
    text = WS.sub(" ", _EMOJI.sub(" ", without_pointer_remark(sentence))).strip(" -–—·*")
    label, rest = split_label(text)
    if label:
        if split_label(rest)[0] or size(rest) < need or (item and _CODE_VALUE.match(rest)):
            return ""  # `Frontend: React.`, `Tech: Build: Vite.`, `Branch: fix/30 (…)`: fields
        text = rest
    if structure(text, need) or not _explains(text):
        return ""
    return text


def _from_title(
    topic: str, subject: str, keywords: Sequence[str], corpus: Corpus, taken: Collection[str], language: str
) -> str:
    """`Topic: keyword, keyword, keyword.` in any language: what the file is about, from its title
    and its first keywords (another one each time the text is another file's TLDR already);
    without keywords `Notes on Topic.` in English, `Topic.` in any other language."""
    topic = _cut(topic.rstrip(_STOPS + ":：;, "), MAX_TLDR // 2) if re.search(r"[^\W_]", topic) else subject
    cjk = bool(CJK_CHAR.search(topic))
    own = set(content_keys(topic, corpus.stops, corpus.cjk))
    named = [
        k
        for k in keywords[1:]
        if not own.issuperset(content_keys(k, corpus.stops, corpus.cjk)) and not _CODE_NAME.search(k)
    ]
    text = fit(topic + ("。" if cjk else ".") if language != "en" or cjk else f"Notes on {topic}.")
    for n in range(3, len(named) + 3):
        if named:
            listed = ("、" if cjk else ", ").join(named[:n])
            text = fit(f"{topic}：{listed}" if cjk else f"{topic}: {listed}")
        if text.casefold() not in taken or n >= len(named):
            break
    if text.casefold() in taken:
        text = fit(f"{text.rstrip(_STOPS)} ({subject})")
    return text


def described(description: str) -> str:
    """A front matter's `description` as a TLDR: one line, its first sentence, at most MAX_TLDR
    characters ('' when it says nothing)."""
    text = WS.sub(" ", _EMOJI.sub(" ", description)).strip()
    if not re.search(r"[^\W_]", text) or is_placeholder(text):
        return ""
    first = sentences(text)
    text = first[0] if first else text
    if not balanced(text):  # `… hex (no #)`: YAML read ` #` as a comment and left `(no` open
        opened = max(text.rfind(a) for a, _b in PAIRS)
        text = text[:opened] if opened > 0 and size(text[:opened]) >= 4 else text
    return fit(text)


def acceptable(text: str) -> bool:
    """Whether an existing TLDR is a sentence worth keeping (not metadata, a lead-in, a stub)."""
    text = text.strip()
    if not text or len(text) > MAX_TLDR or text == NO_TEXT:
        return False
    return _explains(text.rstrip(_STOPS)) and not text.endswith((":", "：", "…", "..."))


_LEAD = 5  # blocks of text: a sentence further down says what one part of the file is
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
    cjk = len(CJK_CHAR.findall(sentence))
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
    if rest != sentence and len(_LETTER_WORD.findall(rest)) + len(CJK_CHAR.findall(rest)) // 2 < 4:
        return True  # mostly dates and version numbers
    label = _LABEL.match(sentence)
    if label:
        value = sentence[label.end() :]
        if _DATE.search(value) or _VERSION.search(value):
            return True
        if len(_LETTER_WORD.findall(value)) + len(CJK_CHAR.findall(value)) // 3 <= 4:
            return True  # a field and its value (`Owner: Jane Doe`, `Build: Visual Studio 2022`)
    return False


def _with_title(title: str, sentence: str, corpus: Corpus) -> str:
    """The sentence, led by the title when it does not name the title's words itself."""
    title = title.rstrip(_STOPS + ":：;, ")
    title_keys = set(content_keys(title, corpus.stops, corpus.cjk))
    said = set(content_keys(sentence, corpus.stops, corpus.cjk))
    if not title_keys or any(_same_word(t, s) for t in title_keys for s in said):
        return sentence
    joined = f"{title}：{sentence}" if CJK_CHAR.search(title) else f"{title}: {sentence}"
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
    cjk = bool(CJK_CHAR.search(text))
    text = _one_sentence(text)
    text = text.rstrip(":：")
    if len(text) > MAX_TLDR:
        # a remark in brackets (`RAG (Retrieval-Augmented Generation)`) goes before any clause
        shorter = WS.sub(" ", _REMARK.sub("", text)).strip()
        text = shorter if len(shorter) <= MAX_TLDR and size(shorter) >= 4 else text
    if len(text) > MAX_TLDR:
        text = _cut(text, MAX_TLDR - 1)
    text = text.rstrip(" ,;:-–—([{\"'、，；：")
    if not text.endswith(tuple(_STOPS)):
        text += "。" if cjk and CJK_CHAR.search(text[-1:]) else "."
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
        if clause >= limit // 3:
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


def confidence(words_in_body: int, source: str, strong_keywords: int) -> str:
    """How sure the header is, from its evidence: where the TLDR came from, how much body there is
    and how many of its topics recur (in headings, code or more than once).

    high: a description or a paragraph's sentence, a body of some substance and at least five
    recurring topics; low: no sentence of its own and a thin body or almost no recurring topic;
    medium otherwise.
    """
    if source == TITLE and (words_in_body < _THIN or strong_keywords < 3):
        return "low"
    if words_in_body < _THIN // 6:
        return "low"
    if source in (DESCRIPTION, PARAGRAPH) and words_in_body >= _SUBSTANCE and strong_keywords >= 5:
        return "high"
    return "medium"


_THIN = 60  # words: a body this short says little about when to load it
_SUBSTANCE = 150  # words: a body with room for more than one topic
