"""Hover in a header: a relationship's target and tier, who relates to the concept, what a field
means, which other concepts claim a keyword, what a date means and whether it made anything
stale; and on an ``_index.md`` row, the file it stands for.

Every answer reads the bank's indexes (``by_concept``, ``backlinks``, ``claims``), never a scan of
its files, so hovering stays instant on large banks.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.dates import parse_date
from ckp_lsp.core.format.field_docs import FIELD_DOCS, TIER_MEANING
from ckp_lsp.core.format.fields import Relationship
from ckp_lsp.core.format.index import index_lines, row_at
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.limits import CLAIM_LIMIT
from ckp_lsp.core.format.suggest import closest
from ckp_lsp.core.format.text import Span, utf16_len, visible_controls
from ckp_lsp.core.navigation.locate import at
from ckp_lsp.core.navigation.references import bank_file
from ckp_lsp.core.project.discovery import INDEX_NAME

from ..convert import doc_url, to_range

#: how many related files or claimers a hover lists before "… and N more"
LISTED = 20
_STALENESS_WORD = {"validated": "validated", "git": "last committed", "mtime": "modified"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")
#: findings (code, span) an editor shows in its hover next to the server's
Shown = frozenset[tuple[str, Span]]


def field_markdown(key: str) -> str:
    """Markdown explaining a CKP field: its meaning, value and limits."""
    doc = FIELD_DOCS[key]
    parts = [f"**{key}** — {doc.need}", doc.meaning, f"Value: {doc.value}"]
    if doc.limits:
        parts.append(f"Limits: {doc.limits}")
    parts.append(f"[Reference]({doc_url(key)})")
    return "\n\n".join(parts)


def hover(
    bank: Bank, kf: KnowledgeFile, line: int, col: int, shown: Shown = frozenset()
) -> types.Hover | None:
    """The hover at (line, UTF-16 col) of ``kf``'s header, or None where there is nothing to say.

    ``shown``: the findings (code, span) the editor shows in its hover next to this one: what
    they say is not said again.
    """
    found = at(kf, line, col)
    if found is None:
        return None
    if found.kind == "key":
        return _hover(_key_markdown(found.field.key), found.field.key_span)
    if found.item is None:
        return None
    if found.kind == "relationship" and found.relationship is not None:
        rel = found.relationship
        said = ("CKP050", rel.span) in shown
        if rel.date_span is not None and rel.date_span.contains(line, col):
            return _hover(_entry_date_markdown(bank, kf, rel, said), rel.date_span)
        return _hover(_relationship_markdown(bank, kf, rel, said), found.item.span)
    if found.kind == "value" and found.field.key == "VALIDATED":
        return _hover(_validated_markdown(bank, kf), found.item.span)
    if found.kind == "concept" and kf.concept:
        return _hover(_concept_markdown(bank, kf, kf.concept), found.item.span)
    if found.kind == "keyword":
        return _hover(_keyword_markdown(bank, kf, found.item.text), found.item.span)
    return None


def hover_in(bank: Bank, rel: str, line: int, col: int, shown: Shown = frozenset()) -> types.Hover | None:
    """The hover at (line, UTF-16 col) of the bank's file ``rel``: a knowledge file or the index."""
    if rel == INDEX_NAME:
        return index_hover(bank, line, col)
    kf = bank.files.get(rel)
    return hover(bank, kf, line, col, shown) if kf is not None else None


def index_hover(bank: Bank, line: int, col: int) -> types.Hover | None:
    """On a row of ``_index.md``: the file it stands for, its TLDR, and whether the row is current."""
    text = bank.index_text
    row = row_at(text, line) if text is not None else None
    if row is None or not row.concept:
        return None
    span = Span(line, 0, line, utf16_len(index_lines(text or "")[line]))
    declared = bank.file_of(row.concept)
    named = bank_file(bank, row.file) if row.file else None
    target = named or declared
    head = f"**{escape(row.concept)}** — index row"
    if target is None:
        return _hover(
            f"{head}\n\nNo file of the bank declares `{row.concept}`: regenerate the index.",
            span,
        )
    facts = [link_from(INDEX_NAME, target)]
    if target.confidence:
        facts.append(f"CONFIDENCE {escape(target.confidence)}")
    if target.validated_text:
        facts.append(f"VALIDATED {escape(target.validated_text)}")
    parts = [head, escape(target.tldr) if target.tldr else "_(no TLDR)_", " · ".join(facts)]
    if target.concept != row.concept:
        parts.append(
            f"{escape(target.path)} declares `{target.concept}`, not `{row.concept}`: regenerate the index."
        )
    return _hover("\n\n".join(parts), span)


