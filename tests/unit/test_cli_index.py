"""`ckp index`: writes `_index.md`, keeps the user's text, and `--check` writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.discovery import INDEX_END, INDEX_START
from ckp_lsp.core.index import parse_index
from tests.unit.builders import FAULTY, SHOP, copy_bank


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shop bank, whose index is current, in the current folder."""
    monkeypatch.chdir(tmp_path)
    return copy_bank(SHOP, tmp_path / "memory-bank")


@pytest.fixture
def no_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of a bank without `_index.md`, in the current folder."""
    monkeypatch.chdir(tmp_path)
    return copy_bank(FAULTY, tmp_path / "memory-bank")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["index", *args])
    out, err = capsys.readouterr()
    return code, out, err


def edit_jwt(bank: Path) -> None:
    path = bank / "jwt.md"
    path.write_text(path.read_text(encoding="utf-8").replace("signs and verifies", "signs"), encoding="utf-8")


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_writes_a_new_index(no_index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "memory-bank")
    assert code == 0
    assert out == "Wrote memory-bank/_index.md (3 concepts).\n"
    text = (no_index / "_index.md").read_text(encoding="utf-8")
    assert [r.concept for r in parse_index(text).rows] == ["auth", "cookies", "sessions"]
    assert main(["check", "--select", "CKP07", "memory-bank"]) == 0


def test_regenerating_keeps_the_users_text(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (shop / "_index.md").read_text(encoding="utf-8")
    edit_jwt(shop)
    code, out, _ = run(capsys, "memory-bank")
    assert code == 0
    assert out.startswith("Wrote memory-bank/_index.md")
    after = (shop / "_index.md").read_text(encoding="utf-8")
    assert after.split(INDEX_START)[0] == before.split(INDEX_START)[0]
    assert after.split(INDEX_END)[1] == before.split(INDEX_END)[1]
    assert "| jwt | jwt.md | How the shop signs its access tokens. |" in after
    assert after.count("\n") == before.count("\n")


def test_an_index_that_is_current_is_not_rewritten(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = shop / "_index.md"
    before = snapshot(index)
    code, out, _ = run(capsys, "memory-bank")
    assert code == 0
    assert out == "memory-bank/_index.md is up to date (7 concepts).\n"
    assert snapshot(index) == before


def test_check_exits_1_when_stale_and_writes_nothing(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_jwt(shop)
    index = shop / "_index.md"
    before = snapshot(index)
    code, out, _ = run(capsys, "--check", "memory-bank")
    assert code == 1
    assert out == "memory-bank/_index.md is out of date: run `ckp index memory-bank`.\n"
    assert snapshot(index) == before


def test_check_exits_0_when_current_and_writes_nothing(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = shop / "_index.md"
    before = snapshot(index)
    code, out, _ = run(capsys, "--check", "memory-bank")
    assert code == 0
    assert "is up to date" in out
    assert snapshot(index) == before


def test_check_of_a_missing_index_exits_1_and_creates_nothing(
    no_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(capsys, "--check", "memory-bank")
    assert code == 1
    assert not (no_index / "_index.md").exists()


def test_a_file_inside_the_bank_names_its_bank(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--check", "memory-bank/infra/deploy.md")
    assert code == 0
    assert out.startswith("memory-bank/_index.md is up to date")


def test_blocks_format_from_the_flag_and_from_the_configuration(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "--format", "blocks", "memory-bank")[0] == 0
    text = (shop / "_index.md").read_text(encoding="utf-8")
    assert parse_index(text).form == "blocks"
    assert "Keep this note: it is written by hand." in text
    # The configured form is table: regenerating turns the blocks back into the committed table.
    assert run(capsys, "memory-bank")[0] == 0
    assert (shop / "_index.md").read_bytes() == (SHOP / "_index.md").read_bytes()
    (shop / ".ckp.toml").write_text('index_format = "blocks"\n', encoding="utf-8")
    assert run(capsys, "--check", "memory-bank")[0] == 1
    assert run(capsys, "memory-bank")[0] == 0
    assert parse_index((shop / "_index.md").read_text(encoding="utf-8")).form == "blocks"


def test_a_crlf_index_stays_crlf(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = shop / "_index.md"
    index.write_bytes(index.read_bytes().replace(b"\n", b"\r\n"))
    assert run(capsys, "--check", "memory-bank")[0] == 0
    edit_jwt(shop)
    assert run(capsys, "memory-bank")[0] == 0
    data = index.read_bytes()
    assert b"signs its access tokens" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_exit_2_when_the_folder_is_not_a_bank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").mkdir()
    code, out, err = run(capsys, "notes")
    assert code == 2
    assert out == ""
    assert "notes: not a memory bank" in err
    assert not (tmp_path / "notes" / "_index.md").exists()
    assert run(capsys, "missing")[0] == 2
