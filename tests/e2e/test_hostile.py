"""Hostile files through the real server: a clear diagnostic or a logged reason, every request answered."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types

from ckp_lsp.core.format.text import utf16_len

from .conftest import change_part, open_doc
from .harness import HANG, Session, document_requests, wait_for

LINE = "All work and no play makes a very large knowledge file. " * 2 + "\n"
HEADER = "CONCEPT: {c}\nTLDR: The {c} file.\nANSWERS_WHEN: {c}\nVALIDATED: 2025-05\n\nBody of {c}.\n"


@pytest.fixture(scope="module")
def huge_body() -> str:
    return LINE * (50_000_000 // len(LINE))


@pytest.fixture
def hostile(tmp_path: Path, huge_body: str) -> Path:
    """A workspace whose bank holds one file of every hostile kind."""
    ws = tmp_path / "ws"
    bank = ws / "memory-bank"
    bank.mkdir(parents=True)
    files: dict[str, bytes] = {
        "good.md": HEADER.format(c="good").encode(),
        "blob.md": bytes(range(256)) * 64,
        "latin.md": "CONCEPT: menu\nTLDR: Crème brûlée.\nANSWERS_WHEN: menu\nVALIDATED: 2025-05\n".encode(
            "latin-1"
        ),
        "empty.md": b"",
        "nul.md": b"CONCEPT: nul\x00x\nTLDR: A\x00B.\nANSWERS_WHEN: nul\nVALIDATED: 2025-05\n\x00\x00",
        "crlf.md": HEADER.format(c="crlf").replace("\n", "\r\n").encode(),
        "mixed.md": b"CONCEPT: mixed\r\nTLDR: M.\rANSWERS_WHEN: m, m\nVALIDATED: 2025-05\r\n\rBody\n",
        "bom.md": ("\ufeff" + HEADER.format(c="bom")).encode(),
        "line.md": b"y" * 1_000_000,
        "huge.md": (
            HEADER.format(c="huge").replace("ANSWERS_WHEN: huge", "ANSWERS_WHEN: huge, huge") + huge_body
        ).encode(),
    }
    for name, data in files.items():
        (bank / name).write_bytes(data)
    os.mkfifo(bank / "pipe.md")
    (bank / "loop-a.md").symlink_to("loop-b.md")
    (bank / "loop-b.md").symlink_to("loop-a.md")
    (bank / "dangling.md").symlink_to("nowhere.md")
    (bank / "up").symlink_to("..")
    (bank / "x.md").mkdir()
    (bank / "x.md" / "inner.md").write_text(HEADER.format(c="inner"))
    return ws


EXPECTED = {
    "blob.md": {"CKP001", "CKP009"},
    "latin.md": {"CKP009"},
    "empty.md": {"CKP001"},
    "nul.md": {"CKP010"},
    "mixed.md": {"CKP030"},
    "line.md": {"CKP001"},
    "huge.md": {"CKP030"},
}
SKIPPED = {
    "pipe.md": "a named pipe, not a file",
    "loop-a.md": "a symbolic link loop",
    "dangling.md": "a symbolic link to a file that does not exist",
}


async def shown(session: Session, uri: str) -> list[types.Diagnostic]:
    """What the editor shows for ``uri``: pulled when open in a pulling client, else the last pushed."""
    if session.pulls and uri in session.client.texts:  # type: ignore[attr-defined]
        report = await session.request(
            session.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
        )
        return list(getattr(report, "items", []) or [])
    return list(session.client.diagnostics.get(uri, []))


async def wait_shown(session: Session, uri: str, code: str, present: bool = True) -> None:
    """Until ``code`` is (or is no longer) among what the editor shows for ``uri``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + HANG
    while (code in {str(d.code) for d in await shown(session, uri)}) != present:
        assert loop.time() < end, f"{code} never {'appeared' if present else 'went'} on {uri}"
        await asyncio.sleep(0.05)


async def every_request(session: Session, uri: str, at: types.Position) -> None:
    """Ask everything an editor asks about a document; each must be answered without a failure."""
    requests = document_requests(session.client, uri, at)
    requests.append(
        session.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    )
    for request in requests:
        await session.request(request)
    assert not session.failures(), session.failures()