def _entry_date_markdown(bank: Bank, kf: KnowledgeFile, rel: Relationship, said: bool = False) -> str:
    """An entry's date: when the relationship was last validated, and whether it is stale now."""
    date = escape(rel.date_text or "")
    parts = [
        f"**{date}** — when this relationship to `{rel.concept}` (SIMILAR_{rel.tier}) was last "
        "validated: someone checked then that the two belong together in this tier."
    ]
    target = bank.file_of(rel.concept)
    if rel.date is None:
        parts.append("This is not a valid date: write `YYYY-MM` or `YYYY-MM-DD`.")
    elif bank.today is not None and rel.date.is_after(bank.today):
        parts.append("This date is in the future: use this month or an earlier one.")
    elif target is None:
        parts.append(f"No file of the bank declares `{rel.concept}`.")
    else:
        updated = bank.updated_date(target)
        source = _STALENESS_WORD.get(bank.staleness_source, "updated")
        if updated is None:
            parts.append(f"`{rel.concept}` has no date of its own, so this cannot go stale.")
        elif updated.is_after(rel.date) and said:  # the editor shows CKP050's message with it
            parts.append(f"Re-read {link(kf, target)} and re-validate the relationship (quick fix).")
        elif updated.is_after(rel.date):
            parts.append(
                f"⚠️ **Stale**: `{rel.concept}` was {source} on **{updated}**, after this date: re-read "
                f"{link(kf, target)} and re-validate the relationship (quick fix)."
            )
        else:
            parts.append(f"Current: `{rel.concept}` was last {source} on {updated}, not after this date.")
    parts.append(f"[Dates and staleness]({doc_url('dates-and-staleness')})")
    return "\n\n".join(parts)


def _validated_markdown(bank: Bank, kf: KnowledgeFile) -> str:
    """VALIDATED: what it means, and which relationships to this file it makes stale."""
    date = escape(kf.validated_text)
    parts = [f"**{date}** — when this header was last checked against its body (VALIDATED)."]
    written = parse_date(kf.validated_text)
    if written is None:
        parts.append("This is not a valid date: write `YYYY-MM` or `YYYY-MM-DD`.")
    elif bank.today is not None and written.is_after(bank.today):
        parts.append("This date is in the future: use this month or an earlier one.")
    elif kf.concept:
        updated = bank.updated_date(kf)
        stale: list[KnowledgeFile] = []
        for path in bank.backlinks.get(kf.concept, ()):
            other = bank.files.get(path)
            if other is None or path == kf.path:
                continue
            if updated is not None and any(
                concept == kf.concept and date is not None and updated.is_after(date)
                for concept, _tier, _text, date in other.relations
            ):
                stale.append(other)
        if bank.staleness_source != "validated" and updated is not None:
            source = _STALENESS_WORD.get(bank.staleness_source, "updated")
            parts.append(f"Staleness is measured by the file's {source} date here: {updated}.")
        if stale:
            stale.sort(key=lambda f: (f.concept or "", f.path))
            n = len(stale)
            parts.append(
                f"⚠️ {n} file{'s' * (n != 1)} relate{'s' * (n == 1)} to `{kf.concept}` with an earlier "
                f"date, so {'those relationships are' if n != 1 else 'that relationship is'} stale: "
                f"{_listing(kf, stale)}"
            )
        else:
            parts.append(f"No relationship to `{kf.concept}` is dated earlier: none is stale.")
    parts.append(f"[Dates and staleness]({doc_url('dates-and-staleness')})")
    return "\n\n".join(parts)


def _hover(markdown: str, span: Span) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
        range=to_range(span),
    )


def escape(text: str) -> str:
    """``text`` with control characters made visible and Markdown's special characters escaped."""
    return _MD_SPECIAL.sub(r"\\\1", visible_controls(text))


def link(kf: KnowledgeFile, target: KnowledgeFile) -> str:
    """A Markdown link from ``kf`` to ``target``, relative to ``kf``'s folder."""
    return link_from(kf.path, target)


def link_from(source: str, target: KnowledgeFile) -> str:
    """A Markdown link from the bank file ``source`` to ``target``, relative to ``source``'s folder."""
    return f"[{escape(target.path)}]({quote(relative(source, target.path))})"


def relative(source: str, target: str) -> str:
    """Bank-relative POSIX path ``target`` as seen from the folder of ``source``."""
    here = source.split("/")[:-1]
    there = target.split("/")
    common = 0
    while common < min(len(here), len(there) - 1) and here[common] == there[common]:
        common += 1
    return "/".join([".."] * (len(here) - common) + there[common:])


def _key_markdown(key: str) -> str:
    if key in FIELD_DOCS:
        return field_markdown(key)
    guess = closest(key, tuple(FIELD_DOCS))
    hint = f" Did you mean **{guess}**?" if guess else ""
    return f"**{escape(key)}** is not a CKP field: agents and tools ignore it.{hint}"


