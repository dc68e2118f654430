"""What lies under a cursor in a knowledge file's header: a field name, the concept, a keyword or
a relationship entry."""

from __future__ import annotations

from dataclasses import dataclass

from ckp_lsp.core.format.fields import Field, Item, Relationship
from ckp_lsp.core.format.knowledge import KnowledgeFile


@dataclass(frozen=True)
class At:
    """The thing at a position. ``kind`` is one of key, concept, keyword, relationship, value."""

    kind: str
    field: Field
    item: Item | None = None
    relationship: Relationship | None = None


def at(kf: KnowledgeFile, line: int, col: int) -> At | None:
    """The header element at (line, UTF-16 col), or None outside the header's fields."""
    header = kf.header
    if header is None:
        return None
    for f in header.fields:
        if f.key_span.contains(line, col) and f.key_span.start_line == line:
            return At("key", f)
        if not (f.line <= line <= max(f.value_span.end_line, f.line)):
            continue
        for item in f.items:
            if item.span.contains(line, col):
                return _item(kf, f, item)
        if f.value_span.contains(line, col):
            return At("value", f)
    return None


def _item(kf: KnowledgeFile, f: Field, item: Item) -> At:
    if f.key == "CONCEPT":
        return At("concept", f, item)
    if f.key == "ANSWERS_WHEN":
        return At("keyword", f, item)
    if f.key in ("SIMILAR_HIGH", "SIMILAR_MID"):
        rel = next((r for r in kf.relationships if r.span == item.span), None)
        if rel is not None:
            return At("relationship", f, item, rel)
    return At("value", f, item)


def concept_at(kf: KnowledgeFile, line: int, col: int) -> str | None:
    """The concept named at a position: the file's own CONCEPT or a relationship's target."""
    found = at(kf, line, col)
    if found is None:
        return None
    if found.kind == "concept":
        return kf.concept
    if found.relationship is not None:
        return found.relationship.concept
    return None
