"""``textDocument/completion`` and ``completionItem/resolve``."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

from lsprotocol import types

from ckp_lsp.core.format.text import split_lines

from ..convert import after_bom, to_position
from ..server import UNCHANGED, CkpServer, guarded, server, when_ready


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=[",", " ", ":"], resolve_provider=True),
)
@guarded(None)
def completion(ls: CkpServer, params: types.CompletionParams) -> Generator[Any, Any, Any]:
    yield from when_ready(ls)
    # Imported on first use, as in ``completion_resolve``: the fuzzy matcher slows the start-up.
    from ..features.completion import complete

    uri, at = params.text_document.uri, params.position
    doc = ls.doc_at(uri)
    text = ls.source_of(uri, doc) if doc is not None else None
    if doc is None or doc.is_index or text is None:
        return None
    lines = split_lines(text)
    resolves = ls.caps.completion_resolves_documentation
    bom = ls.has_bom(doc)
    line, col = to_position(at, bom)
    return editor_items(
        complete(doc.bank, doc.file, lines, line, col, ls.state.today.month_text(), resolves), bom
    )


def editor_items(found: types.CompletionList, bom: bool) -> types.CompletionList:
    """The items' edits in the editor's columns: computed on the text without its BOM."""
    if not bom:
        return found
    for item in found.items:
        edit = item.text_edit
        if isinstance(edit, types.TextEdit):
            edit.range = after_bom(edit.range)
        elif isinstance(edit, types.InsertReplaceEdit):
            edit.insert, edit.replace = after_bom(edit.insert), after_bom(edit.replace)
        for extra in item.additional_text_edits or ():
            extra.range = after_bom(extra.range)
    return found


@server.feature(types.COMPLETION_ITEM_RESOLVE)
@guarded(UNCHANGED)
def completion_resolve(ls: CkpServer, item: types.CompletionItem) -> types.CompletionItem:
    from ..features.completion import resolve

    data = item.data
    root = data.get("bank") if isinstance(data, dict) else None
    return resolve(ls.state.banks.get(Path(root)) if isinstance(root, str) else None, item)
