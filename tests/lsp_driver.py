"""One language server driven as an editor drives it: the driver of the end-to-end tests and the
benchmarks.

A ``Server`` starts a process, initializes it with an editor's capabilities, answers what the
server asks of its client (configuration, registrations, edits, progress) and keeps what the
server sent, each publish and the end of its indexing timed from the spawn. The tests add their
defaults in ``tests/e2e/harness.py``; the benchmarks time requests with it (``benchmarks/``).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, default_converter
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

#: a hang guard: nothing a caller waits for may take this long
HANG = 60.0
SERVER = [sys.executable, "-m", "ckp_lsp", "--stdio"]
#: answers the server's ``workspace/applyEdit`` (the default declines and records it)
EditAnswer = Callable[[types.ApplyWorkspaceEditParams], types.ApplyWorkspaceEditResult]


class Client(LanguageClient):
    """A client that keeps the server's stderr (``stderr``; also copied to ``stderr_copy``)."""

    stderr_copy: IO[bytes] | None = None

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
            if self.stderr_copy is not None:
                self.stderr_copy.write(chunk)


class Unchecked(LanguageServerProtocol):
    """pygls's protocol as is: no check of the messages against the client's capabilities."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._notification_futures: dict[str, Any] = {}  # what pytest-lsp's client stops


class Server:
    """One server process and the editor-like client talking to it."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.applied: list[types.ApplyWorkspaceEditParams] = []
        self.registrations: list[types.Registration] = []
        self.statuses: list[Any] = []  # every ckp/status notification's counts
        self.server_capabilities = types.ServerCapabilities()  # as ``initialize`` answered
        self.started = 0.0  # perf_counter() just before the spawn
        self.published: dict[str, float] = {}  # uri -> its first non-empty publish
        self.versions: dict[tuple[str, int | None], float] = {}  # (uri, version) -> its publish
        self.progress_end: float | None = None  # the first work-done progress that ended

    @classmethod
    async def start(
        cls,
        command: list[str],
        params: types.InitializeParams,
        *,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        settings: dict[str, Any] | None = None,
        answer: EditAnswer | None = None,
        on_edit: Callable[[types.ApplyWorkspaceEditParams], None] | None = None,
        before_initialized: Callable[[Server], object] | None = None,
        stderr_copy: IO[bytes] | None = None,
        launcher_is_parent: bool = False,
        on_client: Callable[[Client], object] | None = None,
        checked: bool = True,
    ) -> Server:
        """Spawn ``command`` (with ``env``, in ``cwd``), send ``initialize`` with ``params`` and then
        ``initialized``. ``settings`` answer ``workspace/configuration`` for the ``ckp`` section;
        ``answer`` answers each ``workspace/applyEdit``; ``before_initialized`` runs between the
        answer to ``initialize`` and ``initialized``. With ``launcher_is_parent`` the spawned
        process's pid is the ``processId`` sent (``command`` is a launcher that starts the server).
        ``on_client`` is given the client before the spawn. ``checked``: pytest-lsp checks every
        message against the client's capabilities (the tests); unchecked, the client does no
        more than an editor's would between a message and its time (the benchmarks)."""
        kind = {} if checked else {"protocol_cls": Unchecked}
        client = Client(converter_factory=default_converter, **kind)
        client.stderr_copy = stderr_copy
        server = cls(client)
        if on_client is not None:
            on_client(client)
        register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, **server._features()})

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            server.applied.append(params)
            if on_edit is not None:
                on_edit(params)
            if answer is not None:
                return answer(params)
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="recorded only")

        client.set_configuration(settings or {}, section="ckp")
        client.capabilities = params.capabilities
        # As an editor has it ready, ``initialize`` is made and encoded before the spawn (the
        # first encoding of the capabilities takes this client a tenth of a second).
        client.protocol._converter.unstructure(params)
        server.started = time.perf_counter()
        await client.start_io(command[0], *command[1:], env=env, cwd=None if cwd is None else str(cwd))
        if launcher_is_parent:
            params.process_id = server.pid
        result = await asyncio.wait_for(client.initialize_async(params), HANG)
        server.server_capabilities = result.capabilities
        if before_initialized is not None:
            before_initialized(server)
        client.initialized(types.InitializedParams())
        return server

    def _features(self) -> dict[str, Callable[..., Any]]:
        """The client features that record what they receive, on top of pytest-lsp's defaults."""
        publish = DEFAULT_CLIENT_FEATURES[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
        progress = DEFAULT_CLIENT_FEATURES[types.PROGRESS]

        def published(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
            now = time.perf_counter()
            self.versions[(params.uri, params.version)] = now
            if params.diagnostics and params.uri not in self.published:
                self.published[params.uri] = now
            publish(client, params)

        def progressed(client: LanguageClient, params: types.ProgressParams) -> None:
            value = params.value
            kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
            if kind == "end" and self.progress_end is None:
                self.progress_end = time.perf_counter()
            progress(client, params)

        def registered(client: LanguageClient, params: types.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

        def status(client: LanguageClient, *params: object) -> None:
            self.statuses.append(params[-1])

        return {
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: published,
            types.PROGRESS: progressed,
            types.CLIENT_REGISTER_CAPABILITY: registered,
            "ckp/status": status,
        }

    @property
    def process(self) -> asyncio.subprocess.Process:
        assert self.client._server is not None
        return self.client._server

    @property
    def pid(self) -> int:
        return int(self.process.pid)

    @property
    def stderr(self) -> str:
        return bytes(self.client.stderr).decode("utf-8", errors="replace")

    def peak_rss(self) -> float:
        """VmHWM of the server process, in MB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

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

        await wait_for(ended, "the end of indexing")

    async def wait(self, pred: Callable[[], bool], timeout: float = HANG, step: float = 0.001) -> None:
        """Until ``pred()`` holds; a TimeoutError after ``timeout`` seconds."""
        end = time.perf_counter() + timeout
        while not pred():
            if time.perf_counter() > end:
                raise TimeoutError("the server did not answer in time")
            await asyncio.sleep(step)

    async def request(self, coro: Any) -> Any:
        """A request's answer, within the hang guard."""
        return await asyncio.wait_for(coro, HANG)

    def open(self, path: Path, version: int = 1, text: str | None = None) -> tuple[str, str]:
        """``didOpen`` of ``path`` (its text on disk unless ``text``); its URI and text."""
        text = path.read_text(encoding="utf-8") if text is None else text
        uri = path.as_uri()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="markdown", version=version, text=text
                )
            )
        )
        return uri, text

    async def change_line(self, uri: str, version: int, line: int, old: str, new: str) -> float:
        """Replace one line; the seconds until the server published diagnostics of the new version."""
        rng = types.Range(types.Position(line, 0), types.Position(line, len(old)))
        start = time.perf_counter()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)],
            )
        )
        await self.wait(lambda: (uri, version) in self.versions, 30)
        return self.versions[(uri, version)] - start

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
