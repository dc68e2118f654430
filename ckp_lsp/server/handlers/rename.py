"""``textDocument/prepareRename`` and ``textDocument/rename``."""

from __future__ import annotations

from lsprotocol import types

from ..server import CkpServer, table
from ..snapshot import Snapshot


@table.document(types.TEXT_DOCUMENT_PREPARE_RENAME, None)
def prepare_rename(
    ls: CkpServer, snap: Snapshot, params: types.PrepareRenameParams
) -> types.PrepareRenameResult | None:
    from ..features import rename

    return rename.prepare_rename(snap.doc, *snap.position(params.position), snap.boms)


@table.document(types.TEXT_DOCUMENT_RENAME, None)
def rename_concept(ls: CkpServer, snap: Snapshot, params: types.RenameParams) -> types.WorkspaceEdit | None:
    from ..features import rename

    line, col = snap.position(params.position)
    versions = ls.session.documents.version_of
    return rename.rename(snap.doc, line, col, params.new_name, snap.caps, versions, snap.boms)
