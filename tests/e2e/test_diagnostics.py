"""Diagnostics as an editor sees them: on open, for unopened files, across files, from disk."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pytest_lsp import LanguageClient

from ckp_lsp.server.convert import FORMAT_DOC

from .conftest import ROOT, change_doc, codes, open_doc, pulls, wait_diagnostics, wait_indexed, wait_until

FORMAT_TEXT = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")


async def test_open_file_shows_its_findings(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    path = ws / "broken/memory-bank/jwt.md"
    uri = open_doc(client, path)
    diags = await wait_diagnostics(client, uri, lambda d: "CKP050" in codes(d))
    stale = next(d for d in diags if d.code == "CKP050")
    assert stale.source == "ckp"
    assert stale.severity == types.DiagnosticSeverity.Warning
    assert stale.range.start.line == stale.range.end.line  # the entry, not the file
    # Each diagnostic links to its section of the format reference in the repository.
    for d in diags:
        assert d.code_description is not None
        assert d.code_description.href == f"{FORMAT_DOC}#{str(d.code).lower()}"
        assert f"### {d.code}\n" in FORMAT_TEXT


async def test_a_missing_field_covers_the_header_and_an_unclosed_bracket_its_line(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    sessions = ws / "broken/memory-bank/sessions.md"  # ANSWERS_WHEN is missing
    uri = open_doc(client, sessions)
    diags = await wait_diagnostics(client, uri, lambda d: "CKP002" in codes(d))
    missing = next(d for d in diags if d.code == "CKP002")
    lines = sessions.read_text().split("\n")
    last = lines.index("") - 1  # the header's last line
    assert (missing.range.start.line, missing.range.start.character) == (0, 0)
    assert (missing.range.end.line, missing.range.end.character) == (last, len(lines[last].rstrip()))
    deployment = ws / "broken/memory-bank/deployment.md"  # ANSWERS_WHEN: [deployment, … never closed
    uri = open_doc(client, deployment)
    diags = await wait_diagnostics(client, uri, lambda d: "CKP006" in codes(d))
    yaml = next(d for d in diags if d.code == "CKP006")
    opened = next(n for n, line in enumerate(deployment.read_text().split("\n")) if "[" in line)
    assert yaml.range.start.line == opened and "'[' here is not closed" in yaml.message


async def test_unopened_files_with_findings_are_published(client: LanguageClient):
    await wait_indexed(client)
    if pulls(client):
        report = await client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        found = {item.uri: item for item in report.items}
    else:
        await wait_until(lambda: len(client.diagnostics) >= 5)
        found = dict(client.diagnostics)
    broken = [u for u in found if "/broken/" in u]
    assert len(broken) >= 5
    assert not any("/mentat/" in u and getattr(found[u], "items", found[u]) for u in found)


async def test_editing_one_file_makes_anothers_entry_stale(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    jwt = ws / "mentat/memory-bank/patterns/jwt.md"
    auth = ws / "mentat/memory-bank/patterns/auth.md"
    auth_uri = open_doc(client, auth)
    assert "CKP050" not in codes(await wait_diagnostics(client, auth_uri, lambda d: True))
    jwt_uri = open_doc(client, jwt)
    text = jwt.read_text()
    import re

    new = re.sub(r"^VALIDATED:.*$", "VALIDATED:    2026-11-29", text, count=1, flags=re.M)
    assert new != text
    change_doc(client, jwt_uri, new, 2)
    diags = await wait_diagnostics(client, auth_uri, lambda d: "CKP050" in codes(d))
    stale = next(d for d in diags if d.code == "CKP050")
    assert "jwt" in stale.message and "2026-11-29" in stale.message
    assert auth.read_text() == auth.read_text()  # untouched on disk


async def test_file_written_on_disk_without_notification_is_reflected(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    path = ws / "mentat/memory-bank/notes.md"
    path.write_text(
        "CONCEPT: notes\nTLDR: Scratch notes.\nANSWERS_WHEN: notes\nSIMILAR_HIGH: nosuch:2026-10\nVALIDATED: 2026-10\n\nBody.\n"
    )
    uri = path.as_uri()
    if client.flavour == "vscode":
        # A client with watchers tells the server; one without relies on the server's own polling.
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Created)]
            )
        )
    await wait_until(lambda: "CKP041" in codes(client.diagnostics.get(uri, [])), timeout=5)
    path.unlink()
    if client.flavour == "vscode":
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Deleted)]
            )
        )
    await wait_until(lambda: not client.diagnostics.get(uri), timeout=5)
    await asyncio.sleep(0)


async def test_a_date_in_the_future_is_flagged_by_the_servers_own_clock(client: LanguageClient):
    # The core is given the day by the server: a server that forgot to give it would flag nothing.
    await wait_indexed(client)
    uri = open_doc(client, client.workspace_path / "broken/memory-bank/rate-limiting.md")
    diags = await wait_diagnostics(client, uri, lambda d: "CKP052" in codes(d))
    future = next(d for d in diags if d.code == "CKP052")
    assert "VALIDATED 2099-01 is in the future" in future.message
    assert future.range.start.line == 5
