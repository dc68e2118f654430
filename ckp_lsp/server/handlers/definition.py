"""``textDocument/definition``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_DEFINITION, None)
def goto_definition(
    ls: CkpServer, snap: Snapshot, params: types.DefinitionParams
) -> list[types.Location] | None:
    from ..features.definition import definition

    return definition(snap.doc, *snap.position(params.position), snap.boms)