def suggest(bank: Bank, concept: str) -> str | None:
    """The concept of the bank closest to ``concept``: the one CKP041 suggests."""
    return bank.suggest(concept)


def _relationship_markdown(bank: Bank, kf: KnowledgeFile, rel: Relationship, said: bool = False) -> str:
    tier_line = f"**SIMILAR_{rel.tier}** — {TIER_MEANING[rel.tier]}."
    if kf.concept is not None and rel.concept == kf.concept:
        return f"**{escape(rel.concept)}** is this file's own concept: a file cannot relate to itself.\n\n{tier_line}"
    target = bank.file_of(rel.concept)
    if target is None:
        guess = suggest(bank, rel.concept)
        hint = f"Did you mean **{escape(guess)}**?" if guess else "Create it or remove the entry."
        return f"**{escape(rel.concept)}** — no such concept in this bank. {hint}\n\n{tier_line}"
    facts = [link(kf, target)]
    if target.confidence:
        facts.append(f"CONFIDENCE {escape(target.confidence)}")
    if target.validated_text:
        facts.append(f"VALIDATED {escape(target.validated_text)}")
    parts = [
        f"**{escape(rel.concept)}**",
        escape(target.tldr) if target.tldr else "_(no TLDR)_",
        " · ".join(facts),
        tier_line,
    ]
    if rel.date is None:
        parts.append("This relationship has no date: add `:YYYY-MM`, the month it was validated.")
    else:
        updated = bank.updated_date(target)
        if updated is not None and updated.is_after(rel.date) and said:
            pass  # stale: the editor shows CKP050's message in the same hover
        elif updated is not None and updated.is_after(rel.date):
            source = _STALENESS_WORD.get(bank.staleness_source, "updated")
            # A reference link: the URL on a line of its own, where an editor that shows the
            # Markdown as text (Neovim 0.7) does not wrap the sentence around it.
            parts.append(
                f"⚠️ **Stale**: `{rel.concept}` was {source} on **{updated}**, after this relationship "
                f"was validated (**{rel.date_text}**): re-read it and re-validate the relationship, "
                f"see [CKP050].\n\n[CKP050]: {doc_url('CKP050')}"
            )
        else:
            parts.append(f"Relationship validated {escape(rel.date_text or '')}.")
    return "\n\n".join(parts)


def _listing(kf: KnowledgeFile, files: list[KnowledgeFile], total: int | None = None) -> str:
    """Concepts with links to their files; ``total`` counts those beyond ``files`` too."""
    shown = [f"{escape(f.concept or f.path)} ({link(kf, f)})" for f in files[:LISTED]]
    total = len(files) if total is None else total
    more = f", … and {total - len(shown)} more" if total > len(shown) else ""
    return ", ".join(shown) + more


def _concept_markdown(bank: Bank, kf: KnowledgeFile, concept: str) -> str:
    tiers: dict[str, list[KnowledgeFile]] = {"HIGH": [], "MID": []}
    for path in bank.backlinks.get(concept, ()):
        other = bank.files.get(path)
        if other is None or path == kf.path:
            continue
        for tier in {r[1] for r in other.relations if r[0] == concept}:
            tiers[tier].append(other)
    for files in tiers.values():
        files.sort(key=lambda f: (f.concept or "", f.path))
    high, mid = len(tiers["HIGH"]), len(tiers["MID"])
    parts = [f"**{escape(concept)}** — related by {high} file{'s' * (high != 1)} as HIGH and {mid} as MID"]
    for tier, files in tiers.items():
        if files:
            parts.append(f"{tier} ({len(files)}): {_listing(kf, files)}")
    if not high and not mid:
        parts.append("No other file relates to it yet.")
    twins = [p for p in bank.by_concept.get(concept, ()) if p != kf.path]
    if twins:
        parts.append(f"Also declared by {', '.join(escape(p) for p in twins)}: concepts must be unique.")
    return "\n\n".join(parts)


def _keyword_markdown(bank: Bank, kf: KnowledgeFile, keyword: str) -> str:
    others = [path for _, path in bank.claimants(keyword.casefold()) if path != kf.path]
    head = f"**{escape(keyword)}** — keyword of ANSWERS_WHEN"
    if not others:
        return f"{head}\n\nNo other concept claims it: a query with it routes here."
    n = len(others)
    first = [bank.files[p] for p in others[:LISTED]]
    parts = [head, f"Also claimed by {n} other concept{'s' * (n != 1)}: {_listing(kf, first, n)}"]
    if n >= CLAIM_LIMIT:
        parts.append("Routing on it is ambiguous: prefer a more specific keyword.")
    return "\n\n".join(parts)
