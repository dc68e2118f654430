"""A code lens on CONCEPT: how many files name the concept in each tier, and what the file costs."""

from __future__ import annotations

from lsprotocol import types

from ckp_lsp.core.navigation.references import backlink_counts

from ..convert import to_range, uri_of
from ..state import Doc

SHOW_REFERENCES = "ckp.showReferences"


def lens_title(high: int, mid: int, tokens: int) -> str:
    """``3 HIGH · 2 MID backlinks · ~1,240 tokens``."""
    return f"{high} HIGH · {mid} MID backlinks · ~{tokens:,} tokens"


def code_lenses(doc: Doc, bom: bool = False) -> list[types.CodeLens]:
    """The lens on the CONCEPT value of a knowledge file (none for the index or a file without one).

    ``bom``: the editor's text of ``doc`` starts with U+FEFF (counted on line 0).
    """
    kf = doc.file
    if kf is None or not kf.concept or kf.concept_span is None:
        return []
    counts = backlink_counts(doc.bank, kf.concept)
    rng = to_range(kf.concept_span, bom)
    command = types.Command(
        title=lens_title(counts["HIGH"], counts["MID"], kf.tokens),
        command=SHOW_REFERENCES,
        arguments=[uri_of(doc.bank.root / kf.path), rng.start],
    )
    return [types.CodeLens(range=rng, command=command)]
