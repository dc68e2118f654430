"""End-to-end fixtures: the real server over stdio, driven by editor-like clients (pytest-lsp).

Every test runs twice: as VS Code talks (pushed diagnostics, dynamic file watchers) and as
Neovim talks (asks for open documents' diagnostics, which the server answers while it also pushes
them, as it does to every client it cannot tell to pull again; no dynamic registration).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.copies import copy_tree

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
CLIENTS = {"vscode": "visual-studio-code", "neovim": "neovim"}
#: the mentat sample bank, relative to the workspace
MENTAT = "mentat/memory-bank"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the bundled samples: the mentat bank and the broken bank."""
    ws = tmp_path / "ws"
    copy_tree(SAMPLES, ws)
    return ws


@pytest_lsp.fixture(
    params=list(CLIENTS),
    config=ClientServerConfig(server_command=[sys.executable, "-m", "ckp_lsp", "--stdio"]),
)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    caps = client_capabilities(CLIENTS[request.param])
    lsp_client.registrations = []  # type: ignore[attr-defined]
    lsp_client.status = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        lsp_client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    lsp_client.texts = {}  # type: ignore[attr-defined]
    lsp_client.applied = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        lsp_client.applied.append(params)  # type: ignore[attr-defined]
        apply_workspace_edit(lsp_client, params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    @lsp_client.feature("ckp/status")
    def status(*params: object) -> None:
        lsp_client.status.append(params[-1])  # type: ignore[attr-defined]

    lsp_client.flavour = request.param  # type: ignore[attr-defined]
    lsp_client.workspace_path = workspace  # type: ignore[attr-defined]
    lsp_client.set_configuration({"staleness": "validated"}, section="ckp")
    params = types.InitializeParams(
        capabilities=caps,
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        root_uri=workspace.as_uri(),
    )
    lsp_client.init_result = await lsp_client.initialize_session(params)  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def pulls(client: LanguageClient) -> bool:
    return getattr(client, "flavour", "") == "neovim"


async def wait_until(pred: Callable[[], bool], timeout: float = 10.0, step: float = 0.05) -> None:
    """Wait for ``pred()`` to hold, failing the test after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(step)


async def wait_indexed(client: LanguageClient, timeout: float = 15.0) -> None:
    """Wait until the server has indexed the workspace (its progress report ended)."""

    def ended() -> bool:
        return any(
            isinstance(v, types.WorkDoneProgressEnd)
            for values in client.progress_reports.values()
            for v in values
        )

    await wait_until(ended, timeout)


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    text = path.read_text() if text is None else text
    client.texts[uri] = (version, text)  # type: ignore[attr-defined]
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="markdown",
                version=version,
                text=path.read_text() if text is None else text,
            )
        )
    )
    return uri


async def open_indexed(client: LanguageClient, rel: str) -> tuple[Path, str]:
    """Once the workspace is indexed, open its file ``rel`` with the text on disk: its path and URI."""
    await wait_indexed(client)
    path = client.workspace_path / rel  # type: ignore[attr-defined]
    return path, open_doc(client, path)


def doc_id(uri: str) -> types.TextDocumentIdentifier:
    """The identifier of the document at ``uri``."""
    return types.TextDocumentIdentifier(uri=uri)


def action_params(
    uri: str,
    start_line: int = 0,
    end_line: int | None = None,
    *,
    diagnostics: list[types.Diagnostic] | None = None,
    only: list[str] | None = None,
) -> types.CodeActionParams:
    """A code action request on ``uri`` from the start of ``start_line`` to the start of
    ``end_line`` (by default the same: a cursor), for ``diagnostics``, of the kinds ``only``."""
    return types.CodeActionParams(
        text_document=doc_id(uri),
        range=types.Range(
            start=types.Position(line=start_line, character=0),
            end=types.Position(line=start_line if end_line is None else end_line, character=0),
        ),
        context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
    )


def change_doc(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.texts[uri] = (version, text)  # type: ignore[attr-defined]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def change_part(
    client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str
) -> None:
    """An incremental change: ``text`` replaces ``start`` to ``end``, each (line, UTF-16 column)."""
    where = types.Range(
        start=types.Position(line=start[0], character=start[1]),
        end=types.Position(line=end[0], character=end[1]),
    )
    texts = client.texts  # type: ignore[attr-defined]
    if uri in texts:
        texts[uri] = (version, apply_text_edits(texts[uri][1], [types.TextEdit(range=where, new_text=text)]))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=where, text=text)],
        )
    )


async def diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The diagnostics the editor shows for ``uri``: pulled (Neovim-like) or the last pushed."""
    if pulls(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return list(getattr(report, "items", []) or [])
    return list(client.diagnostics.get(uri, []))


async def wait_diagnostics(
    client: LanguageClient, uri: str, pred: Callable[[list[types.Diagnostic]], bool], timeout: float = 10.0
) -> list[types.Diagnostic]:
    """Poll the editor's view of ``uri`` until ``pred`` holds; return the diagnostics."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        diags = await diagnostics(client, uri)
        if pred(diags):
            return diags
        if loop.time() > end:
            raise AssertionError(
                f"diagnostics of {uri} never matched: {[(d.code, d.message) for d in diags]}"
            )
        await asyncio.sleep(0.05)


def codes(diags: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diags}


def pos(path: Path, needle: str, offset: int = 0) -> types.Position:
    """Position of the first ``needle`` in ``path`` (plus ``offset`` characters)."""
    for i, line in enumerate(path.read_text().splitlines()):
        j = line.find(needle)
        if j >= 0:
            return types.Position(line=i, character=j + offset)
    raise AssertionError(f"{needle!r} not in {path}")


def _offset(text: str, pos: types.Position) -> int:
    lines = text.split("\n")
    if pos.line >= len(lines):
        return len(text)
    start = sum(len(line) + 1 for line in lines[: pos.line])
    line = lines[pos.line]
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """``text`` with LSP text edits applied, as an editor does."""
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits), reverse=True
    )
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def apply_workspace_edit(client: LanguageClient, edit: types.WorkspaceEdit) -> None:
    """Apply a WorkspaceEdit: open documents change in the editor (didChange), others on disk."""
    per_uri: dict[str, list[types.TextEdit]] = {}
    for uri, edits in (edit.changes or {}).items():
        per_uri.setdefault(uri, []).extend(edits)
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            per_uri.setdefault(change.text_document.uri, []).extend(change.edits)  # type: ignore[arg-type]
        elif isinstance(change, types.CreateFile):
            Path(change.uri.removeprefix("file://")).touch()
        elif isinstance(change, types.RenameFile):
            Path(change.old_uri.removeprefix("file://")).rename(change.new_uri.removeprefix("file://"))
    for uri, edits in per_uri.items():
        texts = client.texts  # type: ignore[attr-defined]
        if uri in texts:
            version, text = texts[uri]
            change_doc(client, uri, apply_text_edits(text, edits), version + 1)
        else:
            path = Path(uri.removeprefix("file://"))
            path.write_text(apply_text_edits(path.read_text() if path.exists() else "", edits))
