"""The server's start: its banks are read while it starts, with the findings ``ckp check`` has,
and a file written meanwhile is not missed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ckp_lsp.cli.check import collect

from .conftest import SAMPLES
from .harness import Session, wait_for

NEW_NOTE = (
    "CONCEPT: notes\nTLDR: Scratch notes.\nANSWERS_WHEN: notes\n"
    "SIMILAR_HIGH: nosuch:2026-10\nVALIDATED: 2026-10\n\nBody.\n"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    shutil.copytree(SAMPLES, ws)
    return ws


def published(session: Session) -> dict[str, list[tuple[str, int, int, str]]]:
    return {
        uri: sorted((str(d.code), d.range.start.line, d.range.start.character, d.message) for d in diags)
        for uri, diags in session.client.diagnostics.items()
        if diags
    }


async def test_the_banks_are_read_while_the_server_starts_with_the_findings_of_ckp_check(workspace: Path):
    results, _, _ = collect([workspace])
    expected: dict[str, list[tuple[str, int, int, str]]] = {}
    for path, f in results:
        expected.setdefault(path.as_uri(), []).append(
            (f.code, f.span.start_line, f.span.start_col, f.message)
        )
    expected = {uri: sorted(found) for uri, found in expected.items()}
    session = await Session.start(workspace, "vscode")
    try:
        await session.wait_indexed()
        await wait_for(lambda: published(session).keys() >= expected.keys(), "every finding was published")
        assert published(session) == expected
        started = [m for m in session.logs() if "read while the server started" in m]
        assert len(started) == 2  # both sample banks
        assert await session.stop() == 0
    finally:
        await session.kill()


async def test_a_file_written_while_the_server_starts_is_not_missed(workspace: Path):
    note = workspace / "mentat" / "memory-bank" / "notes.md"
    # Written after the banks were read at start and before indexing, with no notification:
    # a client with file watchers (this one) reports only what changes once they are registered.
    session = await Session.start(workspace, "vscode", before_initialized=lambda: note.write_text(NEW_NOTE))
    try:
        await session.wait_indexed()
        assert any("read while the server started" in m for m in session.logs())
        uri = note.as_uri()
        await wait_for(
            lambda: "CKP041" in [d.code for d in session.client.diagnostics.get(uri, [])], "CKP041"
        )
        assert await session.stop() == 0
    finally:
        await session.kill()
