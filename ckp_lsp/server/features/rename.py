"""Rename a concept: its CONCEPT values, every entry naming it, the index, and files named after it."""

from __future__ import annotations

from collections.abc import Callable, Container
from pathlib import Path
from typing import Any

from lsprotocol import types

from ...core.navigation.references import Token, plan_rename, rename_problem, token_at
from ..client import ClientCapabilities
from ..convert import to_range, uri_in
from ..pygls_compat import Refusal
from ..state import Doc

#: a client that takes neither ``documentChanges`` nor file renames
_PLAIN = ClientCapabilities()
_RENAMABLE = ("concept", "relationship", "index-concept", "index-relationship")


class RenameRejected(Refusal):
    """A rename the server refuses, answered to the client as a RequestFailed error with the reason
    (and no traceback in the log: it is an answer, not a failure)."""


def _token(doc: Doc, line: int, col: int) -> Token | None:
    """The declared concept whose name is exactly under the cursor (not an entry's date)."""
    token = token_at(doc.bank, doc.rel, line, col)
    if token is None or token.kind not in _RENAMABLE or not token.span.contains(line, col):
        return None
    return token if token.concept in doc.bank.by_concept else None


def prepare_rename(
    doc: Doc, line: int, col: int, boms: Container[Path] = ()
) -> types.PrepareRenamePlaceholder | None:
    """The range and text of the concept name under the cursor; None where nothing can be renamed."""
    token = _token(doc, line, col)
    if token is None:
        return None
    return types.PrepareRenamePlaceholder(
        range=to_range(token.span, doc.bank.root / doc.rel in boms), placeholder=token.concept
    )


def rename(
    doc: Doc,
    line: int,
    col: int,
    new_name: str,
    caps: ClientCapabilities = _PLAIN,
    version_of: Callable[[str], int | None] = lambda uri: None,
    boms: Container[Path] = (),
) -> types.WorkspaceEdit:
    """The workspace edit that renames the concept at (line, col); raises RenameRejected with the reason.

    ``boms``: the open documents whose editor text starts with a BOM (their line 0 counts it).
    """
    token = _token(doc, line, col)
    if token is None:
        raise RenameRejected(
            "only a concept can be renamed: put the cursor on a CONCEPT value or on an entry"
        )
    bank = doc.bank
    moves = caps.file_renames
    document_changes = caps.document_changes or moves
    new_name = new_name.strip()
    problem = rename_problem(bank, token.concept, new_name, moves)
    if problem is not None:
        raise RenameRejected(problem)
    plan = plan_rename(bank, token.concept, new_name, moves)
    # A concept named by a thousand files is a thousand documents: each one's URI and BOM are
    # found once, not once per edit.
    edits: dict[str, list[types.TextEdit]] = {}
    for path, spans in sorted(plan.edits.items()):
        bom = bool(boms) and bank.root / path in boms
        edits[uri_in(bank.root, path)] = [
            types.TextEdit(range=to_range(span, bom), new_text=text) for span, text in spans
        ]
    if not document_changes:
        return types.WorkspaceEdit(changes=edits)
    # The files move first, then the text changes, addressed to where the files now are. An editor
    # applies the parts one by one, and a move is a change on disk (Neovim even saves the file's
    # buffer before moving it): moved first, the renamed file still declares the old concept, which
    # every entry on disk still names, so no state in between has a dangling entry. The text
    # changes stay in the editor's buffers until they are saved together (`:wa`).
    moved = {uri_in(bank.root, old): uri_in(bank.root, new) for old, new in plan.moves}
    changes: list[Any] = [types.RenameFile(old_uri=old, new_uri=new) for old, new in moved.items()]
    changes += [
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=moved.get(uri, uri),
                version=None if uri in moved else version_of(uri),  # a moved file is a new document
            ),
            edits=list(text_edits),
        )
        for uri, text_edits in edits.items()
    ]
    return types.WorkspaceEdit(document_changes=changes)
