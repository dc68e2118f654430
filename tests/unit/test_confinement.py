"""A repository's ``.ckp.toml`` chooses nothing outside its own folder: banks and excludes that
lead out (``..``, ``/``, an absolute path, a symbolic link) are ignored, and the user is told."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.project.config import config_for_bank, load_config
from ckp_lsp.core.project.discovery import bank_of, find_banks
from tests.unit.builders import bare_header, write_files

#: a header `ckp fix` would rewrite (a duplicate keyword) and `ckp check` reports
FIXABLE = bare_header(CONCEPT="sibling", ANSWERS_WHEN="secret, secret")


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of projects: a sibling project with knowledge, and a cloned repository."""
    monkeypatch.chdir(tmp_path)
    write_files(tmp_path / "sibling", {"notes.md": FIXABLE})
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    write_files(clone / "docs", {"a.md": bare_header(CONCEPT="a")})
    assert bank_of(tmp_path) is None  # nothing above is a bank: a command here stays here
    return clone


@pytest.mark.parametrize("bank", ["..", "../sibling", "ABSOLUTE", "link-out"])
def test_a_bank_named_outside_the_configuration_folder_is_ignored_and_said_so(
    machine: Path, capsys: pytest.CaptureFixture[str], bank: str
) -> None:
    outside = machine.parent / "sibling"
    if bank == "ABSOLUTE":
        bank = str(outside)
    if bank == "link-out":
        (machine / "link-out").symlink_to(outside)
    (machine / ".ckp.toml").write_text(f"banks = [{bank!r}]\n")
    main(["fix", str(machine)])
    err = capsys.readouterr().err
    assert "leads outside" in err and repr(bank) in err
    assert (outside / "notes.md").read_text() == FIXABLE  # never rewritten
    assert not (outside / "_index.md").exists()
    main(["check", str(machine)])
    out, err = capsys.readouterr()
    assert "secret" not in out and "notes.md" not in out and "leads outside" in err
    assert find_banks([machine]) == []


def test_the_root_of_the_machine_is_no_bank(machine: Path) -> None:
    # Only the discovery is run: were it to regress, a command run on "/" would read (or rewrite)
    # the whole machine.
    (machine / ".ckp.toml").write_text("banks = ['/', '../../..']\n")
    problems: list[str] = []
    assert find_banks([machine], problems=problems) == []
    assert bank_of(machine / "docs" / "a.md", problems=problems) is None
    assert len(set(problems)) == 2 and all("leads outside" in p for p in problems)


def test_a_bank_named_inside_the_folder_is_kept_relative_or_absolute(machine: Path) -> None:
    (machine / ".ckp.toml").write_text(f"banks = ['docs', {str(machine / 'docs')!r}]\n")
    assert find_banks([machine]) == [machine / "docs"]
    config = load_config(machine)
    assert config.banks == ("docs", str(machine / "docs")) and config.problems == ()


def test_a_bank_named_outside_is_a_configuration_problem_of_the_banks_below(machine: Path) -> None:
    (machine / ".ckp.toml").write_text("banks = ['docs', '..']\n")
    config = config_for_bank(machine / "docs")
    assert config.banks == ("docs",)
    assert any("banks = '..' leads outside" in p for p in config.problems)


def test_excludes_that_leave_the_bank_are_ignored_and_said_so(machine: Path) -> None:
    (machine / ".ckp.toml").write_text(
        "exclude = ['README.md', '../*', '/etc/*', 'drafts/../../x', '~/*', 'drafts/*']\n"
    )
    config = load_config(machine)
    assert config.exclude == ("README.md", "drafts/*")
    assert len([p for p in config.problems if "names something outside the bank" in p]) == 4


def test_extend_exclude_that_leaves_the_bank_is_ignored_and_said_so(machine: Path) -> None:
    (machine / ".ckp.toml").write_text("extend_exclude = ['../*', 'drafts/*']\n")
    config = load_config(machine)
    assert "drafts/*" in config.exclude and "../*" not in config.exclude
    assert any("extend_exclude = '../*' names something outside the bank" in p for p in config.problems)
