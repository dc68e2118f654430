"""``textDocument/references``."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types

from ..server import CkpServer, guarded, server, when_ready


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
@guarded(None)
def find_references(ls: CkpServer, params: types.ReferenceParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    from ..features.references import references

    at = ls.position(params.text_document.uri, params.position)
    declaration = params.context.include_declaration
    return references(*at, declaration, ls.state.boms) if at is not None else None
