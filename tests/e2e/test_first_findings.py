"""The start, as an editor busy starting itself sees it: a document opened at once gets its own
findings before its bank is read (pushed, or answered to its pull), each of which the bank's full
check then gives too; the banks are read without waiting for the editor's settings or its file
watchers, read again when its settings differ, and a file written before its watchers watch is not
missed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ckp_lsp.cli.check import collect
from tests.copies import copy_tree

from .conftest import SAMPLES
from .harness import Session, wait_for
from .test_pull_or_push import pulls_with_refresh

#: how long the busy editor takes to answer the server's requests at start (seconds)
BUSY = 3.0
#: a file with findings of its own (CKP046) and of its bank (CKP032, CKP050)
JWT = "broken/memory-bank/jwt.md"
SETTINGS = {"staleness": "validated"}

Diag = tuple[str, int, int, int, int, str, int]


def key(d: types.Diagnostic) -> Diag:
    r = d.range
    return (
        str(d.code),
        r.start.line,
        r.start.character,
        r.end.line,
        r.end.character,
        d.message,
        int(d.severity or 0),
    )


class BusyEditor(Session):
    """An editor that answers ``workspace/configuration`` and ``client/registerCapability`` only
    BUSY seconds after it is asked (VS Code while it starts its window); it notes every
    ``publishDiagnostics`` and when it answered."""

    delay: float = BUSY

    def _features(self) -> dict[str, Callable[..., Any]]:
        features = super()._features()
        publish, register = (
            features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS],
            features[types.CLIENT_REGISTER_CAPABILITY],
        )
        self.pushes: list[tuple[float, str, list[types.Diagnostic]]] = []
        self.answered: dict[str, float] = {}

        def published(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
            self.pushes.append((time.perf_counter(), params.uri, params.diagnostics))
            publish(client, params)

        async def configuration(client: LanguageClient, params: types.ConfigurationParams) -> list[Any]:
            await asyncio.sleep(self.delay)
            self.answered["configuration"] = time.perf_counter()
            return [client.get_configuration(section=i.section, scope_uri=i.scope_uri) for i in params.items]

        async def registered(client: LanguageClient, params: types.RegistrationParams) -> None:
            await asyncio.sleep(self.delay)
            self.answered["registration"] = time.perf_counter()
            register(client, params)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = published
        features[types.WORKSPACE_CONFIGURATION] = configuration
        features[types.CLIENT_REGISTER_CAPABILITY] = registered
        return features


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    copy_tree(SAMPLES, ws)
    return ws


def ckp_check(path: Path) -> set[tuple[str, int, int, str]]:
    """``ckp check``'s findings of ``path``: (code, line, column, message)."""
    results, _, _, _ = collect([path.parent])
    return {(f.code, f.span.start_line, f.span.start_col, f.message) for p, f in results if p == path}


def short(diags: list[types.Diagnostic]) -> set[tuple[str, int, int, str]]:
    return {(str(d.code), d.range.start.line, d.range.start.character, d.message) for d in diags}


async def test_an_open_document_gets_its_own_findings_pushed_before_its_bank_is_read(workspace: Path):
    path = workspace / JWT
    session = await BusyEditor.start(workspace, "vscode", initialization_options={"ckp": SETTINGS})
    try:
        assert isinstance(session, BusyEditor)
        uri, _ = session.open(path)
        await session.wait_indexed()
        final = ckp_check(path)
        await wait_for(lambda: short(session.client.diagnostics.get(uri, [])) == final, "the bank's findings")
        mine = [(at, diags) for at, u, diags in session.pushes if u == uri]
        first_at, first = mine[0]
        # before the editor even answered for its settings, which the bank's findings wait for
        assert first_at < session.answered["configuration"]
        assert first and {str(d.code) for d in first} == {"CKP046"}  # the file's own finding
        # Every finding published is one the full check gives: no squiggle shows and goes away.
        last = {key(d) for d in mine[-1][1]}
        for _, diags in mine:
            assert {key(d) for d in diags} <= last
        assert {"CKP032", "CKP050"} <= {c for c, *_ in final}
        assert await session.stop() == 0
    finally:
        await session.kill()


