"""What a rewrite changes in a header, in a few words: ``TLDR, +2 −1 keywords, −1 MID``.

A recompile's code action says this in its title, so the user knows what accepting it does before
accepting it.
"""

from __future__ import annotations

from .knowledge import KnowledgeFile, read_knowledge_file

MINUS = "\u2212"  # typographic minus: "−1 MID" reads as a count, "-1 MID" as a dash


def header_changes(old: KnowledgeFile, new: KnowledgeFile) -> list[str]:
    """The changes from ``old``'s header to ``new``'s, field by field in header order."""
    out: list[str] = []
    if old.concept != new.concept:
        out.append("CONCEPT")
    if old.tldr != new.tldr:
        out.append("TLDR")
    out += _counted(
        [k.casefold() for k in old.keyword_texts], [k.casefold() for k in new.keyword_texts], "keyword"
    )
    redated = 0
    for tier in ("HIGH", "MID"):
        before = {c: d for c, t, d, _ in old.relations if t == tier}
        after = {c: d for c, t, d, _ in new.relations if t == tier}
        out += _counted(list(before), list(after), tier, plural=False)
        redated += sum(1 for c in before.keys() & after.keys() if before[c] != after[c])
    if redated:
        out.append(f"{redated} relationship date{'s' * (redated != 1)}")
    if old.confidence.lower() != new.confidence.lower():
        out.append("CONFIDENCE")
    if old.validated_text != new.validated_text:
        out.append("VALIDATED")
    return out


def describe(old_text: str, new_text: str, path: str = "file.md") -> str:
    """``header_changes`` of two texts of one file, joined (``"no change"`` when there is none)."""
    changes = header_changes(read_knowledge_file(path, old_text), read_knowledge_file(path, new_text))
    return ", ".join(changes) if changes else "no change"


def _counted(before: list[str], after: list[str], noun: str, plural: bool = True) -> list[str]:
    """``+2 −1 keywords``: how many items were added and removed (order alone is no change)."""
    added = len(set(after) - set(before))
    removed = len(set(before) - set(after))
    if not added and not removed:
        return []
    counts = " ".join(([f"+{added}"] if added else []) + ([f"{MINUS}{removed}"] if removed else []))
    many = plural and max(added, removed) != 1
    return [f"{counts} {noun}{'s' * many}"]
