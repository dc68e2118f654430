"""``textDocument/definition``."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types

from ..server import CkpServer, guarded, server, when_ready


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded(None)
def goto_definition(ls: CkpServer, params: types.DefinitionParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    from ..features.definition import definition

    at = ls.position(params.text_document.uri, params.position)
    return definition(*at, ls.state.boms) if at is not None else None
