"""A file deleted or moved away leaves no findings behind: ``workspace/diagnostic`` answers every
document the client asks about (an empty report for one that is gone), and the counts of the
status notification drop its findings, as VS Code 1.100 talks (it pulls the workspace's
diagnostics and keeps every document's last result id)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from tests.copies import copy_tree

from .conftest import CLIENTS, SAMPLES
from .harness import Session, wait_for

BROKEN = "broken/memory-bank"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    copy_tree(SAMPLES, ws)
    return ws


def pulls_the_workspace() -> types.ClientCapabilities:
    """VS Code 1.100: pulls documents' and the workspace's diagnostics, can be told to pull again."""
    caps = client_capabilities(CLIENTS["vscode"])
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=True)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


async def pull(
    session: Session, previous: dict[str, str]
) -> dict[str, types.WorkspaceDocumentDiagnosticReport]:
    report = await session.request(
        session.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(
                previous_result_ids=[types.PreviousResultId(uri=u, value=v) for u, v in previous.items()]
            )
        )
    )
    return {item.uri: item for item in report.items}


def errors_of(item: types.WorkspaceDocumentDiagnosticReport) -> int:
    items = getattr(item, "items", [])
    return sum(1 for d in items if d.severity == types.DiagnosticSeverity.Error)


def errors_shown(session: Session) -> int:
    """The error count of the last ``ckp/status`` (what VS Code's status bar shows)."""
    return getattr(session.statuses[-1], "errors", 0) if session.statuses else 0


def disk_event(session: Session, *changes: tuple[Path, types.FileChangeType]) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=p.as_uri(), type=t) for p, t in changes]
        )
    )


async def findings_then_gone(session: Session) -> tuple[str, dict[str, str], Path]:
    """The workspace pulled once: a file of the broken bank with errors, and every result id."""
    first = await pull(session, {})
    previous = {u: i.result_id for u, i in first.items() if i.result_id}
    uri = next(u for u, i in sorted(first.items()) if f"/{BROKEN}/" in u and errors_of(i))
    path = next(p for p in (session.workspace / BROKEN).rglob("*.md") if p.as_uri() == uri)
    await wait_for(lambda: errors_shown(session) > 0, "counts")
    return uri, previous, path


async def test_a_deleted_files_findings_are_withdrawn_from_the_workspace_pull_and_the_counts(
    workspace: Path,
) -> None:
    async with Session.indexed(workspace, "vscode", capabilities=pulls_the_workspace()) as session:
        uri, previous, path = await findings_then_gone(session)
        errors_before = errors_shown(session)
        errors = errors_of((await pull(session, {}))[uri])
        refreshed = session.client.diagnostic_refresh_count
        path.unlink()
        disk_event(session, (path, types.FileChangeType.Deleted))
        await wait_for(
            lambda: session.client.diagnostic_refresh_count > refreshed, "workspace/diagnostic/refresh"
        )
        found = await pull(session, previous)
        assert uri in found, "the deleted file is not answered: the client keeps its findings"
        gone = found[uri]
        assert isinstance(gone, types.WorkspaceFullDocumentDiagnosticReport) and not gone.items, gone
        await wait_for(lambda: errors_shown(session) <= errors_before - errors, "the counts drop")
        # asked again with every id the client has: nothing changed, so the answer waits (VS Code
        # pulls again 2 s after each answer: a quiet bank costs nothing) until something changes
        asked = {**previous, **{u: i.result_id or "" for u, i in found.items()}}
        again = asyncio.ensure_future(pull(session, asked))
        await asyncio.sleep(1.5)
        assert not again.done(), "an unchanged workspace pull was answered at once"
        other = workspace / BROKEN / "cors.md"  # two errors of its own
        other.unlink()
        disk_event(session, (other, types.FileChangeType.Deleted))
        answered = await asyncio.wait_for(again, 30)
        assert uri in answered and isinstance(answered[uri], types.WorkspaceUnchangedDocumentDiagnosticReport)
        assert isinstance(answered.get(other.as_uri()), types.WorkspaceFullDocumentDiagnosticReport)


async def test_a_file_moved_elsewhere_is_reported_empty_at_its_old_uri(workspace: Path) -> None:
    async with Session.indexed(workspace, "vscode", capabilities=pulls_the_workspace()) as session:
        uri, previous, path = await findings_then_gone(session)
        errors_before = errors_shown(session)
        moved = workspace / "moved-out.md"  # outside every bank now
        path.rename(moved)
        disk_event(session, (path, types.FileChangeType.Deleted), (moved, types.FileChangeType.Created))
        await wait_for(lambda: errors_shown(session) < errors_before, "the counts drop")
        found = await pull(session, previous)
        assert isinstance(found.get(uri), types.WorkspaceFullDocumentDiagnosticReport), found.get(uri)
        assert not found[uri].items
        assert moved.as_uri() not in found
