"""Over stdio: a committed ``.ckp-cache`` symbolic link receives nothing from the language server;
the bank is read and checked as without a cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.copies import copy_tree

from .conftest import SAMPLES
from .harness import Session


async def test_the_server_writes_no_cache_through_a_committed_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CKP_CACHE_DIR")  # the cache in its own place: .ckp-cache/ of the bank
    outside = tmp_path / "outside"
    outside.mkdir()
    ws = tmp_path / "clone"
    (ws / ".git").mkdir(parents=True)
    bank = ws / "memory-bank"
    copy_tree(SAMPLES / "broken" / "memory-bank", bank)
    (bank / ".ckp-cache").symlink_to(outside)
    for _ in range(2):  # a cold start, then one that would read what the first wrote
        async with Session.indexed(ws) as session:
            assert any(d for d in session.client.diagnostics.values())  # type: ignore[attr-defined]
            assert not session.failures()
    assert list(outside.iterdir()) == []
    assert (bank / ".ckp-cache").is_symlink()
