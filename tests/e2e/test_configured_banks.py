"""Over stdio: a workspace's ``.ckp.toml`` naming a bank outside its folder is ignored, and the
user is told so (``window/showMessage``), even when no bank is left to read."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import Session

NOTES = "CONCEPT: notes\nTLDR: Someone else's notes.\nANSWERS_WHEN: notes, notes\n\nBody.\n"


@pytest.mark.parametrize("own_bank", [False, True], ids=["no bank left", "with its own bank"])
async def test_a_bank_named_outside_the_workspace_is_ignored_and_said_so(
    tmp_path: Path, own_bank: bool
) -> None:
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / "notes.md").write_text(NOTES)
    ws = tmp_path / "clone"
    (ws / ".git").mkdir(parents=True)
    (ws / ".ckp.toml").write_text("banks = ['..', '../sibling']\n")
    if own_bank:
        (ws / "memory-bank").mkdir()
        (ws / "memory-bank" / "a.md").write_text(NOTES.replace("notes", "a"))
    async with Session.indexed(ws) as session:
        told = [m for m in session.logs() if "leads outside" in m]
        assert told and any("'..'" in m for m in told) and any("'../sibling'" in m for m in told)
        published = set(session.client.diagnostics)  # type: ignore[attr-defined]
        assert not [u for u in published if "sibling" in u]
    assert (sibling / "notes.md").read_text() == NOTES
