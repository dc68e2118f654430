"""Completion in a header: concepts in SIMILAR_HIGH / SIMILAR_MID, field names, CONFIDENCE values
and the current month.

The cursor line is often unparseable while it is typed, so the context comes from the document's
lines and the position, not from the parsed header. Concepts come from the bank's sorted list of
them (``Bank.concepts``, kept up to date by the bank): a prefix search with ``bisect`` first, fuzzy
matching only for what is left.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types
from rapidfuzz import fuzz, process

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.fields import (
    BARE_KEY,
    CKP_FIELDS,
    CONCEPT_RE,
    CONFIDENCES,
    TIER_FIELDS,
    TYPED_KEY,
    bare_header_end,
)
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.text import index_of_utf16, span_of, visible_controls

from ..convert import to_range
from .hover import field_markdown

#: most concepts offered at once; the list is marked incomplete beyond it
LIMIT = 25
#: lowest rapidfuzz ratio (0-100) of a fuzzy match
FUZZY_CUTOFF = 60
#: banks with more concepts look for typos only among names sharing the first letter
_FUZZY_ALL = 2000

_LIST_ITEM = re.compile(r"[ \t]*-(?:[ \t]+|$)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SEPARATORS = frozenset(",[]\"' \t")
_VALUE_SPLIT = re.compile(r"[,\[\]\"']+")
_LAST = "\U0010ffff"
#: up to this many prefix matches are each ranked by keyword overlap; more go through the claims
_RANK_ALL = 200


# --- the concept index ------------------------------------------------------------------------


def _valid(name: str) -> bool:
    """Whether a declared name can be written into an entry (a display name, CKP010, cannot)."""
    return CONCEPT_RE.match(name) is not None


def _fuzzy_pool(names: list[str], query: str) -> list[str]:
    """The valid names of ``names`` (sorted) that may reach FUZZY_CUTOFF against ``query``.

    ``ratio`` needs the two lengths close. On a large bank, only the names sharing the query's
    first letter are compared too (typos rarely hit it), to keep completion within milliseconds.
    """
    stretch = 200 / FUZZY_CUTOFF - 1
    low, high = len(query) / stretch, len(query) * stretch
    lo, hi = 0, len(names)
    if hi > _FUZZY_ALL:
        lo = bisect_left(names, query[:1])
        hi = bisect_left(names, query[:1] + _LAST, lo)
    return [n for n in names[lo:hi] if low <= len(n) <= high and _valid(n)]


# --- where the cursor is ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Region:
    """The header's lines [start, end) as the text stands, whether or not it parses."""

    start: int
    end: int
    frontmatter: bool

    def __contains__(self, line: int) -> bool:
        return self.start <= line < self.end


def _region(lines: list[str]) -> _Region:
    if lines and lines[0].rstrip() == "---":
        close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), len(lines))
        return _Region(1, close, True)
    return _Region(0, bare_header_end(lines), False)


def _key_of(text: str, frontmatter: bool) -> re.Match[str] | None:
    return (TYPED_KEY if frontmatter else BARE_KEY).match(text)


def _owner(lines: list[str], region: _Region, line: int) -> tuple[str, int] | None:
    """The key whose value is on ``line`` and the index where that value starts on it."""
    text = lines[line]
    m = _key_of(text, region.frontmatter)
    if m is not None:
        return m.group(1), m.end()
    if not region.frontmatter:
        return None
    item = _LIST_ITEM.match(text)
    if item is None and not text[:1].isspace():
        return None
    start = item.end() if item is not None else len(text) - len(text.lstrip())
    for i in range(line - 1, region.start - 1, -1):
        m = _key_of(lines[i], True)
        if m is not None:
            return m.group(1), start
        if lines[i].strip() and not lines[i][:1].isspace() and not _LIST_ITEM.match(lines[i]):
            return None
    return None


