"""``textDocument/completion`` and ``completionItem/resolve``."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ...core.format.text import split_lines
from ..server import UNCHANGED, CkpServer, guarded, table
from ..snapshot import Snapshot


@table.document(
    types.TEXT_DOCUMENT_COMPLETION,
    None,
    types.CompletionOptions(trigger_characters=[",", " ", ":"], resolve_provider=True),
)
def completion(ls: CkpServer, snap: Snapshot, params: types.CompletionParams) -> types.CompletionList | None:
    # Imported on first use, as in ``completion_resolve``: the fuzzy matcher slows the start-up.
    from ..features.completion import complete

    text = snap.text
    if snap.doc.is_index or text is None:
        return None
    line, col = snap.position(params.position)
    resolves = snap.caps.completion_resolves_documentation
    found = complete(snap.bank, snap.file, split_lines(text), line, col, snap.day.month_text(), resolves)
    return editor_items(snap, found)


def editor_items(snap: Snapshot, found: types.CompletionList) -> types.CompletionList:
    """The items' edits in the editor's columns: computed on the text without its BOM."""
    if not snap.bom:
        return found
    for item in found.items:
        edit = item.text_edit
        if isinstance(edit, types.TextEdit):
            edit.range = snap.editor_range(edit.range)
        elif isinstance(edit, types.InsertReplaceEdit):
            edit.insert, edit.replace = snap.editor_range(edit.insert), snap.editor_range(edit.replace)
        for extra in item.additional_text_edits or ():
            extra.range = snap.editor_range(extra.range)
    return found


@table.feature(types.COMPLETION_ITEM_RESOLVE)
@guarded(UNCHANGED)
def completion_resolve(ls: CkpServer, item: types.CompletionItem) -> types.CompletionItem:
    from ..features.completion import resolve

    data = item.data
    root = data.get("bank") if isinstance(data, dict) else None
    return resolve(ls.session.state.banks.get(Path(root)) if isinstance(root, str) else None, item)
