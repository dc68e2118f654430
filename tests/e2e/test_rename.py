"""Renaming a concept through the real server: prepareRename, the edit applied to the files, refusals."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.faces.banks import load_bank
from tests.copies import copy_tree
from tests.edits import apply_text_edits, apply_to_disk

from .conftest import MENTAT, SAMPLES, doc_id, open_doc, open_indexed, pos, wait_indexed

SPOKES = 1000


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The samples, and a bank whose one concept is named by a thousand files."""
    ws = tmp_path / "ws"
    copy_tree(SAMPLES, ws)
    hub = ws / "hub" / "memory-bank"
    (hub / "spokes").mkdir(parents=True)
    (hub / "hub.md").write_text("CONCEPT: hub\nTLDR: The hub.\nANSWERS_WHEN: hub\nVALIDATED: 2026-10\n")
    for i in range(SPOKES):
        (hub / "spokes" / f"s{i:04}.md").write_text(
            f"CONCEPT: s{i:04}\nTLDR: Spoke {i}.\nANSWERS_WHEN: spoke {i}\nSIMILAR_HIGH: hub:2026-10\n"
            "VALIDATED: 2026-10\n\nBody.\n"
        )
    return ws


def codes(bank: Bank) -> set[str]:
    found = {f.code for rel in bank.files for f in check_file(bank, rel)}
    return found | {f.code for f in check_index(bank)}


async def test_prepare_rename_returns_the_concept_token_and_rejects_elsewhere(client: LanguageClient):
    jwt, uri = await open_indexed(client, f"{MENTAT}/patterns/jwt.md")
    got = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc_id(uri), position=pos(jwt, "jwt", 2))
    )
    assert isinstance(got, types.PrepareRenamePlaceholder)
    assert got.placeholder == "jwt"
    assert (got.range.start, got.range.end.character) == (pos(jwt, "jwt"), pos(jwt, "jwt").character + 3)
    assert (
        await client.text_document_prepare_rename_async(
            types.PrepareRenameParams(text_document=doc_id(uri), position=pos(jwt, "How the projects"))
        )
        is None
    )


async def test_rename_updates_entries_index_and_file_consistently(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client)
    bank_root = ws / MENTAT
    before = codes(load_bank(bank_root.resolve()))
    assert not before & {"CKP041", "CKP070"}
    jwt = bank_root / "patterns/jwt.md"
    uri = open_doc(client, jwt, version=3)
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc_id(uri), position=pos(jwt, "jwt", 1), new_name="json-web-token")
    )
    assert edit is not None and edit.document_changes
    texts = [c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit)]
    renames = [c for c in edit.document_changes if isinstance(c, types.RenameFile)]
    assert {c.text_document.uri.rsplit("/", 1)[-1] for c in texts} == {
        "json-web-token.md",
        "auth.md",
        "oauth2.md",
        "_index.md",
    }
    moved = (bank_root / "patterns/json-web-token.md").as_uri()
    assert next(c for c in texts if c.text_document.uri == moved).text_document.version is None
    assert [(r.old_uri, r.new_uri) for r in renames] == [(uri, moved)]
    assert edit.document_changes[0] is renames[0]  # the file moves first, text edits address it after

    apply_to_disk(edit)
    after = load_bank(bank_root.resolve())
    assert after.by_concept["json-web-token"] == ["patterns/json-web-token.md"]
    assert "jwt" not in after.by_concept and "jwt" not in after.backlinks
    assert after.backlinks["json-web-token"] == {"patterns/auth.md", "patterns/oauth2.md"}
    assert codes(after) == before  # no unknown concept, no index drift: the edit is consistent
    index = (bank_root / "_index.md").read_text()
    assert "| json-web-token | patterns/json-web-token.md |" in index
    assert "jwt:2026-10" not in index and "json-web-token:2026-10" in index


@pytest.mark.parametrize(
    ("new_name", "message"),
    [("JSON Web Token", "not a valid concept name"), ("oauth2", "'oauth2' already exists")],
)
async def test_rename_rejects_an_invalid_or_existing_name(
    client: LanguageClient, new_name: str, message: str
):
    jwt, uri = await open_indexed(client, f"{MENTAT}/patterns/jwt.md")
    with pytest.raises(Exception, match=message) as err:
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc_id(uri), position=pos(jwt, "jwt", 1), new_name=new_name)
        )
    assert getattr(err.value, "code", None) == types.LSPErrorCodes.RequestFailed
    assert jwt.read_text().startswith("CONCEPT:      jwt")


