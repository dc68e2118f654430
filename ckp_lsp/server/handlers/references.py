"""``textDocument/references``."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types

from ..features.references import references
from ..server import CkpServer, guarded, server, when_ready


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
@guarded(None)
def find_references(ls: CkpServer, params: types.ReferenceParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    doc = ls.doc_at(params.text_document.uri)
    pos, declaration = params.position, params.context.include_declaration
    return references(doc, pos.line, pos.character, declaration) if doc else None
