"""Nothing is written through a symbolic link that leads outside the bank: not by ``ckp index``,
``ckp fix`` or ``ckp compile``, and the language server offers no edit of such a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.edit.writes import WriteRefused, write_atomic
from ckp_lsp.core.project.within import inside
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.features.actions import regenerate_index
from ckp_lsp.server.features.index_upkeep import index_edit
from tests.unit.builders import bank_in_cwd, bare_header

OUTSIDE_TEXT = "# someone else's file\n<!-- ckp:index:start -->\n<!-- ckp:index:end -->\n"


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "outside").mkdir()
    return bank_in_cwd(
        tmp_path, {"menu.md": bare_header(CONCEPT="menu", ANSWERS_WHEN="menu, menu")}, monkeypatch
    )


@pytest.mark.parametrize("target", ["dangling", "existing"])
@pytest.mark.parametrize("command", ["index", "fix"])
def test_an_index_linked_outside_the_bank_is_never_written(
    bank: Path, capsys: pytest.CaptureFixture[str], target: str, command: str
) -> None:
    outside = bank.parent / "outside" / "index.md"
    if target == "existing":
        outside.write_text(OUTSIDE_TEXT)
    (bank / "_index.md").symlink_to(outside)
    assert main([command, str(bank)]) == 1
    err = capsys.readouterr().err
    assert "_index.md is a symbolic link that leads outside the bank" in err and "Traceback" not in err
    assert (outside.read_text() == OUTSIDE_TEXT) if target == "existing" else not outside.exists()
    assert (bank / "_index.md").is_symlink()


def test_a_knowledge_file_linked_outside_is_not_compiled(
    bank: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = bank.parent / "outside" / "notes.md"
    outside.write_text("Someone else's notes.\n")
    (bank / "notes.md").symlink_to(outside)
    assert main(["compile", str(bank / "notes.md")]) != 0
    assert outside.read_text() == "Someone else's notes.\n"
    assert main(["fix", str(bank)]) == 0  # the link is skipped, the rest is fixed
    assert outside.read_text() == "Someone else's notes.\n"


def test_write_atomic_refuses_a_link_out_of_within_but_writes_one_that_stays(tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    (bank / "sub").mkdir(parents=True)
    (tmp_path / "out.md").write_text("old\n")
    (bank / "out.md").symlink_to(tmp_path / "out.md")
    (bank / "sub" / "real.md").write_text("old\n")
    (bank / "in.md").symlink_to("sub/real.md")
    with pytest.raises(WriteRefused, match="leads outside the bank"):
        write_atomic(bank / "out.md", "new\n", expected="old\n", within=bank)
    assert (tmp_path / "out.md").read_text() == "old\n"
    write_atomic(bank / "in.md", "new\n", expected="old\n", within=bank)
    assert (bank / "sub" / "real.md").read_text() == "new\n" and (bank / "in.md").is_symlink()
    assert inside(bank / "gone.md", bank) is True
    (bank / "dangling.md").symlink_to("../elsewhere.md")
    assert inside(bank / "dangling.md", bank) is False


@pytest.mark.parametrize("target", ["dangling", "existing"])
def test_the_server_offers_no_index_edit_through_a_link_out_of_the_bank(bank: Path, target: str) -> None:
    outside = bank.parent / "outside" / "index.md"
    if target == "existing":
        outside.write_text(OUTSIDE_TEXT)
    (bank / "_index.md").symlink_to(outside)
    loaded = load_bank(bank)
    assert index_edit(loaded) is None
    assert regenerate_index(loaded) == []
    (bank / "_index.md").unlink()  # a plain missing index: the edit is offered
    assert index_edit(load_bank(bank)) is not None
    assert [a.title for a in regenerate_index(load_bank(bank))] == ["Regenerate the index"]


def test_ckp_init_writes_no_index_through_a_link_out_of_the_bank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    project = tmp_path / "project"
    (project / "memory-bank").mkdir(parents=True)
    (project / "README.md").write_text("# Project\n\nA small web shop.\n")
    outside = tmp_path / "outside.md"
    (project / "memory-bank" / "_index.md").symlink_to(outside)
    assert main(["init", str(project)]) == 1
    err = capsys.readouterr().err
    assert "leads outside the bank" in err and "Traceback" not in err
    assert not outside.exists()
