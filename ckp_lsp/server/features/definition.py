"""Go to definition: from a relationship entry or an index row to the file that declares the concept."""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

from lsprotocol import types

from ckp_lsp.core.format.text import Span
from ckp_lsp.core.navigation.references import target_files, token_at

from ..convert import location
from ..state import Doc


def definition(doc: Doc, line: int, col: int, boms: Container[Path] = ()) -> list[types.Location] | None:
    """The CONCEPT value of each file the concept at (line, col) leads to; None when nothing does.

    ``boms``: the open documents whose editor text starts with a BOM (their line 0 counts it).
    """
    token = token_at(doc.bank, doc.rel, line, col)
    if token is None:
        return None
    out = [
        location(doc.bank.root / kf.path, kf.concept_span or Span(0, 0, 0, 0), boms)
        for kf in target_files(doc.bank, token)
    ]
    return out or None
