"""A TLDR for a dated log: what the log is of, not one of its entries.

A progress file, a decision log or an archive of them is a run of entries, each led by its date
(`### [2026-05-28 12:10] - Cache rewrite - DONE`, `- 2026-05-28: …`). One entry's sentence says
what happened once, not what the file holds; the log is its title and the subjects of its newest
entries (`Decision log: cache rewrite, MCP-first pivot.`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ckp_lsp.core.format.limits import MAX_TLDR

from .structure import is_status, size
from .subjects import BOLD_LEAD
from .text import CJK_CHAR, WS, Block

#: a date that leads an entry, with its time if any: `[2026-05-28 12:10:00]`, `2026年5月28日`;
#: `\W{0,4}` before it, so no run of marks is searched twice
_DATED = re.compile(
    r"\W{0,4}(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?(?:[ T]{1,3}(\d{1,2}):(\d{2})(?::\d{2})?)?[\])]?"
)
_SEPARATOR = re.compile(r"^[\s\])*_:：\-–—·|]+")
#: a clause that closes a subject (`… - DONE`, `… — TERMINÉ`): split on, then dropped if a status
_CLAUSES = re.compile(r"\s[-–—]\s|\s?[:：]\s|[：，；]|[,;]\s")
_REMARK = re.compile(r"(?<!\s)\s*[(（][^()（）]{0,80}[)）]")  # from where its blanks start: linear
_ENTRIES = 2  # dated entries that make a body a log (one dated heading is a record's date)
_MOST = 3  # newest subjects named
_PREFACE = 12  # words before the first entry, at most, in a file that is a log (`No task open.`)
_LONGEST = 80  # characters of one subject


@dataclass(frozen=True)
class Log:
    """The blocks that belong to dated entries, the entries' subjects (newest first), and whether
    the body is the log: its entries hold most of its text and come first (not a file that keeps
    a log of changes below what it is about)."""

    inside: frozenset[int]
    subjects: tuple[str, ...]
    whole: bool


def dated_log(blocks: list[Block]) -> Log | None:
    """The body as a dated log (None when fewer than two entries are led by a date)."""
    inside: set[int] = set()
    entries: list[tuple[tuple[int, ...], int, str]] = []
    heading: int | None = None  # the level of the dated heading whose section is being read
    item: int | None = None  # the indent of the dated item whose sub-items are being read
    for at, block in enumerate(blocks):
        date = _DATED.match(block.plain) if block.kind in ("heading", "item") else None
        if block.kind == "heading":
            item = None
            if heading is not None and block.level <= heading:
                heading = None
            if date and heading is None:
                heading = block.level
                entries.append((_stamp(date), at, _subject(block)))
        elif block.kind == "item" and heading is None:
            if item is not None and block.level <= item:
                item = None
            if date and item is None:
                item = block.level
                entries.append((_stamp(date), at, _subject(block)))
        elif heading is None:
            item = None
        if heading is not None or item is not None:
            inside.add(at)
    if len(entries) < _ENTRIES:
        return None
    newest = sorted(entries, key=lambda e: (tuple(-n for n in e[0]), e[1]))
    subjects: list[str] = []
    for _when, _at, subject in newest:
        if subject and subject.casefold() not in {s.casefold() for s in subjects}:
            subjects.append(subject)
    texts = [at for at, b in enumerate(blocks) if b.kind not in ("heading", "code", "table")]
    held = sum(at in inside for at in texts)
    # (a file that keeps a log of recent changes below what it is about is no log)
    before = sum(size(blocks[at].plain) for at in texts if at < entries[0][1])
    return Log(frozenset(inside), tuple(subjects), held * 2 >= len(texts) and before < _PREFACE)


def _stamp(date: re.Match[str]) -> tuple[int, ...]:
    """A date and time as numbers, to order entries by."""
    return tuple(int(g) for g in date.groups() if g is not None)


def _subject(block: Block) -> str:
    """What one entry is about: its bold title, else its text up to the first clause, without a
    status (`DONE`, `TERMINÉ`) or a remark in brackets ('' when that leaves nothing)."""
    date = _DATED.match(block.plain)
    rest = block.plain[date.end() :] if date else block.plain
    bold = BOLD_LEAD.match(block.text[_text_start(block.text) :])
    if bold:
        rest = bold.group(1)
    rest = _REMARK.sub("", _SEPARATOR.sub("", rest[: 4 * _LONGEST]))
    parts = [p.strip(" *_.。,，;；") for p in _CLAUSES.split(rest)]
    kept = [p for p in parts if p and not (is_status(p) and size(p) < 3)]  # `DONE`, not `完成接口…`
    text = WS.sub(" ", kept[0] if kept else "").strip(" *_-–—.。")
    if not re.search(r"[^\W\d_]", text) or len(text) > _LONGEST:
        return ""
    return text


def _text_start(md: str) -> int:
    """Where the Markdown of an entry starts after its date."""
    date = _DATED.match(md)
    if not date:
        return 0
    after = re.match(r"[\s\-–—:：]*", md[date.end() : date.end() + 20])
    return date.end() + (after.end() if after else 0)


def log_summary(log: Log, title: str, taken: Collection[str] = frozenset()) -> str:
    """`Title: newest, older.` within MAX_TLDR, unlike every TLDR `taken` ('' if none is)."""
    title = title.rstrip(".。:：;, ")
    subjects = [s for s in log.subjects if s.casefold() != title.casefold()]
    cjk = bool(CJK_CHAR.search(title + "".join(subjects[:_MOST])))
    for n in range(min(_MOST, len(subjects)), 0, -1):
        named = ("、" if cjk else ", ").join(subjects[:n])
        text = f"{title}：{named}。" if cjk else f"{title}: {named}."
        if len(text) <= MAX_TLDR and text.casefold() not in taken:
            return text
    return ""
