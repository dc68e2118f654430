"""A TLDR for a file written only as lists: its title and the subjects of its items or sections.

A progress or context file of a memory bank is often a heading and bullets: no sentence of it
says what the file is about, and any one bullet is a fragment. What the file is about is then its
title and what its lists name: the labels (or short texts) of the first list's items, else its
section headings (`Tech Context: frontend, core libraries, testing and build tools.`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from ckp_lsp.core.format.limits import MAX_TLDR

from .structure import is_status, size
from .text import CJK_CHAR, LINK, WIKI_LINK, WS, Block, plain

_HANGUL = re.compile(r"[\uac00-\ud7af]")
_MARKS = re.compile(r"\d?[\ufe0f\u20e3]+|[\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]")
#: a bold lead (`**Safari support**: …`); its content holds no `*`, so the match is linear
BOLD_LEAD = re.compile(
    r"\s*(?:\*\*|__)([^*_\n]{1,80})(?:\*\*|__)[ \t]*(?:[(（][^()（）\n]{0,40}[)）][ \t]*)?([:：]|[-–—]\s)?"
)
# `Backend: …`, `Frontend - …`: the label before the first separator (at most 40 characters)
_LABEL_END = re.compile(r"[:：]\s|[:：]$|：|\s[-–—]\s")
_REMARK = re.compile(r"(?<!\s)\s*[(（][^()（）]{0,80}[)）]")  # from where its blanks start: linear
_NUMBERING = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3})*[.)]?|[IVX]{1,5}\.)\s+")
#: starts where the blanks before the colon start (linear on a long run of them)
_TITLE_KIND = re.compile(r"(?<!\s)\s*[:：]")
_VERSION_END = re.compile(r"(?<!\s)\s+v?\d+(?:\.\d+)+\+?$")  # `Next.js 16.0.3`: the subject is Next.js
_PERCENT = re.compile(r"(?<!\d)\d+\s*%")
_SETTING = re.compile(r"\s*`")  # a value that opens with code (`main`, `fix/30`)
#: `core/`, `src/app/`, `app.config.ts`: a place, not a subject
_PATH = re.compile(r"/?(?:[\w.-]+/)+|[\w/.-]+\.(?:md|mdc|py|tsx|mjs|json|ya?ml|toml|sh)", re.ASCII)
_DATE = re.compile(r"\d{4}[-/.年]\d{1,2}|\[[A-Z]{3} \d{4}\]")
_MOST = 4  # subjects named: enough to say what the file holds, short enough to read
_LISTS = 4  # the first lists looked at (a status list often comes first)
_COUNTED = 40  # lists in which repeated labels are counted
_RECORDS = 3  # lists that repeat one label: the form of a record (`Choice:`, `Reason:`)
_LONGEST = 40  # characters: a longer item is a sentence, not a subject


def listed(
    blocks: list[Block],
    title: str,
    taken: Collection[str] = frozenset(),
    common: Collection[str] = frozenset(),
) -> str:
    """`Title: a, b, c, d.` from the subjects of the first section's list, else of the section
    headings (not the `common` ones, case-folded: a template's), else of a later list; '' when
    none names two subjects or every such sentence is another file's TLDR (`taken`)."""
    kind = _TITLE_KIND.search(title)  # `Project Brief: Acme` is a project brief
    title = _REMARK.sub("", title[: kind.start()] if kind else title)
    if not re.search(r"[^\W_]", title):
        return ""
    for subjects in _groups(blocks, common):
        for n in range(min(_MOST, len(subjects)), len(subjects) + 1):
            text = _sentence(title, subjects[:n])
            if text and text.casefold() not in taken:
                return text
    return ""


def _groups(blocks: list[Block], common: Collection[str]) -> Iterator[list[str]]:
    """Subject lists, best first: the lists of the first section, the headings, the later lists.

    A list most of whose labels two other lists repeat (`Choice:`, `Reason:` under every
    decision) is the form of a record, not its subjects."""
    headings = [b for b in blocks if b.kind == "heading"]
    top = min((h.level for h in headings), default=1)
    first: list[list[str]] = []
    later: list[list[str]] = []
    seen: dict[str, int] = {}
    for n, (run, section) in enumerate(_runs(blocks, top, limit=_COUNTED)):
        subjects = _item_subjects(run)
        for subject in subjects or ():
            seen[subject.casefold()] = seen.get(subject.casefold(), 0) + 1
        if n >= _LISTS or subjects is None:
            continue
        if section <= 1:  # the first section's lists name its subjects together
            first[:] = [_unique([*first[0], *subjects])] if first else [subjects]
        elif len(subjects) >= 2:
            later.append(subjects)
    first = [s for s in first if len(s) >= 2]
    lists = [s for s in first + later if sum(seen[x.casefold()] >= _RECORDS for x in s) * 2 < len(s)]
    yield from (s for s in lists if any(s is f for f in first))
    rest = [s for s in lists if any(s is f for f in later)]
    for level in range(top + 1, top + 3):
        named = [h.plain for h in headings if h.level == level and heading_key(h.plain) not in common]
        subjects = _unique([_clean(h) for h in named])
        if level == top + 1 and any(is_status(h) or is_status(f"{h}:") for h in named):
            # `Done ✅`, `Status: …`: the sections of a progress file; its subjects are below them
            deeper = [h.plain for h in headings if h.level == level + 1]
            if len(_unique([_clean(h) for h in deeper])) >= 3:
                continue
            yield from rest
            rest = []
        if len(subjects) >= 2:
            yield subjects
            break
    yield from rest


def first_list(blocks: list[Block]) -> int:
    """Where the body's first list of subjects starts (a block index; len(blocks) if none)."""
    at = 0
    for run, _ in _runs(blocks, 0, limit=len(blocks)):
        while blocks[at] is not run[0]:
            at += 1
        subjects = _item_subjects(run)
        if subjects and len(subjects) >= 2:
            return at
    return len(blocks)


def _runs(blocks: list[Block], top: int, limit: int = _LISTS) -> Iterator[tuple[list[Block], int]]:
    """The first lists of a body (runs of items) and the number of the section each is in."""
    section = lists = 0
    run: list[Block] = []
    for block in [*blocks, Block("end", "")]:
        if block.kind == "item":
            run.append(block)
            continue
        if run:
            yield run, section
            lists += 1
            run = []
        if lists >= limit:
            return
        if block.kind == "heading" and block.level == top + 1:
            section += 1


def _item_subjects(run: list[Block]) -> list[str] | None:
    """The subjects of one list's top items; None when the list is a status list."""
    margin = min(b.level for b in run)
    found = []
    values = 0  # items that are a label and a setting's value
    for block in run:
        if block.level != margin:
            continue
        if _PERCENT.search(block.plain[:_LONGEST]) and size(block.plain) < 12:
            return None  # `Overall progress: about 60%`: where the work stands, not what it is
        bold = BOLD_LEAD.match(block.text)
        values += bool(bold and bold.group(2) and _SETTING.match(block.text, bold.end()))
        found.append(subject_of(block))
    if values >= 2 and values * 2 >= len(found):
        return None  # `**Branch**: `main``, `**Base**: `dev``: a snapshot of settings, no subjects
    return _unique(found)


def heading_key(heading: str) -> str:
    """A heading as files of one template share it: without marks, numbering and case."""
    return _clean(heading).casefold()


def subject_of(block: Block) -> str:
    """What one list item is about: its bold or `label:` lead, else its text when short ('');
    a link alone names another place, not a subject."""
    if LINK.fullmatch(block.text.strip()) or WIKI_LINK.fullmatch(block.text.strip()):
        return ""
    bold = BOLD_LEAD.match(block.text)
    if bold and _clean(bold.group(1)):
        return _clean(bold.group(1))
    text = plain(block.text)
    label = _LABEL_END.search(text[: _LONGEST + 2])
    if label and _clean(text[: label.start()]):
        return _clean(text[: label.start()])
    if label and is_status(text[: label.start()]) and re.search(r"\d", text[: label.start()]):
        text = text[label.end() :]  # `TASK001 done: the three-layer refactor`: the work is the subject
    elif label:
        return ""
    return _clean(text) if size(_REMARK.sub("", text[: 4 * _LONGEST])) <= 8 else ""


def _clean(text: str) -> str:
    """A subject without marks, numbering, remarks in brackets or end punctuation ('' if none)."""
    if len(text) > 4 * _LONGEST:
        return ""  # a sentence, not a subject (and no pattern runs over a long text)
    text = WS.sub(" ", _MARKS.sub(" ", text)).strip()
    text = _VERSION_END.sub("", _REMARK.sub("", _NUMBERING.sub("", text)))
    text = re.split(r"[:：]", text, maxsplit=1)[0].strip(" *_-–—:：.。,，;；·")
    if (
        not re.search(r"[^\W\d_]", text)
        or len(text) > _LONGEST
        or is_status(text)
        or _DATE.search(text)
        or _PATH.fullmatch(text)
        or "·" in text
    ):
        return ""
    return text


def _unique(subjects: list[str]) -> list[str]:
    """The subjects that say something, each once (case-folded), in order."""
    seen: set[str] = set()
    kept = []
    for subject in subjects:
        if subject and subject.casefold() not in seen:
            seen.add(subject.casefold())
            kept.append(subject)
    return kept


def _sentence(title: str, subjects: list[str]) -> str:
    """`Title: a, b, c.` (`Title：a、b、c。` in Chinese and Japanese), within MAX_TLDR ('' when it
    cannot fit). Commas, not a word for `and`, read right in every language."""
    title = title.rstrip(".。:：;, ")
    subjects = [s for s in subjects if s.casefold() != title.casefold()]
    cjk = bool(CJK_CHAR.search(title + "".join(subjects))) and not _HANGUL.search(title)
    while len(subjects) >= 2:
        text = f"{title}：{'、'.join(subjects)}。" if cjk else f"{title}: {', '.join(subjects)}."
        if len(text) <= MAX_TLDR:
            return text
        subjects = subjects[:-1]
    return ""