def _values(lines: list[str], region: _Region, skip: tuple[int, int, int]) -> dict[str, list[str]]:
    """Every value piece of every key in the header, the token at ``skip`` (line, start, end) left out."""
    out: dict[str, list[str]] = {}
    key: str | None = None
    for i in range(region.start, region.end):
        text = lines[i]
        m = _key_of(text, region.frontmatter)
        if m is not None:
            key, start = m.group(1), m.end()
        elif region.frontmatter and key is not None and (text[:1].isspace() or _LIST_ITEM.match(text)):
            item = _LIST_ITEM.match(text)
            start = item.end() if item is not None else 0
        else:
            key = None
            continue
        if i == skip[0]:
            text = text[: skip[1]] + " " + text[skip[2] :]
        pieces = (p.strip() for p in _VALUE_SPLIT.split(text[start:]))
        out.setdefault(key, []).extend(p for p in pieces if p)
    return out


# --- completion -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    """The word being completed: ``text[start:end]`` of a line, the cursor at ``cur``."""

    line: int
    text: str
    start: int
    cur: int
    end: int
    value_start: int

    @property
    def typed(self) -> str:
        return self.text[self.start : self.cur]

    def pad(self, after_comma: bool = False) -> str:
        """A space to put before the value: right after ``KEY:``, a list's ``-`` or a comma."""
        before = self.text[self.start - 1] if self.start > 0 else ""
        if self.start == self.value_start and before in (":", "-"):
            return " "
        return " " if after_comma and before == "," else ""

    def range(self, start: int | None = None) -> types.Range:
        a = self.start if start is None else start
        return to_range(span_of(self.line, self.text, a, self.end))


def _token(text: str, line: int, cur: int, value_start: int) -> _Token:
    start, end = cur, cur
    while start > value_start and text[start - 1] not in _SEPARATORS:
        start -= 1
    while end < len(text) and text[end] not in _SEPARATORS:
        end += 1
    return _Token(line, text, start, cur, end, value_start)


def complete(
    bank: Bank,
    kf: KnowledgeFile | None,
    lines: list[str],
    line: int,
    col: int,
    today_month: str,
    resolves: bool = False,
) -> types.CompletionList:
    """Completions at (line, UTF-16 col) of a knowledge file whose text is ``lines``.

    With ``resolves`` (the client asks ``completionItem/resolve`` for documentation), a concept's
    TLDR is left to ``resolve``: a list of many concepts is then a fraction of the bytes.
    """
    empty = types.CompletionList(is_incomplete=False, items=[])
    if not 0 <= line < len(lines):
        return empty
    text = lines[line]
    cur = index_of_utf16(text, col)
    region = _region(lines)
    at_key_start = line in region or (not region.frontmatter and line == region.end)
    if at_key_start and _is_key_word(text, cur):
        return _field_names(lines, region, line)
    owner = _owner(lines, region, line) if line in region else None
    if owner is None or cur < owner[1]:
        return empty
    key, value_start = owner
    token = _token(text, line, cur, value_start)
    if key in TIER_FIELDS:
        typed = token.typed
        if ":" in typed:  # the date of an entry
            date_start = token.start + typed.index(":") + 1
            edit = types.TextEdit(range=token.range(date_start), new_text=today_month)
            return _items([_month(today_month, edit)])
        values = _values(lines, region, (line, token.start, token.end))
        rng, pad = token.range(), token.pad(after_comma=True)
        return _concepts(
            bank,
            kf,
            values,
            typed,
            lambda name: types.TextEdit(range=rng, new_text=f"{pad}{name}:{today_month}"),
            resolves,
        )
    if key == "CONFIDENCE":
        rng, pad = token.range(), token.pad()
        choices = [
            types.CompletionItem(
                label=c,
                kind=types.CompletionItemKind.EnumMember,
                sort_text=str(i),
                text_edit=types.TextEdit(range=rng, new_text=pad + c),
            )
            for i, c in enumerate(CONFIDENCES)
        ]
        return _items(choices)
    if key == "VALIDATED":
        edit = types.TextEdit(range=token.range(), new_text=token.pad() + today_month)
        return _items([_month(today_month, edit)])
    return empty