async def test_renaming_a_concept_named_by_a_thousand_files_edits_every_one(client: LanguageClient):
    ws = client.workspace_path
    await wait_indexed(client, timeout=60)
    hub = ws / "hub/memory-bank/hub.md"
    uri = open_doc(client, hub)
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc_id(uri), position=pos(hub, "hub"), new_name="center")
    )
    assert edit is not None and edit.document_changes is not None
    assert len([c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit)]) == SPOKES + 1


async def test_a_rename_applied_part_by_part_never_leaves_the_bank_broken_on_disk(client: LanguageClient):
    """As Neovim applies it: text edits change buffers, a file move is done on disk at once (after
    saving that file's buffer); the buffers reach the disk later, with `:wa`."""
    ws = client.workspace_path
    await wait_indexed(client)
    bank_root = ws / MENTAT
    before = errors(load_bank(bank_root.resolve()))
    jwt = bank_root / "patterns/jwt.md"
    uri = open_doc(client, jwt)
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc_id(uri), position=pos(jwt, "jwt", 1), new_name="json-web-token")
    )
    assert edit is not None
    buffers: dict[Path, str] = {jwt: jwt.read_text()}  # the open file has a buffer already
    for change in edit.document_changes or []:
        apply_like_neovim(change, buffers)
        # After each part, the bank on disk has no error a part of the rename caused.
        assert errors(load_bank(bank_root.resolve())) == before, change
    for path, text in buffers.items():  # :wa
        path.write_text(text)
    after = load_bank(bank_root.resolve())
    assert errors(after) == before and "json-web-token" in after.by_concept and "jwt" not in after.by_concept


def errors(bank: Bank) -> set[tuple[str, str]]:
    """The error-level findings of a bank, by file and code."""
    found = {
        (rel, f.code) for rel in bank.files for f in check_file(bank, rel) if f.severity == Severity.ERROR
    }
    return found | {("_index.md", f.code) for f in check_index(bank) if f.severity == Severity.ERROR}


def apply_like_neovim(change: object, buffers: dict[Path, str]) -> None:
    """One part of a WorkspaceEdit as Neovim applies it (vim.lsp.util.apply_workspace_edit)."""
    if isinstance(change, types.TextDocumentEdit):
        path = Path(change.text_document.uri.removeprefix("file://"))
        text = buffers.get(path)
        buffers[path] = apply_text_edits(path.read_text() if text is None else text, change.edits)
    elif isinstance(change, types.RenameFile):
        old = Path(change.old_uri.removeprefix("file://"))
        new = Path(change.new_uri.removeprefix("file://"))
        if old in buffers:  # vim.lsp.util.rename saves the buffer (:update!) before moving the file
            old.write_text(buffers.pop(old))
            old.rename(new)
            buffers[new] = new.read_text()
        else:
            old.rename(new)
    else:
        raise AssertionError(f"unexpected change {change!r}")


async def test_a_refused_rename_is_one_clear_error_and_no_traceback(
    client: LanguageClient, capfd: pytest.CaptureFixture[str]
):
    jwt, uri = await open_indexed(client, f"{MENTAT}/patterns/jwt.md")
    await asyncio.sleep(0.3)
    capfd.readouterr()  # what the server wrote while starting
    before = len(client.log_messages)
    with pytest.raises(Exception, match="'oauth2' already exists") as err:
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc_id(uri), position=pos(jwt, "jwt", 1), new_name="oauth2")
        )
    assert getattr(err.value, "code", None) == types.LSPErrorCodes.RequestFailed
    await asyncio.sleep(0.5)  # the server's stderr is forwarded to this process meanwhile
    stderr = capfd.readouterr().err  # editors show a server's stderr in their log, as errors
    assert "Traceback" not in stderr and "already exists" not in stderr, stderr
    logged = client.log_messages[before:]
    assert len(logged) <= 1 and not any(m.type == types.MessageType.Error for m in logged), logged
