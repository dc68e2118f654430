"""The swap exchanges a regular file for a regular file only: anything else that took the target's
place meanwhile (a folder, a link, a pipe) is put back, and the write says what happened."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ckp_lsp.core.edit import writes
from ckp_lsp.core.edit.writes import ChangedOnDisk, write_atomic

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the swap is Linux's renameat2")


def folder(path: Path) -> None:
    path.mkdir()
    (path / "note.txt").write_text("the user's folder\n")


def link(path: Path) -> None:
    (path.parent / "elsewhere.md").write_text("another file\n")
    path.symlink_to("elsewhere.md")


def pipe(path: Path) -> None:
    os.mkfifo(path)


@linux
@pytest.mark.parametrize("become", [folder, link, pipe], ids=["folder", "link", "pipe"])
@pytest.mark.parametrize("swap", [True, False], ids=["swap", "no-swap"])
def test_a_target_that_stops_being_a_file_mid_write_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, become: Callable[[Path], None], swap: bool
) -> None:
    path = tmp_path / "a.md"
    path.write_text("what ckp read\n")
    real = writes._exchange
    calls = []

    def exchange(a: str, b: str) -> bool:
        calls.append(b)
        if len(calls) == 1:
            path.unlink()  # between ckp's read and its swap, the name becomes something else
            become(path)
        return real(a, b) if swap else False

    monkeypatch.setattr(writes, "_exchange", exchange)
    with pytest.raises(ChangedOnDisk, match="no longer a regular file"):
        write_atomic(path, "ckp's rewrite\n", expected="what ckp read\n")
    if become is folder:
        assert (path / "note.txt").read_text() == "the user's folder\n"
    elif become is link:
        assert path.is_symlink() and path.read_text() == "another file\n"
    else:
        assert path.is_fifo()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
