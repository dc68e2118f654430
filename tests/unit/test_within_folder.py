"""``within.Folder`` reads, glances at and lists a folder's files only inside it: a symbolic link
out of the folder is never followed (a read, a head, a listing, a walk), a named pipe is never
opened, and names with bytes that are not UTF-8 are read and listed all the same."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ckp_lsp.core.project.config import load_config
from ckp_lsp.core.project.membership import bank_rel
from ckp_lsp.core.project.within import (
    Folder,
    Outside,
    climbs,
    config_text,
    listing,
    spelled_inside,
)

#: a name Linux allows and UTF-8 cannot spell (it comes back as a lone surrogate)
ODD = os.fsdecode(b"odd-\xff\xfe.md")


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """A bank holding a file, a folder, a link to a secret file outside and a link to a folder
    outside."""
    root = tmp_path / "bank"
    (root / "sub").mkdir(parents=True)
    (root / "own.md").write_bytes(b"CONCEPT: own\nBody of the bank.\n")
    (root / "sub" / "deep.md").write_bytes(b"deep")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_bytes(b"hunter2")
    (root / "leak.md").symlink_to(outside / "secret.md")
    (root / "away").symlink_to(outside)
    return root


def test_head_reads_the_first_bytes_of_a_file_inside(bank: Path) -> None:
    assert Folder(bank).head(bank / "own.md", 7) == b"CONCEPT"
    assert Folder(bank).head(bank / "sub" / "deep.md", 100) == b"deep"  # all of a shorter one


def test_head_and_read_refuse_a_link_that_leads_outside(bank: Path) -> None:
    disk = Folder(bank)
    with pytest.raises(Outside):
        disk.head(bank / "leak.md", 100)
    with pytest.raises(Outside):
        disk.read(bank / "leak.md")
    with pytest.raises(Outside):
        disk.head(bank / "away" / "secret.md", 100)  # through a linked folder too


def test_entries_lists_a_link_out_without_following_it_and_refuses_a_folder_outside(bank: Path) -> None:
    disk = Folder(bank)
    names = {e.name: e for e in disk.entries(bank)}
    assert set(names) == {"own.md", "sub", "leak.md", "away"}
    assert names["away"].is_symlink() and names["leak.md"].is_symlink()
    with pytest.raises(Outside):
        disk.entries(bank / "away")  # the folder the link leads to is not listed
    with pytest.raises(Outside):
        disk.entries(bank.parent / "outside")


def test_walk_never_enters_a_folder_linked_from_outside(bank: Path) -> None:
    walked = {
        os.path.relpath(top, bank): (sorted(dirs), sorted(files)) for top, dirs, files in Folder(bank).walk()
    }
    assert walked == {".": (["away", "sub"], ["leak.md", "own.md"]), "sub": ([], ["deep.md"])}


def test_a_named_pipe_is_never_opened(bank: Path) -> None:
    os.mkfifo(bank / "pipe.md")  # opening it for reading would wait for a writer forever
    disk = Folder(bank)
    with pytest.raises(Outside, match="not a regular file"):
        disk.head(bank / "pipe.md", 10)
    with pytest.raises(Outside, match="not a regular file"):
        disk.read(bank / "pipe.md")
    assert disk.why_not_read(bank / "pipe.md") == "a named pipe, not a file"
    with pytest.raises(Outside):
        config_text(bank / "pipe.md", bank)


def test_names_with_bytes_that_are_not_utf8_are_listed_and_read(bank: Path) -> None:
    (bank / ODD).write_bytes(b"odd body")
    disk = Folder(bank)
    assert ODD in {e.name for e in disk.entries(bank)}
    assert disk.head(bank / ODD, 3) == b"odd"
    assert disk.read(bank / ODD).text == "odd body"
    assert disk.why_not_read(bank / ODD) is None


def test_why_not_read_says_why_each_file_is_left_out(bank: Path) -> None:
    disk = Folder(bank)
    (bank / "alias.md").symlink_to("own.md")
    (bank / "dangling.md").symlink_to("gone.md")
    assert disk.why_not_read(bank / "own.md") is None
    assert disk.why_not_read(bank / "alias.md") is None  # a link that stays inside is read
    assert disk.why_not_read(bank / "leak.md") == "a symbolic link that leads outside the bank"
    assert disk.why_not_read(bank / "dangling.md") == "a symbolic link to a file that does not exist"
    assert disk.why_not_read(bank / "sub") == "a folder, not a file"


def test_listing_lists_a_folder_by_itself(bank: Path) -> None:
    assert {e.name for e in listing(bank / "sub")} == {"deep.md"}


@pytest.mark.parametrize("rel", ["~notes.md", "a:b.md", "a\\..\\b.md", "x..y/z.md"])
def test_a_bank_relative_name_climbs_only_with_a_dotdot_part(rel: str) -> None:
    # Names a file may have on Linux: documents of the bank, not paths out of it.
    assert not climbs(rel)
    assert climbs("a/../b.md") and climbs("..")


@pytest.mark.parametrize(
    ("rel", "stays"),
    [
        ("drafts/*", True),
        ("a/b.md", True),
        ("..", False),
        ("a/../../b", False),
        ("a\\..\\b", False),
        ("/etc", False),
        ("\\share", False),
        ("~/x", False),
        ("C:/x", False),
    ],
)
def test_spelled_inside_judges_a_relative_path_by_its_spelling(rel: str, stays: bool) -> None:
    assert spelled_inside(rel) is stays


def test_a_configuration_file_linked_out_of_its_repository_is_not_read(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    (project / ".ckp.toml").write_text("max_tokens = 1234\n")
    (project / "sub" / ".ckp.toml").symlink_to(project / ".ckp.toml")  # the repository's own: read
    assert config_text(project / "sub" / ".ckp.toml", project) == "max_tokens = 1234\n"
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text("max_tokens = 99\n")
    (project / ".ckp.toml").unlink()
    (project / ".ckp.toml").symlink_to(elsewhere)
    config = load_config(project)
    assert any("leads outside" in p for p in config.problems)
    assert config_text(elsewhere, None) == "max_tokens = 99\n"  # the user's own file: read where it is


def test_bank_rel_keeps_a_document_whose_name_only_looks_like_a_way_out(bank: Path) -> None:
    (bank / "~notes.md").write_bytes(b"notes")
    (bank / "a:b.md").write_bytes(b"notes")
    assert bank_rel(bank / "~notes.md", bank, ()) == "~notes.md"
    assert bank_rel(bank / "a:b.md", bank, ()) == "a:b.md"
    assert bank_rel(bank / "sub" / ".." / ".." / "x.md", bank, ()) is None
    assert bank_rel(bank / "away" / "secret.md", bank, ()) is None  # a folder linked in from outside
