"""The cache answers only for the bank it was written for, only when this user wrote it, and is
written only as a real folder: another user's cache in a shared ``CKP_CACHE_DIR``, one copied
from another bank and a committed ``.ckp-cache`` symbolic link change nothing ``ckp check`` says
and receive nothing it writes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank import cache
from ckp_lsp.core.bank.cache import FOLDER, cache_path
from tests.unit.builders import bare_header

CLEAN = bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, dishes")
# with an invalid CONFIDENCE (CKP060, an error)
BROKEN = bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, dishes", CONFIDENCE="maybe")


def same_size(text: str, size: int) -> str:
    """``text`` padded (in its body) to ``size`` bytes."""
    assert len(text.encode()) <= size
    return text + "x" * (size - len(text.encode()))


def bank(folder: Path, text: str = CLEAN) -> Path:
    (folder / "memory-bank").mkdir(parents=True)
    (folder / "memory-bank" / "menu.md").write_text(text)
    return folder / "memory-bank"


def break_in_place(root: Path) -> None:
    """Make ``menu.md`` invalid keeping its size and modification time: only a trusted cache may
    then still call it clean."""
    path = root / "menu.md"
    st = path.stat()
    path.write_text(same_size(BROKEN, st.st_size))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.fixture
def shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "shared-cache"
    monkeypatch.setenv("CKP_CACHE_DIR", str(folder))
    monkeypatch.chdir(tmp_path)
    return folder


def test_a_trusted_cache_is_used(shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The baseline the other tests depend on: this user's own cache does answer."""
    root = bank(tmp_path / "p", same_size(CLEAN, 200))
    assert main(["check", str(root)]) == 0
    break_in_place(root)
    assert main(["check", str(root)]) == 0  # size and mtime unchanged: taken from the cache
    capsys.readouterr()


def test_a_cache_of_another_user_is_ignored(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = bank(tmp_path / "p", same_size(CLEAN, 200))
    assert main(["check", str(root)]) == 0
    break_in_place(root)
    if os.geteuid() == 0:  # the file given to another user for real
        os.chown(cache_path(root.resolve()), 4242, 4242)
    else:  # this user becomes another one, for the cache only
        monkeypatch.setattr(cache, "_me", lambda: os.geteuid() + 1)
    assert main(["check", str(root)]) == 1


def test_a_cache_others_may_write_is_ignored(shared: Path, tmp_path: Path) -> None:
    root = bank(tmp_path / "p", same_size(CLEAN, 200))
    assert main(["check", str(root)]) == 0
    break_in_place(root)
    cache_path(root.resolve()).chmod(0o666)
    assert main(["check", str(root)]) == 1


def test_one_banks_cache_never_answers_for_another(shared: Path, tmp_path: Path) -> None:
    a = bank(tmp_path / "a", same_size(CLEAN, 200))
    assert main(["check", str(a)]) == 0
    b = bank(tmp_path / "b", same_size(BROKEN, 200))
    st = (a / "menu.md").stat()
    os.utime(b / "menu.md", ns=(st.st_atime_ns, st.st_mtime_ns))
    shutil.copy(cache_path(a.resolve()), cache_path(b.resolve()))
    assert main(["check", str(b)]) == 1


def test_a_bank_made_anew_at_the_same_path_does_not_use_the_old_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CKP_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    root = bank(tmp_path / "p", same_size(CLEAN, 200))
    assert main(["check", str(root)]) == 0
    st = (root / "menu.md").stat()
    kept = tmp_path / "kept-cache"
    shutil.copytree(root / FOLDER, kept)
    os.rename(tmp_path / "p", tmp_path / "old")  # kept alive: its inode is not reused
    bank(tmp_path / "p", same_size(BROKEN, 200))
    os.utime(root / "menu.md", ns=(st.st_atime_ns, st.st_mtime_ns))
    shutil.copytree(kept, root / FOLDER)
    assert main(["check", str(root)]) == 1


@pytest.mark.parametrize("target", ["existing", "dangling"])
def test_a_committed_cache_link_receives_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    monkeypatch.delenv("CKP_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    outside = tmp_path / "outside"
    if target == "existing":
        outside.mkdir()
    root = bank(tmp_path / "clone", bare_header(CONCEPT="menu", CONFIDENCE="maybe"))
    (root / FOLDER).symlink_to(outside)
    for _ in range(2):
        assert main(["check", str(root)]) == 1
        main(["route", str(root), "menu"])  # the routing store lives there too
    assert (not any(outside.iterdir())) if target == "existing" else not outside.exists()
    assert (root / FOLDER).is_symlink()


def test_a_cache_file_that_is_a_link_is_neither_read_nor_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CKP_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    root = bank(tmp_path / "clone", same_size(CLEAN, 200))
    assert main(["check", str(root)]) == 0
    real = tmp_path / "elsewhere.marshal"
    os.replace(root / FOLDER / "bank.marshal", real)
    (root / FOLDER / "bank.marshal").symlink_to(real)
    before = real.read_bytes()
    break_in_place(root)
    assert main(["check", str(root)]) == 1  # the cache behind the link is not read
    assert real.read_bytes() == before  # nor written
