"""Document links: each SIMILAR entry to its related file, each FILE cell of the index to its file."""

from __future__ import annotations

from lsprotocol import types

from ckp_lsp.core.format.index_cells import index_cells
from ckp_lsp.core.navigation.references import bank_file

from ..convert import to_range, uri_of
from ..state import Doc


def document_links(doc: Doc, tooltips: bool = True, bom: bool = False) -> list[types.DocumentLink]:
    """Links of a knowledge file's relationship entries, or of the index's FILE cells (bank files only).

    ``bom``: the editor's text of ``doc`` starts with U+FEFF (counted on line 0).
    """
    bank = doc.bank
    found: list[tuple[types.Range, str, str | None]] = []  # range, target, tooltip
    if doc.is_index:
        for cell in index_cells(bank.index_text or ""):
            kf = bank_file(bank, cell.text) if cell.column == "FILE" else None
            if kf is not None:
                found.append((to_range(cell.span, bom), uri_of(bank.root / kf.path), kf.tldr or None))
    elif doc.file is not None:
        for rel in doc.file.relationships:
            target = bank.file_of(rel.concept)
            if target is not None:
                tip = f"{rel.concept}: {target.tldr}" if target.tldr else rel.concept
                found.append((to_range(rel.concept_span, bom), uri_of(bank.root / target.path), tip))
    return [
        types.DocumentLink(range=r, target=target, tooltip=tip if tooltips else None)
        for r, target, tip in found
    ]
