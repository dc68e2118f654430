"""A language server that a test starts and stops itself: its exit code, stderr, logs and messages.

The ``client`` fixture of ``conftest`` hides the server process; the reliability tests need it
(exit codes, tracebacks, a parent that dies, environment variables with keys, a restart).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from .conftest import CLIENTS, ROOT, apply_workspace_edit

#: a hang guard: nothing a test waits for may take this long
HANG = 60.0
SERVER = [sys.executable, "-m", "ckp_lsp", "--stdio"]


class Client(LanguageClient):
    """A test client that keeps the server's stderr instead of forwarding it."""

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        await super().start_io(cmd, *args, **kwargs)
        if self._stderr_forwarder is not None:
            self._stderr_forwarder.cancel()
        self.stderr = bytearray()
        self._stderr_forwarder = asyncio.create_task(self._collect_stderr())

    async def _collect_stderr(self) -> None:
        stream = self._server.stderr if self._server is not None else None
        if stream is None:
            return
        while chunk := await stream.read(65536):
            self.stderr.extend(chunk)


class Session:
    """One server process and the editor-like client talking to it."""

    def __init__(self, client: Client, flavour: str, workspace: Path) -> None:
        self.client = client
        self.flavour = flavour
        self.workspace = workspace
        self.applied: list[types.ApplyWorkspaceEditParams] = []
        self.registrations: list[types.Registration] = []
        self.statuses: list[Any] = []  # every ckp/status notification's counts
        self.server_capabilities = types.ServerCapabilities()  # as ``initialize`` answered

    @classmethod
    async def start(
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
        answer: Callable[[types.ApplyWorkspaceEditParams], types.ApplyWorkspaceEditResult] | None = None,
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
        client = Client(converter_factory=default_converter)
        register_lsp_features(client)
        session = cls(client, flavour, workspace)
        client.texts = {}  # type: ignore[attr-defined]  # what conftest's edit helpers keep

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            session.registrations.extend(params.registrations)

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            session.applied.append(params)
            if on_edit is not None:
                on_edit(params)
            if answer is not None:
                return answer(params)
            if not apply_edits:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="recorded only")
            apply_workspace_edit(client, params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        @client.feature("ckp/status")
        def status(*params: object) -> None:
            session.statuses.append(params[-1])

        client.set_configuration({"staleness": "validated", **(settings or {})}, section="ckp")
        full_env = {**os.environ, **(env or {})}
        argv = command or SERVER
        await client.start_io(argv[0], *argv[1:], env=full_env, cwd=str(ROOT))
        params = types.InitializeParams(
            capabilities=capabilities or client_capabilities(CLIENTS[flavour]),
            workspace_folders=None
            if folderless
            else [types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)],
            root_uri=None if folderless else workspace.as_uri(),
            process_id=client._server.pid if launcher_is_parent and client._server else process_id,
            initialization_options=initialization_options,
        )
        client.capabilities = params.capabilities
        if params.process_id is None:
            params.process_id = os.getpid()
        result = await asyncio.wait_for(client.initialize_async(params), HANG)
        session.server_capabilities = result.capabilities
        if before_initialized is not None:
            before_initialized(session)
        client.initialized(types.InitializedParams())
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
    def process(self) -> asyncio.subprocess.Process:
        assert self.client._server is not None
        return self.client._server

    @property
    def stderr(self) -> str:
        return bytes(self.client.stderr).decode("utf-8", errors="replace")

    @property
    def pulls(self) -> bool:
        return self.flavour == "neovim"

    def logs(self) -> list[str]:
        """Every window/logMessage and window/showMessage text so far."""
        return [m.message for m in self.client.log_messages] + [m.message for m in self.client.messages]

    def failures(self) -> list[str]:
        """Log messages of features that failed (``guarded`` logs them as errors)."""
        return [
            m.message
            for m in self.client.log_messages
            if m.type == types.MessageType.Error and "failed" in m.message
        ]

    async def wait_indexed(self) -> None:
        """Until the first indexing's progress report has ended."""

        def ended() -> bool:
            return any(
                isinstance(v, types.WorkDoneProgressEnd) and str(token).startswith("ckp-index")
                for token, values in self.client.progress_reports.items()
                for v in values
            )

        await wait_for(ended)

    async def request(self, coro: Any) -> Any:
        """A request's answer, within the hang guard."""
        return await asyncio.wait_for(coro, HANG)

    async def stop(self) -> int:
        """shutdown, then exit; the server's exit code."""
        await self.request(self.client.shutdown_async(None))
        self.client.exit(None)
        code = await asyncio.wait_for(self.process.wait(), HANG)
        await asyncio.wait_for(self.client.stop(), HANG)
        return code

    async def kill(self) -> None:
        """End the server however it is (for cleanup after a failure)."""
        if self.process.returncode is None:
            self.process.kill()
            await asyncio.wait_for(self.process.wait(), HANG)
        await asyncio.wait_for(self.client.stop(), HANG)


async def wait_for(pred: Callable[[], bool], what: str = "condition") -> None:
    """Until ``pred()`` holds; fails (never hangs) after the guard."""
    loop = asyncio.get_running_loop()
    end = loop.time() + HANG
    while not pred():
        if loop.time() > end:
            raise AssertionError(f"{what} never held")
        await asyncio.sleep(0.02)


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
