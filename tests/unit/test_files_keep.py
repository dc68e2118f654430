"""A rewritten file keeps what it had: owner and group, mode bits, hard links (by refusing),
lone-CR line endings; a created file honours the umask; a read-only file and a named pipe are
left alone. Every run is on a real file system."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.edit import writes
from ckp_lsp.core.edit.writes import WriteRefused, write_atomic
from tests.unit.builders import bank_in_cwd, bare_header

FIXABLE = bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, menu, food")
FIXED = bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, food")


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bank_in_cwd(tmp_path, {"menu.md": FIXABLE}, monkeypatch)


def test_owner_and_group_are_kept(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = bank / "menu.md"
    if os.geteuid() == 0:  # a root rewrite must not make the file root's
        os.chown(path, 1234, 5678)
        assert main(["fix", str(path)]) == 0
        assert path.read_text() == FIXED
        assert (path.stat().st_uid, path.stat().st_gid) == (1234, 5678)
        return
    # Without root no file of another owner can be made: the owner ckp cannot give back refuses.
    st = path.stat()
    foreign = os.stat_result((st.st_mode, *st[1:4], st.st_uid + 1, st.st_gid, *st[6:]))
    with pytest.raises(WriteRefused, match="belongs to user"):
        writes._keep_owner_and_mode(os.open(path, os.O_RDONLY), path, foreign)


def test_mode_bits_are_kept(bank: Path) -> None:
    path = bank / "menu.md"
    path.chmod(0o751)
    assert main(["fix", str(path)]) == 0
    assert path.read_text() == FIXED and stat.S_IMODE(path.stat().st_mode) == 0o751


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_a_created_file_honours_the_umask(bank: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        assert main(["index", str(bank)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((bank / "_index.md").stat().st_mode) == mode


def test_a_file_with_several_hard_links_is_not_rewritten_and_the_links_stay(
    bank: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = bank / "menu.md"
    other = bank.parent / "elsewhere.md"
    os.link(path, other)
    assert main(["fix", str(path)]) == 1
    assert "menu.md has 2 hard links" in capsys.readouterr().err
    assert path.read_text() == FIXABLE and os.path.samefile(path, other)


def test_a_read_only_file_is_not_rewritten(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = bank / "menu.md"
    path.chmod(0o444)
    assert main(["fix", str(bank)]) == 1
    assert "menu.md is read-only" in capsys.readouterr().err
    assert path.read_text() == FIXABLE and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_read_only_file_is_refused_by_write_atomic_too(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    path.chmod(0o400)
    with pytest.raises(WriteRefused, match="read-only"):
        write_atomic(path, "new\n", expected="old\n")
    assert path.read_text() == "old\n"


@pytest.mark.parametrize("command", ["fix", "compile"])
def test_lone_cr_line_endings_are_kept(bank: Path, command: str) -> None:
    path = bank / "menu.md"
    # The header ends its lines with a lone CR (old Mac), the body with LF.
    path.write_bytes(b"CONCEPT: menu\rTLDR: A menu.\rANSWERS_WHEN: menu, menu, food\r\rSoups.\nSalads.\n")
    assert main([command, str(path)]) == 0
    data = path.read_bytes()
    header, body = data.split(b"\r\r", 1)
    assert body == b"Soups.\nSalads.\n"
    assert b"\n" not in header and header.count(b"\r") >= 2
    if command == "fix":
        assert header == b"CONCEPT: menu\rTLDR: A menu.\rANSWERS_WHEN: menu, food"


def test_fix_on_a_named_pipe_fixes_nothing(bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pipe = bank / "pipe.md"
    os.mkfifo(pipe)
    assert main(["fix", str(pipe)]) == 2
    assert "pipe.md: not a regular file or a folder" in capsys.readouterr().err
    assert (bank / "menu.md").read_text() == FIXABLE
    assert not (bank / "_index.md").exists()
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
