"""Find references: every entry naming a concept across its bank, and its index row."""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

from lsprotocol import types

from ckp_lsp.core.navigation.references import (
    Mention,
    declarations,
    entries_naming,
    index_declarations,
    token_at,
)

from ..convert import to_range, uri_in
from ..state import Doc


def references(
    doc: Doc, line: int, col: int, include_declaration: bool, boms: Container[Path] = ()
) -> list[types.Location] | None:
    """Entries naming the concept at (line, col) and its index row (and its CONCEPT values if asked).

    ``boms``: the open documents whose editor text starts with a BOM (their line 0 counts it).
    """
    token = token_at(doc.bank, doc.rel, line, col)
    if token is None:
        return None
    bank, concept = doc.bank, token.concept
    found: list[Mention] = declarations(bank, concept) if include_declaration else []
    found += entries_naming(bank, concept)
    found += index_declarations(bank, concept)
    return [
        types.Location(
            uri=uri_in(bank.root, m.path),
            range=to_range(m.span, bool(boms) and m.span.start_line == 0 and bank.root / m.path in boms),
        )
        for m in found
    ]
