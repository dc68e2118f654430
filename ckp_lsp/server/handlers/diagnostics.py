"""Pulled diagnostics: ``textDocument/diagnostic`` and ``workspace/diagnostic``."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from ..convert import uri_of
from ..diagnostics import result_id
from ..server import CkpServer, guarded, table


@table.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="ckp", inter_file_dependencies=True, workspace_diagnostics=True),
)
@guarded(types.RelatedFullDocumentDiagnosticReport(items=[]))
async def document_diagnostic(
    ls: CkpServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    """A request about one document answered before the banks are read too, with the document's
    own findings (``early``): not a ``table.document`` handler, which waits for the banks."""
    own = await ls.publisher.early_report(params.text_document.uri, ls.indexer.ready)
    if own is not None:
        return types.RelatedFullDocumentDiagnosticReport(items=own, result_id=result_id(own))
    snap = ls.session.snapshot(params.text_document.uri)
    if snap is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    items = ls.publisher.diagnostics(snap.doc)
    rid = result_id(items)
    if params.previous_result_id == rid:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
    return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)


#: the longest a workspace pull that finds nothing changed is held before it is answered (seconds)
HOLD = 60.0


@table.feature(types.WORKSPACE_DIAGNOSTIC)
@guarded(types.WorkspaceDiagnosticReport(items=[]))
async def workspace_diagnostic(
    ls: CkpServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """Every document's report; when the client already has them all (VS Code pulls again 2 s
    after each answer), the answer waits until something changes (or HOLD seconds pass), so
    that a bank nobody touches costs nothing, and a change is answered as soon as it is
    published. The client's cancellation ends the wait."""
    await ls.indexer.ready.wait()
    if not ls.publisher.workspace_pull:
        ls.publisher.workspace_pull = True
        ls.publisher.clear_all()
    previous = {p.uri: p.value for p in params.previous_result_ids}
    loop = asyncio.get_running_loop()
    until = loop.time() + HOLD
    while True:
        change = ls.publisher.next_change()  # taken first: a change made while reporting counts
        items, changed = _report(ls, previous)
        if changed or not previous or loop.time() >= until:
            return types.WorkspaceDiagnosticReport(items=items)
        try:
            await asyncio.wait_for(change.wait(), until - loop.time())
        except asyncio.TimeoutError:
            return types.WorkspaceDiagnosticReport(items=items)
        await ls.indexer.ready.wait()


def _report(
    ls: CkpServer, previous: dict[str, str]
) -> tuple[list[types.WorkspaceDocumentDiagnosticReport], bool]:
    """The report of every document with findings or asked about; whether any is new to the client."""
    items: list[types.WorkspaceDocumentDiagnosticReport] = []
    answered: set[str] = set()
    version_of = ls.session.documents.version_of
    for doc in ls.session.state.all_docs():
        uri = uri_of(doc.bank.root / doc.rel)
        answered.add(uri)
        diags = ls.publisher.diagnostics(doc)
        if diags or uri in previous:
            items.append(_document_report(uri, version_of(uri), diags, previous.get(uri)))
    # Every document the client asked about is answered: one that is gone (deleted, moved by a
    # rename, or no longer in a bank) gets an empty report, or the client keeps its old findings.
    empty = result_id([])
    for uri in previous.keys() - answered:
        known = previous[uri] == empty
        items.append(_document_report(uri, None if known else version_of(uri), [], previous[uri]))
    changed = any(isinstance(i, types.WorkspaceFullDocumentDiagnosticReport) for i in items)
    return items, changed


def _document_report(
    uri: str, version: int | None, diags: list[types.Diagnostic], previous: str | None
) -> types.WorkspaceDocumentDiagnosticReport:
    """One document's report: unchanged when the client's result id is that of ``diags``."""
    rid = result_id(diags)
    if previous == rid:
        return types.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, version=version, result_id=rid)
    return types.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=version, items=diags, result_id=rid)
