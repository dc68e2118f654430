"""What a rewrite changes in a header, in a few words: ``TLDR, +2 −1 keywords, −1 MID``.

A recompile's code action says this in its title, so the user knows what accepting it does before
accepting it; with names (``+2 keywords (RS256, JWKS)``) the CLI, the editor's message and the MCP
answer say what was added or removed.
"""

from __future__ import annotations

from typing import Any

from ckp_lsp.core.format.knowledge import KnowledgeFile, read_knowledge_file

MINUS = "\u2212"  # typographic minus: "−1 MID" reads as a count, "-1 MID" as a dash


def header_changes(old: KnowledgeFile, new: KnowledgeFile, names: bool = False) -> list[str]:
    """The changes from ``old``'s header to ``new``'s, field by field in header order; with
    ``names`` the keywords and concepts added or removed are named."""
    out: list[str] = []
    if old.concept != new.concept:
        out.append("CONCEPT")
    if old.tldr != new.tldr:
        out.append("TLDR")
    out += _counted(old.keyword_texts, new.keyword_texts, "keyword", names=names)
    redated = 0
    for tier in ("HIGH", "MID"):
        before = {c: d for c, t, d, _ in old.relations if t == tier}
        after = {c: d for c, t, d, _ in new.relations if t == tier}
        out += _counted(list(before), list(after), tier, plural=False, names=names)
        redated += sum(1 for c in before.keys() & after.keys() if before[c] != after[c])
    if redated:
        out.append(f"{redated} relationship date{'s' * (redated != 1)}")
    if old.confidence.lower() != new.confidence.lower():
        out.append("CONFIDENCE")
    if old.validated_text != new.validated_text:
        out.append("VALIDATED")
    return out


def describe(old_text: str, new_text: str, path: str = "file.md", names: bool = False) -> str:
    """``header_changes`` of two texts of one file, joined (``"no change"`` when there is none)."""
    changes = header_changes(read_knowledge_file(path, old_text), read_knowledge_file(path, new_text), names)
    return ", ".join(changes) if changes else "no change"


def header_diff(old_text: str, new_text: str, path: str = "file.md") -> dict[str, Any]:
    """What a rewrite changed, as data (for an agent): the keywords and relationships added and
    removed, and the new value of every other field that changed."""
    old, new = read_knowledge_file(path, old_text), read_knowledge_file(path, new_text)
    out: dict[str, Any] = {"added": {}, "removed": {}, "updated": {}}
    pairs = {"ANSWERS_WHEN": (old.keyword_texts, new.keyword_texts)}
    for tier in ("HIGH", "MID"):
        pairs[f"SIMILAR_{tier}"] = (
            [c for c, t, _, _ in old.relations if t == tier],
            [c for c, t, _, _ in new.relations if t == tier],
        )
    for field, (before, after) in pairs.items():
        added, removed = _difference(before, after), _difference(after, before)
        if added:
            out["added"][field] = added
        if removed:
            out["removed"][field] = removed
    for field, a, b in (
        ("CONCEPT", old.concept or "", new.concept or ""),
        ("TLDR", old.tldr, new.tldr),
        ("CONFIDENCE", old.confidence.lower(), new.confidence.lower()),
        ("VALIDATED", old.validated_text, new.validated_text),
    ):
        if a != b:
            out["updated"][field] = b
    return out


def _difference(base: list[str], other: list[str]) -> list[str]:
    """The items of ``other`` that ``base`` lacks (case-folded), in ``other``'s order."""
    seen = {item.casefold() for item in base}
    return [item for item in other if item.casefold() not in seen]


def _counted(
    before: list[str], after: list[str], noun: str, plural: bool = True, names: bool = False
) -> list[str]:
    """``+2 −1 keywords``: how many items were added and removed (order alone is no change); with
    ``names``, ``+2 keywords (RS256, JWKS)``."""
    added = _difference(before, after)
    removed = _difference(after, before)
    if not added and not removed:
        return []
    counts = " ".join(([f"+{len(added)}"] if added else []) + ([f"{MINUS}{len(removed)}"] if removed else []))
    many = plural and max(len(added), len(removed)) != 1
    said = ""
    if names:
        said = (
            " ("
            + "; ".join(
                ([", ".join(added)] if added else [])
                + ([f"{MINUS}" + f", {MINUS}".join(removed)] if removed else [])
            )
            + ")"
        )
    return [f"{counts} {noun}{'s' * many}{said}"]
