"""`ckp index`: writes `_index.md`, keeps the user's text, and `--check` writes nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.format.index import parse_index
from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START
from tests.unit.builders import SHOP, run_cli


def edit_jwt(bank: Path) -> None:
    path = bank / "jwt.md"
    path.write_text(path.read_text(encoding="utf-8").replace("signs and verifies", "signs"), encoding="utf-8")


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_writes_a_new_index(faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "index", "memory-bank")
    assert code == 0
    assert out == "Wrote memory-bank/_index.md (3 concepts).\n"
    text = (faulty_in_cwd / "_index.md").read_text(encoding="utf-8")
    assert [r.concept for r in parse_index(text).rows] == ["auth", "cookies", "sessions"]
    assert main(["check", "--select", "CKP07", "memory-bank"]) == 0


def test_regenerating_keeps_the_users_text(shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (shop_in_cwd / "_index.md").read_text(encoding="utf-8")
    edit_jwt(shop_in_cwd)
    code, out, _ = run_cli(capsys, "index", "memory-bank")
    assert code == 0
    assert out.startswith("Wrote memory-bank/_index.md")
    after = (shop_in_cwd / "_index.md").read_text(encoding="utf-8")
    assert after.split(INDEX_START)[0] == before.split(INDEX_START)[0]
    assert after.split(INDEX_END)[1] == before.split(INDEX_END)[1]
    assert "| jwt | jwt.md | How the shop signs its access tokens. |" in after
    assert after.count("\n") == before.count("\n")


@pytest.mark.parametrize(
    ("stale", "args", "exit_code", "says"),
    [
        pytest.param(
            False, [], 0, "memory-bank/_index.md is up to date (7 concepts).\n", id="current-is-not-rewritten"
        ),
        pytest.param(
            True,
            ["--check"],
            1,
            "memory-bank/_index.md is out of date: run `ckp index memory-bank`.\n",
            id="check-exits-1-when-stale",
        ),
        pytest.param(
            False,
            ["--check"],
            0,
            "memory-bank/_index.md is up to date (7 concepts).\n",
            id="check-exits-0-when-current",
        ),
    ],
)
def test_nothing_is_written_when_the_index_is_current_or_only_checked(
    shop_in_cwd: Path,
    capsys: pytest.CaptureFixture[str],
    stale: bool,
    args: list[str],
    exit_code: int,
    says: str,
) -> None:
    """A current index is not rewritten, and ``--check`` writes nothing, stale or not."""
    if stale:
        edit_jwt(shop_in_cwd)
    index = shop_in_cwd / "_index.md"
    before = snapshot(index)
    code, out, _ = run_cli(capsys, "index", *args, "memory-bank")
    assert code == exit_code
    assert out == says
    assert snapshot(index) == before


def test_check_of_a_missing_index_exits_1_and_creates_nothing(
    faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run_cli(capsys, "index", "--check", "memory-bank")
    assert code == 1
    assert not (faulty_in_cwd / "_index.md").exists()


def test_a_file_inside_the_bank_names_its_bank(shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "index", "--check", "memory-bank/infra/deploy.md")
    assert code == 0
    assert out.startswith("memory-bank/_index.md is up to date")


def test_blocks_format_from_the_flag_and_from_the_configuration(
    shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "index", "--format", "blocks", "memory-bank")[0] == 0
    text = (shop_in_cwd / "_index.md").read_text(encoding="utf-8")
    assert parse_index(text).form == "blocks"
    assert "Keep this note: it is written by hand." in text
    # The configured form is table: regenerating turns the blocks back into the committed table.
    assert run_cli(capsys, "index", "memory-bank")[0] == 0
    assert (shop_in_cwd / "_index.md").read_bytes() == (SHOP / "_index.md").read_bytes()
    (shop_in_cwd / ".ckp.toml").write_text('index_format = "blocks"\n', encoding="utf-8")
    assert run_cli(capsys, "index", "--check", "memory-bank")[0] == 1
    assert run_cli(capsys, "index", "memory-bank")[0] == 0
    assert parse_index((shop_in_cwd / "_index.md").read_text(encoding="utf-8")).form == "blocks"


def test_a_crlf_index_stays_crlf(shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = shop_in_cwd / "_index.md"
    index.write_bytes(index.read_bytes().replace(b"\n", b"\r\n"))
    assert run_cli(capsys, "index", "--check", "memory-bank")[0] == 0
    edit_jwt(shop_in_cwd)
    assert run_cli(capsys, "index", "memory-bank")[0] == 0
    data = index.read_bytes()
    assert b"signs its access tokens" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_exit_2_when_the_folder_is_not_a_bank(
    not_a_bank_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "index", "notes")
    assert code == 2
    assert out == ""
    assert "notes: not a memory bank" in err
    assert not (not_a_bank_in_cwd / "_index.md").exists()
    assert run_cli(capsys, "index", "missing")[0] == 2


def test_an_index_over_its_budget_is_named_with_what_the_compact_form_makes_it(
    shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (shop_in_cwd / ".ckp.toml").write_text("index_budget_tokens = 50\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "index", "memory-bank")
    assert code == 0 and out.startswith("memory-bank/_index.md is up to date")
    assert "memory-bank/_index.md is ~" in err and "over its budget of 50 (CKP071)" in err
    full, compact = (int(n.replace(",", "")) for n in re.findall(r"~([\d,]+)", err))
    assert 50 < compact < full
    code, out, err = run_cli(capsys, "index", "--format", "compact", "memory-bank")
    assert code == 0 and out.startswith("Wrote memory-bank/_index.md")
    assert "over its budget of 50 (CKP071)" in err and "--format compact" not in err  # (it is compact)
    (shop_in_cwd / ".ckp.toml").write_text("index_budget_tokens = 100000\n", encoding="utf-8")
    assert run_cli(capsys, "index", "memory-bank")[2] == ""  # within budget: nothing said
