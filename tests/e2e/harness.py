"""A language server that a test starts and stops itself: its exit code, stderr, logs and messages.

The ``client`` fixture of ``conftest`` hides the server process; the reliability tests need it
(exit codes, tracebacks, a parent that dies, environment variables with keys, a restart).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp_driver import HANG, SERVER, Client, EditAnswer, Server, wait_for

from .conftest import CLIENTS, ROOT, apply_workspace_edit

__all__ = ["HANG", "SERVER", "Client", "Session", "document_requests", "wait_for"]


class Session(Server):
    """One server process started as the tests start it: in this repository, with a test's
    settings, as VS Code or Neovim talks, applying the edits it is sent."""

    flavour = "vscode"
    workspace = Path()

    @classmethod
    async def start(  # type: ignore[override]
        cls,
        workspace: Path,
        flavour: str = "vscode",
        *,
        settings: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        process_id: int | None = None,
        launcher_is_parent: bool = False,
        command: list[str] | None = None,
        apply_edits: bool = True,
        on_edit: Callable[[types.ApplyWorkspaceEditParams], None] | None = None,
        answer: EditAnswer | None = None,
        before_initialized: Callable[[Session], object] | None = None,
        capabilities: types.ClientCapabilities | None = None,
        folderless: bool = False,
        initialization_options: Any = None,
    ) -> Session:
        """Start the server on ``workspace`` as ``flavour`` (vscode: pushes, watchers; neovim: pulls).

        ``command`` starts something else than the server (a launcher that starts it); with
        ``launcher_is_parent`` its pid is the ``processId`` the server watches.
        ``before_initialized`` runs between the answer to ``initialize`` and ``initialized``.
        ``capabilities`` replaces those of ``flavour``. ``answer`` answers each
        ``workspace/applyEdit`` in place of applying it (a user declining it, say).
        ``folderless``: no workspace folder and no root, as an editor that opened a single file.
        """
        clients: list[Client] = []

        def applied(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            if not apply_edits:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="recorded only")
            apply_workspace_edit(clients[0], params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        params = types.InitializeParams(
            capabilities=capabilities or client_capabilities(CLIENTS[flavour]),
            workspace_folders=None
            if folderless
            else [types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)],
            root_uri=None if folderless else workspace.as_uri(),
            process_id=os.getpid() if process_id is None else process_id,
            initialization_options=initialization_options,
        )
        session = await super().start(
            command or SERVER,
            params,
            env={**os.environ, **(env or {})},
            cwd=ROOT,
            settings={"staleness": "validated", **(settings or {})},
            answer=answer or applied,
            on_edit=on_edit,
            before_initialized=before_initialized,  # type: ignore[arg-type]  # it is given this Session
            launcher_is_parent=launcher_is_parent,
            on_client=lambda client: (clients.append(client), setattr(client, "texts", {})),
        )
        assert isinstance(session, Session)
        session.flavour, session.workspace = flavour, workspace
        return session

    @classmethod
    @contextlib.asynccontextmanager
    async def indexed(
        cls, workspace: Path, flavour: str = "vscode", **options: Any
    ) -> AsyncIterator[Session]:
        """A server started as by ``start`` that has indexed ``workspace``; at the end it is stopped,
        and must exit with code 0."""
        session = await cls.start(workspace, flavour, **options)
        try:
            await session.wait_indexed()
            yield session
        finally:
            assert await session.stop() == 0

    @property
    def pulls(self) -> bool:
        return self.flavour == "neovim"


def document_requests(client: LanguageClient, uri: str, at: types.Position) -> list[Awaitable[Any]]:
    """The requests an editor makes about a document at ``at``: hover, completion, definition,
    references, symbols, folding ranges, links, code lenses, and code actions from the start to ``at``."""
    doc = types.TextDocumentIdentifier(uri=uri)
    return [
        client.text_document_hover_async(types.HoverParams(text_document=doc, position=at)),
        client.text_document_completion_async(types.CompletionParams(text_document=doc, position=at)),
        client.text_document_definition_async(types.DefinitionParams(text_document=doc, position=at)),
        client.text_document_references_async(
            types.ReferenceParams(
                text_document=doc, position=at, context=types.ReferenceContext(include_declaration=True)
            )
        ),
        client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc)),
        client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc)),
        client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc)),
        client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)),
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=doc,
                range=types.Range(start=types.Position(line=0, character=0), end=at),
                context=types.CodeActionContext(diagnostics=[]),
            )
        ),
    ]
