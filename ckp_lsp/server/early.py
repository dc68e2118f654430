"""An open document's own findings before its bank is read: those of the file alone (its
file-local findings and its dates in the future), published as soon as it is opened; the bank's
full check replaces them, and holds every one of them."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from ckp_lsp.core.bank.checks import future_dates
from ckp_lsp.core.bank.findings import Finding, apply_overrides
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.project.discovery import INDEX_NAME, bank_of
from ckp_lsp.core.project.membership import bank_rel
from ckp_lsp.core.project.within import escape

from .convert import path_of, to_diagnostic, uri_in

if TYPE_CHECKING:
    from .server import CkpServer


def own_findings(ls: CkpServer, path: Path, text: str) -> tuple[str, list[Finding]] | None:
    """The URI the bank's findings of ``path`` are published under and the findings of its text
    alone, as ``check_file`` gives them (severities and ``off`` applied, in document order); None
    when ``path`` is no knowledge file of a bank (its index needs the bank: it waits for it)."""
    state = ls.session.state
    if not path.name.endswith(".md") or path.name == INDEX_NAME or escape(path.parent) is not None:
        return None
    root = bank_of(path, state.configured_banks())
    if root is None:
        return None
    config = state.config_for(root)
    rel = bank_rel(path.parent.resolve() / path.name, root, config.exclude, index=False)
    if rel is None:
        return None
    kf = read_knowledge_file(rel, text)  # as the bank reads an open document (``Bank.set_file``)
    found = apply_overrides(kf.local + future_dates(kf, state.today), config.diagnostics)
    found.sort(key=lambda f: (f.span.start_line, f.span.start_col, f.code))
    return uri_in(root, rel), found


def publish(ls: CkpServer, uri: str) -> None:
    """Publish the open document ``uri``'s own findings while the banks are being read for the
    first time, once the settings they depend on are known (``Indexer.settings_known``)."""
    indexer = ls.indexer
    if indexer.indexed.is_set() or not indexer.settings_known:
        return
    path = path_of(uri)
    opened = ls.session.documents.at(path.resolve()) if path is not None else None
    if path is None or opened is None:
        return
    text = opened.text
    try:
        got = own_findings(ls, path, text)
    except Exception as exc:  # the full check still comes: never a failed open
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=6))
        ls.log(f"ckp-lsp: {path}: its own findings could not be told early: {exc}\n{detail}")
        return
    if got is None:
        return
    target, found = got
    ls.publisher.early_findings(uri, target, [to_diagnostic(f, opened.bom) for f in found])


def publish_open(ls: CkpServer) -> None:
    """``publish`` for every document open so far (the settings just became known)."""
    for opened in list(ls.session.documents):
        publish(ls, opened.uri)


def forget(ls: CkpServer, uri: str) -> None:
    """The document ``uri`` was closed before its bank was read: its own findings are withdrawn."""
    ls.publisher.early_closed(uri)