def _is_key_word(text: str, cur: int) -> bool:
    """Whether the cursor is on a lone word at the start of a line, where a field name goes."""
    word = _WORD.match(text)
    end = word.end() if word is not None else 0
    return cur <= end and not text[end:].strip()


def _items(items: list[types.CompletionItem], incomplete: bool = False) -> types.CompletionList:
    return types.CompletionList(is_incomplete=incomplete, items=items)


def _month(month: str, edit: types.TextEdit) -> types.CompletionItem:
    return types.CompletionItem(
        label=month,
        kind=types.CompletionItemKind.Constant,
        detail="the current month",
        text_edit=edit,
    )


def _field_names(lines: list[str], region: _Region, line: int) -> types.CompletionList:
    present = set()
    last = region.end
    if not region.frontmatter and line == region.end:
        last = bare_header_end(lines, line + 1)
    for i in range(region.start, last):
        m = _key_of(lines[i], region.frontmatter)
        if m is not None and i != line:
            present.add(m.group(1))
    text = lines[line]
    word = _WORD.match(text)
    rng = to_range(span_of(line, text, 0, word.end() if word is not None else 0))
    return _items(
        [
            types.CompletionItem(
                label=key,
                kind=types.CompletionItemKind.Field,
                documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=field_markdown(key)),
                sort_text=f"{i}",
                text_edit=types.TextEdit(range=rng, new_text=f"{key}: "),
            )
            for i, key in enumerate(CKP_FIELDS)
            if key not in present
        ]
    )


def _concepts(
    bank: Bank,
    kf: KnowledgeFile | None,
    values: dict[str, list[str]],
    token: str,
    edit_for: Callable[[str], types.TextEdit],
    resolves: bool = False,
) -> types.CompletionList:
    """Concepts matching ``token``: prefix matches first, then fuzzy ones, each by keyword overlap."""
    names = bank.concepts()
    query = token.casefold()
    excluded = {p.split(":", 1)[0] for key in TIER_FIELDS for p in values.get(key, ())}
    excluded.update(values.get("CONCEPT", ())[:1])
    if kf is not None and kf.concept:
        excluded.add(kf.concept)
    own = {k.casefold() for k in _keywords(kf, values)}

    # Keywords shared with each file, counted once through the bank's claims (most keywords are
    # one file's own) rather than file by file for every candidate.
    overlap: Counter[str] = Counter()
    for keyword in own:
        overlap.update(bank.claims.get(keyword, ()))

    def shared(name: str) -> int:
        paths = bank.by_concept.get(name)
        return overlap[paths[0]] if paths else 0

    lo = bisect_left(names, query)
    hi = bisect_left(names, query + _LAST, lo)
    capped = hi - lo - sum(1 for e in excluded if e.startswith(query)) > LIMIT
    if hi - lo <= _RANK_ALL:
        found = [n for n in names[lo:hi] if n not in excluded and _valid(n)]
        capped = len(found) > LIMIT
        prefixed = sorted(found, key=lambda n: (n != query, -shared(n), n))[:LIMIT]
    else:
        prefixed = _best_by_overlap(bank, names, lo, hi, query, own, excluded)
    inside: list[str] = []
    if not capped and len(prefixed) < LIMIT and query:
        # Then the names holding what was typed elsewhere (``istat`` → ``mentat-istat``, ``hub`` →
        # ``travelguidehub``), as workspace symbols match; a word of the name starting with it first.
        taken = excluded.union(prefixed)
        held = [n for n in names if query in n and not n.startswith(query) and n not in taken and _valid(n)]
        held.sort(key=lambda n: (not _starts_a_word(n, query), -shared(n), n))
        inside = held[: LIMIT - len(prefixed)]
    fuzzy: list[str] = []
    if not capped and len(prefixed) + len(inside) < LIMIT and len(query) >= 2:
        taken = excluded.union(prefixed, inside)
        hits = process.extract(
            query,
            _fuzzy_pool(names, query),
            scorer=fuzz.ratio,
            score_cutoff=FUZZY_CUTOFF,
            limit=LIMIT + len(taken),
        )
        ranked = sorted(
            ((round(score), name) for name, score, _ in hits if name not in taken),
            key=lambda sn: (-sn[0], -shared(sn[1]), sn[1]),
        )
        fuzzy = [name for _, name in ranked[: LIMIT - len(prefixed) - len(inside)]]
    items = []
    for rank, name in enumerate([*prefixed, *inside, *fuzzy]):
        target = bank.file_of(name)
        items.append(
            types.CompletionItem(
                label=visible_controls(name),
                kind=types.CompletionItemKind.Reference,
                detail=visible_controls(target.path) if target is not None else None,
                documentation=None if resolves else _tldr(target),
                sort_text=f"{rank:04d}",
                # A match inside the name or a fuzzy one does not start with what was typed: let
                # the client keep it anyway.
                filter_text=token if rank >= len(prefixed) else name,
                text_edit=edit_for(name),
                data={"bank": str(bank.root), "concept": name} if resolves else None,
            )
        )
    return _items(items, incomplete=capped or bool(inside) or bool(fuzzy))


