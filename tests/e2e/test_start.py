"""The server's start: its banks are read through their cache, with the findings ``ckp check``
has, and a file written meanwhile is not missed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from ckp_lsp.cli.check import collect
from ckp_lsp.core.project.discovery import find_banks
from tests.copies import copy_tree

from .conftest import SAMPLES
from .harness import HANG, SERVER, Session, wait_for

NEW_NOTE = (
    "CONCEPT: notes\nTLDR: Scratch notes.\nANSWERS_WHEN: notes\n"
    "SIMILAR_HIGH: nosuch:2026-10\nVALIDATED: 2026-10\n\nBody.\n"
)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CKP_CACHE_DIR")  # the cache in its own place: .ckp-cache/ of each bank
    ws = (tmp_path / "ws").resolve()
    copy_tree(SAMPLES, ws)
    return ws


def published(session: Session) -> dict[str, list[tuple[str, int, int, str]]]:
    return {
        uri: sorted((str(d.code), d.range.start.line, d.range.start.character, d.message) for d in diags)
        for uri, diags in session.client.diagnostics.items()
        if diags
    }


def from_the_cache(session: Session) -> list[int]:
    """How many files of each bank came from the cache, as the server logged it."""
    return [int(m.split(", ")[-1].split()[0]) for m in session.logs() if m.endswith("files from the cache")]


async def test_a_second_start_reads_the_banks_from_the_cache_with_the_findings_of_ckp_check(
    workspace: Path,
):
    results, _, _, _ = collect([workspace])
    expected: dict[str, list[tuple[str, int, int, str]]] = {}
    for path, f in results:
        expected.setdefault(path.as_uri(), []).append(
            (f.code, f.span.start_line, f.span.start_col, f.message)
        )
    expected = {uri: sorted(found) for uri, found in expected.items()}
    banks = find_banks([workspace])
    assert not any((b / ".ckp-cache").exists() for b in banks)
    for start in ("cold", "warm"):
        await _start_and_compare(workspace, start, expected, banks)


async def _start_and_compare(
    workspace: Path, start: str, expected: dict[str, list[tuple[str, int, int, str]]], banks: list[Path]
) -> None:
    session = await Session.start(workspace, "vscode")
    try:
        await session.wait_indexed()
        await wait_for(lambda: published(session).keys() >= expected.keys(), "every finding was published")
        assert published(session) == expected, start
        counts = from_the_cache(session)
        assert len(counts) == len(banks)  # every sample bank
        if start == "cold":
            assert counts == [0] * len(banks)
        else:
            assert sum(counts) > 0, counts  # (the files with findings of their own are read again)
        assert all((b / ".ckp-cache" / ".gitignore").is_file() for b in banks)
        assert await session.stop() == 0
    finally:
        await session.kill()


async def test_a_file_written_while_the_server_starts_is_not_missed(workspace: Path):
    note = workspace / "mentat" / "memory-bank" / "notes.md"
    collect([workspace], cached=True)  # a warm cache, which the new file is not in
    # Written before indexing, with no notification: a client with file watchers (this one)
    # reports only what changes once they are registered.
    session = await Session.start(workspace, "vscode", before_initialized=lambda _: note.write_text(NEW_NOTE))
    try:
        await session.wait_indexed()
        assert sum(from_the_cache(session)) > 0
        uri = note.as_uri()
        await wait_for(
            lambda: "CKP041" in [d.code for d in session.client.diagnostics.get(uri, [])], "CKP041"
        )
        assert await session.stop() == 0
    finally:
        await session.kill()


async def test_a_request_sent_before_the_banks_are_read_is_answered_once_they_are(workspace: Path):
    path = workspace / "mentat" / "memory-bank" / "patterns" / "auth.md"
    line, text = next(
        (n, t) for n, t in enumerate(path.read_text().split("\n")) if t.startswith("SIMILAR_HIGH")
    )
    where = types.Position(line=line, character=text.index("jwt") + 1)
    asked: list[asyncio.Future[types.Hover | None]] = []

    def ask(session: Session) -> None:  # before ``initialized``: nothing is read yet
        params = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=where
        )
        asked.append(asyncio.ensure_future(session.client.text_document_hover_async(params)))

    session = await Session.start(workspace, "vscode", before_initialized=ask)
    try:
        hover = await asyncio.wait_for(asked[0], HANG)
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "How the projects issue, sign, verify and rotate JSON Web Tokens" in hover.contents.value
        assert await session.stop() == 0
    finally:
        await session.kill()


async def test_with_no_cache_the_server_reads_every_file_and_writes_no_cache(workspace: Path):
    session = await Session.start(workspace, "vscode", command=[*SERVER, "--no-cache"])
    try:
        await session.wait_indexed()
        results, _, _, _ = collect([workspace])
        uris = {path.as_uri() for path, _ in results}
        await wait_for(lambda: published(session).keys() >= uris, "every finding was published")
        assert published(session).keys() == uris
        assert not from_the_cache(session)
        assert not any((b / ".ckp-cache").exists() for b in find_banks([workspace]))
        assert await session.stop() == 0
    finally:
        await session.kill()
