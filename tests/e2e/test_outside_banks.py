"""A document opened outside every bank of the workspace folders (a file opened on its own, as
``code /elsewhere/memory-bank/caching/redis.md`` does) is checked in its bank, found as ``ckp
check`` finds a file's bank: upward from its folder, here with no project root above."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from tests.copies import copy_tree

from .conftest import SAMPLES, codes, open_doc, wait_diagnostics, wait_indexed
from .harness import Session, wait_for


async def test_a_file_of_a_bank_outside_the_workspace_folders_is_checked_in_its_bank(
    client: LanguageClient, tmp_path: Path
) -> None:
    bank = tmp_path / "elsewhere" / "notes" / "memory-bank"
    copy_tree(SAMPLES / "broken" / "memory-bank", bank)
    await wait_indexed(client)
    # In a sub-folder of the bank: only the bank (its cache.md) makes CKP011 of its concept.
    uri = open_doc(client, bank / "caching" / "redis.md")
    diags = await wait_diagnostics(client, uri, lambda d: "CKP011" in codes(d))
    assert any("cache.md" in d.message for d in diags if d.code == "CKP011"), diags


async def test_a_file_opened_with_no_workspace_folder_is_checked_in_its_bank(tmp_path: Path) -> None:
    """``code memory-bank/caching/redis.md``: VS Code sends no folder and no root."""
    bank = tmp_path / "notes" / "memory-bank"
    copy_tree(SAMPLES / "broken" / "memory-bank", bank)
    async with Session.indexed(tmp_path, folderless=True) as session:
        uri = open_doc(session.client, bank / "caching" / "redis.md")
        await wait_for(lambda: "CKP011" in codes(session.client.diagnostics.get(uri, [])), "CKP011 pushed")
        assert not session.failures()