@pytest.mark.parametrize("flavour", ["vscode", "neovim"])
async def test_every_hostile_file_gets_a_clear_finding_or_a_logged_reason(
    hostile: Path, flavour: str
) -> None:
    bank = hostile / "memory-bank"
    async with Session.indexed(hostile, flavour) as session:
        if session.pulls:
            report = await session.request(
                session.client.workspace_diagnostic_async(
                    types.WorkspaceDiagnosticParams(previous_result_ids=[])
                )
            )
            found = {item.uri: {str(d.code) for d in getattr(item, "items", [])} for item in report.items}
        else:
            await wait_for(lambda: all((bank / n).as_uri() in session.client.diagnostics for n in EXPECTED))
            found = {uri: {str(d.code) for d in diags} for uri, diags in session.client.diagnostics.items()}
        for name, codes in EXPECTED.items():
            assert codes <= found.get((bank / name).as_uri(), set()), name
        for name in ("good.md", "crlf.md", "bom.md", "x.md/inner.md"):
            assert not found.get((bank / name).as_uri()), name
        logs = "\n".join(session.logs())
        for name, why in SKIPPED.items():
            assert f"{bank / name}: skipped ({why})" in logs
        for name in ("blob.md", "latin.md", "empty.md", "nul.md", "mixed.md", "line.md"):
            await every_request(session, (bank / name).as_uri(), types.Position(line=0, character=3))
    assert "Traceback" not in session.stderr


async def test_large_files_open_and_take_incremental_edits(hostile: Path) -> None:
    bank = hostile / "memory-bank"
    async with Session.indexed(hostile) as session:
        client = session.client
        huge = bank / "huge.md"
        huge_uri = open_doc(client, huge, huge.read_text())
        await every_request(session, huge_uri, types.Position(line=2, character=16))
        # Remove the duplicate keyword of the 50 MB file: ", huge" on line 2.
        change_part(client, huge_uri, 2, (2, 18), (2, 24), "")
        await wait_for(
            lambda: list(client.diagnostics.get(huge_uri, [None])) == [], "the 50 MB file is clean"
        )
        line = bank / "line.md"
        line_uri = open_doc(client, line, line.read_text())
        await wait_for(lambda: bool(client.diagnostics.get(line_uri)))
        (first,) = client.diagnostics[line_uri]
        assert first.code == "CKP001" and first.range.end.character == 1_000_000
        change_part(client, line_uri, 2, (0, 0), (0, 0), HEADER.format(c="line"))
        await wait_for(
            lambda: list(client.diagnostics.get(line_uri, [None])) == [], "the 1 MB line has a header"
        )


async def test_odd_characters_from_the_editor_keep_the_server_in_step(hostile: Path) -> None:
    bank = hostile / "memory-bank"
    async with Session.indexed(hostile) as session:
        client = session.client
        # A lone surrogate (JSON allows "\ud800") and line separators that LSP does not count.
        text = "CONCEPT: odd\ud800\nTLDR: One\u2028two\x0cthree\x85four.\nANSWERS_WHEN: odd\nVALIDATED: 2025-05\n"
        uri = (bank / "odd.md").as_uri()
        open_doc(client, bank / "odd.md", text)
        await wait_for(lambda: "CKP010" in {str(d.code) for d in client.diagnostics.get(uri, [])})
        (bad,) = [d for d in client.diagnostics[uri] if d.code == "CKP010"]
        assert (bad.range.start.character, bad.range.end.character) == (9, 9 + utf16_len("odd\ud800"))
        # An incremental change on line 2, after the line holding U+2028, \f and U+0085.
        change_part(client, uri, 2, (2, 17), (2, 17), ", odd")
        await wait_for(lambda: "CKP030" in {str(d.code) for d in client.diagnostics.get(uri, [])})
        (dup,) = [d for d in client.diagnostics[uri] if d.code == "CKP030"]
        assert (dup.range.start.line, dup.range.start.character, dup.range.end.character) == (2, 19, 22)
        await every_request(session, uri, types.Position(line=0, character=11))


