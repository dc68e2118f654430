"""The protocol itself, over the server's real stdio: what LSP says a server answers before
``initialize``, after ``shutdown``, to malformed input and framing, and how it ends."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.copies import copy_tree

from .conftest import ROOT, SAMPLES, change_part, open_doc
from .harness import HANG, SERVER, Session

SERVER_NOT_INITIALIZED = -32002
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    copy_tree(SAMPLES / "mentat", ws)
    return ws


class Raw:
    """The server over stdio, spoken to byte by byte as a client would."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.seen: list[dict[str, Any]] = []

    @classmethod
    async def start(cls) -> Raw:
        process = await asyncio.create_subprocess_exec(
            *SERVER,
            cwd=str(ROOT),
            env=dict(os.environ),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)

    def send(self, message: dict[str, Any], header: bytes = b"") -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.write(header + b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def initialize(self, workspace: Path, msg_id: int = 1) -> None:
        params = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}}
        self.send({"id": msg_id, "method": "initialize", "params": params})

    async def _read(self) -> dict[str, Any]:
        out = self.process.stdout
        assert out is not None
        length = None
        while True:
            line = await out.readline()
            if not line:
                raise EOFError("the server closed its output")
            if line == b"\r\n":
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        assert length is not None
        message: dict[str, Any] = json.loads(await out.readexactly(length))
        self.seen.append(message)
        return message

    async def answer(self, msg_id: int) -> dict[str, Any]:
        """The answer to request ``msg_id`` (what the server sends meanwhile is kept in ``seen``)."""

        async def find() -> dict[str, Any]:
            while True:
                message = await self._read()
                if message.get("id") == msg_id and "method" not in message:
                    return message

        return await asyncio.wait_for(find(), HANG)

    async def exit_code(self) -> int:
        self.send({"method": "exit"})
        return await asyncio.wait_for(self.process.wait(), HANG)

    async def stderr(self) -> str:
        assert self.process.stderr is not None
        return (await self.process.stderr.read()).decode("utf-8", "replace")

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()


HOVER = {
    "textDocument": {"uri": (SAMPLES / "mentat/memory-bank/patterns/jwt.md").as_uri()},
    "position": {"line": 0, "character": 1},
}


@pytest.fixture
async def raw(workspace: Path) -> AsyncIterator[Raw]:
    """The server over raw stdio, initialized on ``workspace``; killed after the test."""
    server = await Raw.start()
    try:
        server.initialize(workspace)
        await server.answer(1)
        yield server
    finally:
        server.kill()


async def test_a_request_before_initialize_is_answered_server_not_initialized(workspace: Path) -> None:
    raw = await Raw.start()
    try:
        raw.send({"id": 7, "method": "textDocument/hover", "params": HOVER})
        answer = await raw.answer(7)
        assert answer["error"]["code"] == SERVER_NOT_INITIALIZED
        raw.initialize(workspace)
        assert "capabilities" in (await raw.answer(1))["result"]
    finally:
        raw.kill()


async def test_a_request_after_shutdown_is_answered_invalid_request_and_exit_ends_with_0(
    raw: Raw,
) -> None:
    raw.send({"id": 2, "method": "shutdown"})
    assert (await raw.answer(2)) == {"jsonrpc": "2.0", "id": 2, "result": None}
    raw.send({"id": 3, "method": "textDocument/hover", "params": HOVER})
    assert (await raw.answer(3))["error"]["code"] == INVALID_REQUEST
    assert await raw.exit_code() == 0


async def test_a_request_whose_params_have_the_wrong_types_is_answered_invalid_params(raw: Raw) -> None:
    wrong = {"textDocument": {"uri": 5}, "position": "the first line"}
    raw.send({"id": 2, "method": "textDocument/hover", "params": wrong})
    assert (await raw.answer(2))["error"]["code"] == INVALID_PARAMS
    raw.send({"id": 3, "method": "shutdown"})  # still serving
    assert "error" not in await raw.answer(3)
    assert await raw.exit_code() == 0


async def test_a_header_line_over_1_mib_is_skipped_and_the_server_keeps_serving(raw: Raw) -> None:
    raw.send({"id": 2, "method": "shutdown"}, header=b"X-Padding: " + b"x" * (2 << 20) + b"\r\n")
    assert "error" not in await raw.answer(2)
    assert await raw.exit_code() == 0
    assert "Traceback" not in await raw.stderr()


