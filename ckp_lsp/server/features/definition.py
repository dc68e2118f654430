"""Go to definition: from a relationship entry or an index row to the file that declares the concept."""

from __future__ import annotations

from lsprotocol import types

from ...core.references import target_files, token_at
from ...core.text import Span
from ..convert import location
from ..state import Doc


def definition(doc: Doc, line: int, col: int) -> list[types.Location] | None:
    """The CONCEPT value of each file the concept at (line, col) leads to; None when nothing does."""
    token = token_at(doc.bank, doc.rel, line, col)
    if token is None:
        return None
    out = [
        location(doc.bank.root / kf.path, kf.concept_span or Span(0, 0, 0, 0))
        for kf in target_files(doc.bank, token)
    ]
    return out or None