def _starts_a_word(name: str, query: str) -> bool:
    """Whether ``query`` starts a word of ``name`` (after ``-``, ``.`` or ``_``)."""
    return any(name.startswith(query, i + 1) for i, c in enumerate(name) if c in "-._")


def resolve(bank: Bank | None, item: types.CompletionItem) -> types.CompletionItem:
    """``item`` with the documentation that ``complete`` left out: its concept's TLDR."""
    data = item.data
    if bank is not None and isinstance(data, dict) and isinstance(data.get("concept"), str):
        item.documentation = _tldr(bank.file_of(data["concept"]))
    return item


def _tldr(target: KnowledgeFile | None) -> types.MarkupContent:
    """The TLDR as plain text: a sentence, which a completion menu that shows Markdown as it is
    written (Neovim's) would otherwise show with its escapes and emphasis marks."""
    tldr = target.tldr if target is not None and target.tldr else "(no TLDR)"
    return types.MarkupContent(kind=types.MarkupKind.PlainText, value=visible_controls(tldr))


def _keywords(kf: KnowledgeFile | None, values: dict[str, list[str]]) -> list[str]:
    if kf is not None and kf.keyword_texts:
        return kf.keyword_texts
    return values.get("ANSWERS_WHEN", [])


def _best_by_overlap(
    bank: Bank, names: list[str], lo: int, hi: int, query: str, own: set[str], excluded: set[str]
) -> list[str]:
    """LIMIT of many prefix matches: the exact one, those sharing most keywords, then alphabetically.

    Overlap is counted through the bank's keyword claims; then whichever is smaller is walked, the
    prefix matches or the files sharing a keyword (most-sharing first, until LIMIT match).
    """
    overlap: Counter[str] = Counter()
    for keyword in own:
        overlap.update(bank.claims.get(keyword, ()))
    if hi - lo <= len(overlap):
        by_concept = bank.by_concept
        scored = (
            (-overlap.get(by_concept[n][0], 0), n) for n in names[lo:hi] if n not in excluded and _valid(n)
        )
        out = [n for _, n in heapq.nsmallest(LIMIT, scored)]
    else:
        out = []
        files = bank.files
        for path, _ in overlap.most_common():
            if len(out) >= LIMIT:
                break
            other = files.get(path)
            name = other.concept if other is not None else None
            if name and name.startswith(query) and name not in excluded and CONCEPT_RE.match(name):
                out.append(name)
        out = list(dict.fromkeys(out))
        seen = set(out)
        i = lo
        while len(out) < LIMIT and i < hi:
            if names[i] not in excluded and names[i] not in seen and _valid(names[i]):
                out.append(names[i])
            i += 1
    exact = lo < hi and names[lo] == query and query not in excluded and _valid(query)
    if exact and (not out or out[0] != query):
        out = [query, *(n for n in out if n != query)][:LIMIT]
    return out