async def test_two_content_length_lines_in_the_first_message_do_not_hang_the_start(workspace: Path) -> None:
    raw = await Raw.start()
    try:
        params = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode()
        # The first length counts, wherever the first message is read.
        raw.write(b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(body), len(body) + 100) + body)
        assert "capabilities" in (await raw.answer(1))["result"]
        raw.send({"id": 2, "method": "shutdown"})
        await raw.answer(2)
        assert await raw.exit_code() == 0
    finally:
        raw.kill()


async def test_the_editor_dying_without_shutdown_ends_the_server_with_code_1(workspace: Path) -> None:
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    session = await Session.start(workspace, process_id=editor.pid)
    try:
        await session.wait_indexed()
        editor.kill()
        editor.wait()
        assert await asyncio.wait_for(session.process.wait(), HANG) == 1
    finally:
        if editor.poll() is None:
            editor.kill()
            editor.wait()
        await session.kill()


def write_bank(root: Path, n: int) -> None:
    """A bank of ``n`` small knowledge files, each related to the next."""
    bank = root / "memory-bank"
    bank.mkdir(parents=True)
    for i in range(n):
        (bank / f"c{i}.md").write_text(
            f"CONCEPT: c{i}\nTLDR: Concept {i}.\nANSWERS_WHEN: c{i}\n"
            f"SIMILAR_HIGH: c{(i + 1) % n}:2026-10\nVALIDATED: 2026-10\n\nBody {i}.\n"
        )


async def test_shutdown_while_the_banks_are_first_read_answers_and_exits_with_0(tmp_path: Path) -> None:
    ws = tmp_path / "big"
    write_bank(ws, 3000)
    doc = types.TextDocumentIdentifier(uri=(ws / "memory-bank/c1.md").as_uri())
    waiting: list[asyncio.Future[Any]] = []

    def ask(session: Session) -> None:  # requests that wait for the banks
        client = session.client
        at = types.Position(line=3, character=15)
        waiting.append(
            asyncio.ensure_future(
                client.text_document_hover_async(types.HoverParams(text_document=doc, position=at))
            )
        )
        waiting.append(
            asyncio.ensure_future(
                client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc))
            )
        )

    session = await Session.start(ws, before_initialized=ask)
    try:
        assert await session.stop() == 0
        assert "dictionary changed size" not in session.stderr
        assert "Traceback" not in session.stderr, session.stderr
    finally:
        await session.kill()
    await asyncio.gather(*waiting, return_exceptions=True)


# --- positions past the end of a line ----------------------------------------------------------------

HEADER = "CONCEPT: jwt\r\nTLDR: Tokens.\r\nANSWERS_WHEN: jwt\r\nVALIDATED: 2026-10"


async def symbols(session: Session, uri: str) -> dict[str, str]:
    found = await session.request(
        session.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    )
    return {s.name: s.detail for s in found}


@pytest.mark.parametrize("past", [1, 28])
async def test_an_insert_past_the_end_of_a_crlf_line_lands_at_its_end(workspace: Path, past: int) -> None:
    async with Session.indexed(workspace) as session:
        path = workspace / "memory-bank/patterns/scratch.md"
        path.write_text(HEADER, newline="")
        uri = open_doc(session.client, path, HEADER)
        end = len("CONCEPT: jwt") + past  # one past: between "\r" and "\n" for pygls
        change_part(session.client, uri, 2, (0, end), (0, end), "x")
        assert (await symbols(session, uri))["CONCEPT"] == "jwtx"


@pytest.mark.parametrize("past", [1, 1000])
async def test_a_replace_up_to_past_the_end_of_the_last_line_leaves_nothing_behind(
    workspace: Path, past: int
) -> None:
    async with Session.indexed(workspace) as session:
        path = workspace / "memory-bank/patterns/scratch.md"
        path.write_text(HEADER, newline="")
        uri = open_doc(session.client, path, HEADER)
        last = HEADER.split("\r\n")[-1]
        new = HEADER.replace("2026-10", "2026-09")
        change_part(session.client, uri, 2, (0, 0), (3, len(last) + past), new)
        assert (await symbols(session, uri))["VALIDATED"] == "2026-09"
