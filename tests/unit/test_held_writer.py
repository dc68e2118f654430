"""A writer that opened the file before ``ckp`` swapped it and writes into it after the swapped-out
file was compared (how an agent that keeps a file open and writes in place loses an edit) gets
its edit put back: the swapped-out file is looked at again once no new open can reach it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.core.edit import writes
from ckp_lsp.core.edit.writes import ChangedOnDisk, write_atomic

OLD = "CONCEPT: menu\nTLDR: Old.\n\nBody.\n"
OURS = "CONCEPT: menu\nTLDR: Ours.\n\nBody.\n"
THEIRS = "CONCEPT: menu\nTLDR: Theirs, written through a descriptor opened before the swap.\n\nBody.\n"


def test_a_write_through_a_descriptor_held_across_the_swap_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if writes._renameat2() is None:
        pytest.fail("this test needs renameat2(RENAME_EXCHANGE): Linux")
    path = tmp_path / "menu.md"
    path.write_text(OLD)
    held = os.open(path, os.O_WRONLY)  # the agent opened the file before ckp's swap
    real_read = writes._read
    wrote: list[bool] = []

    def read(p: Path) -> Any:
        data = real_read(p)
        if p != path and p.name.endswith(".tmp") and not wrote:  # ckp compared the swapped-out file
            os.pwrite(held, THEIRS.encode(), 0)  # ... and the agent writes just after
            wrote.append(True)
        return data

    monkeypatch.setattr(writes, "_read", read)
    try:
        with pytest.raises(ChangedOnDisk, match="the other edit"):
            write_atomic(path, OURS, expected=OLD)
    finally:
        os.close(held)
    assert wrote
    assert path.read_text() == THEIRS  # their edit is on disk, ours is not
    assert [p.name for p in tmp_path.iterdir()] == ["menu.md"]  # no temporary file left


def test_without_a_late_write_the_swap_stands(tmp_path: Path) -> None:
    path = tmp_path / "menu.md"
    path.write_text(OLD)
    held = os.open(path, os.O_RDONLY)
    try:
        write_atomic(path, OURS, expected=OLD)
    finally:
        os.close(held)
    assert path.read_text() == OURS
    assert [p.name for p in tmp_path.iterdir()] == ["menu.md"]
