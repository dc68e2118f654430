"""Review of a change to a bank: which files a pull request touches with what they relate to
(``ckp check --changed``), and its header changes in words (``ckp diff``).

The faces read git (``ckp_lsp/faces/git.py``) and hand the core the texts before and after.
"""

from __future__ import annotations

from collections.abc import Iterable

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.knowledge import KnowledgeFile, read_knowledge_file

MINUS = "\u2212"


def related_files(bank: Bank, changed: Iterable[str], gone_concepts: Iterable[str] = ()) -> list[str]:
    """The knowledge files of ``bank`` a change touches: the changed files, the files they relate
    to, the files that relate to them, and those naming a concept the change removed."""
    out: set[str] = set()
    concepts: set[str] = set(gone_concepts)
    for rel in changed:
        kf = bank.files.get(rel)
        if kf is None:
            continue
        out.add(rel)
        if kf.concept:
            concepts.add(kf.concept)
        for concept, _, _, _ in kf.relations:
            out.update(p for p in bank.by_concept.get(concept, ()))
    for concept in concepts:
        out.update(bank.backlinks.get(concept, ()))
        out.update(bank.by_concept.get(concept, ()))
    return sorted(p for p in out if p in bank.files)


def _tiers(kf: KnowledgeFile) -> dict[str, tuple[str, str]]:
    """concept -> (tier, date as written)."""
    return {c: (t, d or "") for c, t, d, _ in kf.relations}


def header_changes(old: KnowledgeFile, new: KnowledgeFile) -> list[str]:
    """What changed from ``old``'s header to ``new``'s, each in a few words a reviewer reads:
    ``+keyword JWKS``, ``SIMILAR_HIGH oauth2 re-validated 2026-12``."""
    out: list[str] = []
    if old.concept != new.concept:
        out.append(f"CONCEPT {old.concept} → {new.concept}")
    if old.tldr != new.tldr:
        out.append(f'TLDR "{new.tldr}"')
    before = {k.casefold(): k for k in old.keyword_texts}
    after = {k.casefold(): k for k in new.keyword_texts}
    out += [f"+keyword {after[k]}" for k in after if k not in before]
    out += [f"{MINUS}keyword {before[k]}" for k in before if k not in after]
    was, now = _tiers(old), _tiers(new)
    for concept, (tier, date) in now.items():
        if concept not in was:
            out.append(f"+SIMILAR_{tier} {concept}" + (f" {date}" if date else ""))
            continue
        old_tier, old_date = was[concept]
        if old_tier != tier:
            out.append(f"SIMILAR_{old_tier} → SIMILAR_{tier} {concept}")
        elif old_date != date:
            out.append(f"SIMILAR_{tier} {concept} re-validated {date}")
    out += [f"{MINUS}SIMILAR_{tier} {c}" for c, (tier, _) in was.items() if c not in now]
    if old.confidence.lower() != new.confidence.lower():
        out.append(f"CONFIDENCE {old.confidence or '(none)'} → {new.confidence or '(none)'}")
    if old.validated_text != new.validated_text:
        out.append(f"VALIDATED {new.validated_text or '(none)'}")
    return out


def describe_change(rel: str, old_text: str | None, new_text: str | None) -> str | None:
    """One line for a knowledge file a change touches (None: neither header nor body changed)."""
    if old_text == new_text:
        return None
    old = read_knowledge_file(rel, old_text) if old_text is not None else None
    new = read_knowledge_file(rel, new_text) if new_text is not None else None
    name = (new.concept if new is not None else None) or (old.concept if old is not None else None) or rel
    if old is None and new is not None:
        words = [f"new file {rel}"]
        if new.tldr:
            words.append(f'TLDR "{new.tldr}"')
        if new.keyword_texts:
            words.append(f"{len(new.keyword_texts)} keyword{'s' * (len(new.keyword_texts) != 1)}")
        if new.relations:
            words.append(", ".join(f"SIMILAR_{t} {c}" for c, t, _, _ in new.relations))
        return f"{name}: " + ", ".join(words)
    if new is None:
        return f"{name}: removed ({rel})"
    assert old is not None
    changes = header_changes(old, new)
    if not changes:
        still = f" (VALIDATED still {new.validated_text})" if new.validated_text else ""
        return f"{name}: body changed, header unchanged{still}"
    return f"{name}: " + ", ".join(changes)
