"""Applying an LSP WorkspaceEdit to files on disk, in order, as an editor does (for the tests)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lsprotocol import types

from ckp_lsp.server.convert import path_of


def offset(text: str, position: types.Position) -> int:
    """Code-point offset in ``text`` of an LSP position (UTF-16 columns)."""
    lines = text.split("\n")
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) + 1 for line in lines[: position.line])
    units = 0
    for i, ch in enumerate(lines[position.line]):
        if units >= position.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(lines[position.line])


def apply_text_edits(text: str, edits: Iterable[types.TextEdit | types.AnnotatedTextEdit]) -> str:
    """``text`` with non-overlapping edits applied (from the end, so offsets stay valid)."""
    spans = [(offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in edits]
    for a, b, new in sorted(spans, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def _path(uri: str) -> Path:
    path = path_of(uri)
    assert path is not None, uri
    return path


def apply_to_disk(edit: types.WorkspaceEdit) -> None:
    """Apply ``edit`` to the files it names: ``changes``, or ``documentChanges`` one after another."""
    for uri, edits in (edit.changes or {}).items():
        path = _path(uri)
        path.write_text(apply_text_edits(path.read_text(encoding="utf-8"), edits), encoding="utf-8")
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            path = _path(change.text_document.uri)
            text_edits = [e for e in change.edits if isinstance(e, (types.TextEdit, types.AnnotatedTextEdit))]
            path.write_text(apply_text_edits(path.read_text(encoding="utf-8"), text_edits), encoding="utf-8")
        elif isinstance(change, types.RenameFile):
            old, new = _path(change.old_uri), _path(change.new_uri)
            assert not new.exists(), f"{new} would be overwritten"
            old.rename(new)
        else:
            raise AssertionError(f"unexpected change {change!r}")