async def test_a_lone_surrogate_typed_into_front_matter_is_a_finding(tmp_path: Path) -> None:
    bank = tmp_path / "ws" / "memory-bank"
    bank.mkdir(parents=True)
    path = bank / "surrogate.md"
    text = "---\nCONCEPT: lone\nTLDR: The lone file.\nANSWERS_WHEN: lone\nVALIDATED: 2025-05\n---\n\nBody.\n"
    path.write_text(text, encoding="utf-8")
    async with Session.indexed(tmp_path / "ws") as session:
        client = session.client
        uri = open_doc(client, path, text)
        assert "CKP006" not in {str(d.code) for d in await shown(session, uri)}
        # Typed after "a" on the TLDR line: the JSON of the didChange carries the escape "\ud800".
        change_part(client, uri, 2, (2, 11), (2, 11), "\ud800")
        await wait_shown(session, uri, "CKP006")
        (bad,) = [d for d in await shown(session, uri) if d.code == "CKP006"]
        assert (bad.range.start.line, bad.range.start.character, bad.range.end.character) == (2, 11, 12)
        assert "U+D800" in bad.message
        await every_request(session, uri, types.Position(line=2, character=8))
        change_part(client, uri, 3, (2, 11), (2, 12), "")
        await wait_shown(session, uri, "CKP006", present=False)
    assert "Traceback" not in session.stderr


@pytest.mark.parametrize("flavour", ["vscode", "neovim"])
async def test_a_file_deleted_while_open_keeps_the_editors_text_until_it_is_closed(
    hostile: Path, flavour: str
) -> None:
    bank = hostile / "memory-bank"
    (bank / "ref.md").write_text(
        HEADER.format(c="ref").replace("VALIDATED", "SIMILAR_HIGH: good:2025-05\nVALIDATED")
    )
    async with Session.indexed(hostile, flavour) as session:
        client = session.client
        good = bank / "good.md"
        text = good.read_text().replace("ANSWERS_WHEN: good", "ANSWERS_WHEN: good, good")
        uri = open_doc(client, good, text)
        ref_uri = (bank / "ref.md").as_uri()
        await wait_shown(session, uri, "CKP030")
        good.unlink()
        if flavour == "vscode":
            client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Deleted)]
                )
            )
        await every_request(session, uri, types.Position(line=0, character=10))
        assert "CKP030" in {str(d.code) for d in await shown(session, uri)}  # the editor still has it
        assert "CKP041" not in {str(d.code) for d in await shown(session, ref_uri)}
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        client.texts.pop(uri)  # type: ignore[attr-defined]
        # Closed and gone from disk: its diagnostics go, and the concept with it.
        await wait_for(
            lambda: not client.diagnostics.get(uri), "the deleted file's diagnostics are withdrawn"
        )
        await wait_for(
            lambda: "CKP041" in {str(d.code) for d in client.diagnostics.get(ref_uri, [])},
            "good is unknown now",
        )


async def test_a_folder_or_a_broken_link_named_like_a_knowledge_file_is_skipped_and_logged(
    hostile: Path,
) -> None:
    bank = hostile / "memory-bank"
    async with Session.indexed(hostile) as session:
        (bank / "folder.md").mkdir()
        (bank / "broken.md").symlink_to("missing.md")
        changes = [
            types.FileEvent(uri=(bank / name).as_uri(), type=types.FileChangeType.Created)
            for name in ("folder.md", "broken.md")
        ]
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=changes))
        await wait_for(
            lambda: (
                sum("skipped" in m and ("folder.md" in m or "broken.md" in m) for m in session.logs()) == 2
            )
        )
        logs = "\n".join(session.logs())
        assert f"{bank / 'folder.md'}: skipped (a folder, not a file)" in logs
        assert f"{bank / 'broken.md'}: skipped (a symbolic link to a file that does not exist)" in logs
        await every_request(session, (bank / "folder.md").as_uri(), types.Position(line=0, character=0))


async def test_ten_thousand_concepts_claiming_one_keyword(tmp_path: Path) -> None:
    bank = tmp_path / "ws" / "memory-bank"
    bank.mkdir(parents=True)
    for i in range(10_000):
        (bank / f"c{i:05}.md").write_text(
            f"CONCEPT: c{i:05}\nTLDR: Concept {i}.\nANSWERS_WHEN: shared\nVALIDATED: 2025-05\n"
        )
    async with Session.indexed(tmp_path / "ws") as session:
        client = session.client
        await wait_for(lambda: len(client.diagnostics) >= 10_000, "every file's CKP032 was published")
        first = client.diagnostics[(bank / "c00000.md").as_uri()]
        assert [d.code for d in first] == ["CKP032"]
        assert "also claimed by 9999 other concepts" in first[0].message
        uri = open_doc(client, bank / "c00042.md")
        await every_request(session, uri, types.Position(line=2, character=16))
        hover = await session.request(
            client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=types.Position(line=2, character=16),
                )
            )
        )
        assert hover is not None
