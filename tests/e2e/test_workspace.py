"""The workspace as a whole: settings and their precedence, several folders, the TCP transport."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import codes, open_doc, wait_diagnostics, wait_indexed, wait_until


async def test_editor_settings_override_the_banks_config_file(client: LanguageClient):
    ws = client.workspace_path
    (ws / "broken/memory-bank/.ckp.toml").write_text(
        'index_budget_tokens = 50\n[diagnostics]\nCKP050 = "off"\n'
    )
    await wait_indexed(client)
    uri = open_doc(client, ws / "broken/memory-bank/jwt.md")
    # .ckp.toml silences CKP050 ...
    await wait_diagnostics(client, uri, lambda d: "CKP046" in codes(d) and "CKP050" not in codes(d))
    # ... and the editor's setting, read through workspace/configuration, wins over it.
    client.set_configuration({"diagnostics": {"CKP050": "error"}}, section="ckp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    diags = await wait_diagnostics(client, uri, lambda d: "CKP050" in codes(d))
    stale = next(d for d in diags if d.code == "CKP050")
    assert stale.severity == types.DiagnosticSeverity.Error


async def test_settings_pushed_with_did_change_configuration_are_applied(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    uri = open_doc(client, ws / "broken/memory-bank/http-headers.md")
    await wait_diagnostics(client, uri, lambda d: "CKP032" in codes(d))
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ckp": {"diagnostics": {"CKP032": "off"}}})
    )
    await wait_diagnostics(client, uri, lambda d: "CKP032" not in codes(d) and "CKP030" in codes(d))


async def test_every_workspace_folder_is_indexed(client: LanguageClient, tmp_path: Path):
    ws = client.workspace_path
    other = tmp_path / "second"
    (other / "memory-bank").mkdir(parents=True)
    note = other / "memory-bank/note.md"
    note.write_text(
        "CONCEPT: note\nTLDR: A note.\nANSWERS_WHEN: note\nSIMILAR_MID: nowhere:2026-10\nVALIDATED: 2026-10\n"
    )
    await wait_indexed(client)
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=other.as_uri(), name="second")], removed=[]
            )
        )
    )
    uri = open_doc(client, note)
    await wait_diagnostics(client, uri, lambda d: "CKP041" in codes(d))
    first = open_doc(client, ws / "broken/memory-bank/jwt.md")
    await wait_diagnostics(client, first, lambda d: "CKP050" in codes(d))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _frame(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


async def test_tcp_transport_answers_initialize(tmp_path: Path):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ckp_lsp", "--tcp", f"127.0.0.1:{port}"], stderr=subprocess.PIPE
    )
    try:
        for _ in range(100):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the server never listened on its TCP port")
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
        }
        writer.write(_frame(init))
        await writer.drain()
        header = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        reply = json.loads(await reader.readexactly(length))
        assert reply["id"] == 1
        assert reply["result"]["serverInfo"]["name"] == "ckp-lsp"
        assert reply["result"]["capabilities"]["hoverProvider"]
        writer.close()
    finally:
        proc.kill()
        proc.wait()


async def test_a_mistyped_setting_is_shown_once_naming_the_setting_and_its_values(client: LanguageClient):
    ws = client.workspace_path
    (ws / "broken/memory-bank/.ckp.toml").write_text(
        "index_budget_tokens = 50\n[diagnostics]\nCKP050 = 'eror'\n"
    )
    await wait_indexed(client)
    # The settings are read again (as when the editor sends them): the same problem is not told twice.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ckp": {"diagnostics": {"CKP032": "off"}}})
    )
    want = "diagnostics.CKP050 = 'eror' is not a severity: use error, warning, information, hint or off"
    await wait_until(lambda: any(want in m.message for m in client.messages))
    await asyncio.sleep(1.0)
    shown = [m for m in client.messages if "CKP050" in m.message]
    assert len(shown) == 1 and shown[0].type == types.MessageType.Warning, shown
    assert not [m for m in client.log_messages if "CKP050" in m.message]  # not in the log as well
    # The rest of the bank's settings still apply; the mistyped one keeps its default.
    uri = open_doc(client, ws / "broken/memory-bank/jwt.md")
    diags = await wait_diagnostics(client, uri, lambda d: "CKP050" in codes(d))
    assert next(d for d in diags if d.code == "CKP050").severity == types.DiagnosticSeverity.Warning
