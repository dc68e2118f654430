"""``textDocument/references``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_REFERENCES, None)
def find_references(
    ls: CkpServer, snap: Snapshot, params: types.ReferenceParams
) -> list[types.Location] | None:
    from ..features.references import references

    declaration = params.context.include_declaration
    return references(snap.doc, *snap.position(params.position), declaration, snap.boms)