async def test_an_open_document_pulled_before_its_bank_is_read_gets_its_own_findings_then_a_refresh(
    workspace: Path,
):
    path = workspace / JWT
    session = await BusyEditor.start(
        workspace, "neovim", capabilities=pulls_with_refresh(), initialization_options={"ckp": SETTINGS}
    )
    try:
        assert isinstance(session, BusyEditor)
        uri, _ = session.open(path)
        params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        early = await session.request(session.client.text_document_diagnostic_async(params))
        answered = time.perf_counter()
        assert answered < session.answered.get("configuration", float("inf"))
        assert {str(d.code) for d in early.items} == {"CKP046"}
        refreshed = session.client.diagnostic_refresh_count
        await session.wait_indexed()
        await wait_for(
            lambda: session.client.diagnostic_refresh_count > refreshed, "a refresh once the bank is read"
        )
        params.previous_result_id = early.result_id
        full = await session.request(session.client.text_document_diagnostic_async(params))
        assert isinstance(full, types.RelatedFullDocumentDiagnosticReport)
        assert short(full.items) == ckp_check(path)
        assert {key(d) for d in early.items} <= {key(d) for d in full.items}
        assert not session.client.diagnostics.get(uri)  # pulled, never pushed
        assert await session.stop() == 0
    finally:
        await session.kill()


async def test_settings_answered_otherwise_than_given_at_initialize_are_what_the_banks_are_checked_with(
    workspace: Path,
):
    path = workspace / JWT
    given = {**SETTINGS, "diagnostics": {"CKP046": "off"}}
    answered = {**SETTINGS, "diagnostics": {"CKP046": "error"}}
    session = await BusyEditor.start(
        workspace, "vscode", settings=answered, initialization_options={"ckp": given}
    )
    try:
        assert isinstance(session, BusyEditor)
        uri, _ = session.open(path)
        await session.wait_indexed()
        await wait_for(
            lambda: "CKP046" in {str(d.code) for d in session.client.diagnostics.get(uri, [])}, "CKP046"
        )
        [ckp046] = [d for d in session.client.diagnostics[uri] if d.code == "CKP046"]
        assert ckp046.severity == types.DiagnosticSeverity.Error
        assert await session.stop() == 0
    finally:
        await session.kill()


async def test_a_file_written_after_the_banks_are_read_but_before_the_watchers_watch_is_not_missed(
    workspace: Path,
):
    note = workspace / "mentat" / "memory-bank" / "notes.md"
    session = await BusyEditor.start(workspace, "vscode", initialization_options={"ckp": SETTINGS})
    try:
        assert isinstance(session, BusyEditor)
        banks = 3  # the samples' banks: mentat, broken and another
        await wait_for(
            lambda: (
                sum(" files, " in m and "from the cache" in m for m in session.logs()) >= banks
                or "registration" in session.answered
            ),
            "the banks read",
        )
        assert "registration" not in session.answered  # the editor is still busy: nothing watches yet
        note.write_text(
            "CONCEPT: notes\nTLDR: Scratch notes.\nANSWERS_WHEN: notes\n"
            "SIMILAR_HIGH: nosuch:2026-10\nVALIDATED: 2026-10\n\nBody.\n"
        )
        await session.wait_indexed()
        await wait_for(
            lambda: "CKP041" in [str(d.code) for d in session.client.diagnostics.get(note.as_uri(), [])],
            "CKP041",
        )
        assert await session.stop() == 0
    finally:
        await session.kill()


class Held:
    """A writer that holds what the client sends until ``flush`` sends it in one write: the
    server then reads the messages together, as from an editor that sent them at once."""

    def __init__(self, writer: Any) -> None:
        self.writer, self.data = writer, b""

    def write(self, data: bytes) -> None:
        self.data += data

    def flush(self, protocol: Any) -> None:
        protocol.writer = self.writer
        self.writer.write(self.data)


async def test_settings_sent_by_the_editor_win_over_its_answer_to_a_question_asked_before_them(
    workspace: Path,
):
    """The server asks for the settings at ``initialized``; settings the editor sends with it
    (``workspace/didChangeConfiguration``) are newer than its answer to that question, which the
    editor gives from what it had before."""
    path = workspace / JWT
    held: list[Held] = []

    def hold(session: Session) -> None:
        held.append(Held(session.client.protocol.writer))
        session.client.protocol.writer = held[0]

    session = await Session.start(workspace, "vscode", before_initialized=hold)
    try:
        pushed = {**SETTINGS, "diagnostics": {"CKP046": "off"}}
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"ckp": pushed})
        )
        held[0].flush(session.client.protocol)  # initialized and the new settings, together
        uri, _ = session.open(path)
        await session.wait_indexed()
        await wait_for(
            lambda: "CKP032" in {str(d.code) for d in session.client.diagnostics.get(uri, [])}, "CKP032"
        )
        await asyncio.sleep(0.5)  # a reindex with the answered settings would publish CKP046 again
        assert "CKP046" not in {str(d.code) for d in session.client.diagnostics.get(uri, [])}
        assert await session.stop() == 0
    finally:
        await session.kill()
