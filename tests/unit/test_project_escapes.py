"""A bank folder reached through a symbolic link that leads out of its project is refused, with a
message, by every command; a link that stays inside, or one above the project, is no escape."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.project.discovery import bank_of, find_banks, named_bank
from ckp_lsp.core.project.within import escape, inside, project_root

REPO = Path(__file__).resolve().parents[2]
SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI-secret-of-the-user"


def snapshot(folder: Path, skip: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below ``folder`` but ``skip``, links not followed: its bytes and mode."""
    out: dict[str, tuple[bytes, int]] = {}
    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if Path(here, d) != skip]
        for name in files:
            p = Path(here, name)
            if not p.is_symlink():
                out[str(p.relative_to(folder))] = (p.read_bytes(), p.stat().st_mode)
    return out


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def every_text_below(folder: Path) -> str:
    return "\n".join(
        p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
    )


@pytest.fixture
def linked_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``parent/clone`` (a git repository) whose ``memory-bank`` links to ``..``, beside a sibling
    project with Markdown of its own; the current folder is the clone."""
    parent = tmp_path / "parent"
    sibling = git_repo(parent / "sibling")
    (sibling / "memory-bank").mkdir()
    (sibling / "memory-bank" / "notes.md").write_text("# Notes\n\nThe sibling's own notes.\n")
    (parent / "todo.md").write_text("# Todo\n\nBuy milk.\n")
    clone = git_repo(parent / "clone")
    (clone / "memory-bank").symlink_to("..")
    monkeypatch.chdir(clone)
    return clone


@pytest.mark.parametrize(
    "argv",
    [
        ["init"],
        ["compile", "--all", "memory-bank"],
        ["compile", "--all", "memory-bank", "--force"],
        ["index", "memory-bank"],
        ["fix", "memory-bank"],
        ["check", "memory-bank"],
        ["check", "memory-bank/todo.md"],
        ["route", "memory-bank", "milk"],
        ["init", "--bank-dir", "memory-bank"],
    ],
)
def test_a_bank_linked_out_of_its_project_is_refused(
    linked_out: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    parent = linked_out.parent
    before = snapshot(parent, skip=linked_out)
    code = main(argv)
    err = capsys.readouterr().err
    assert code != 0
    assert "leads outside its project" in err and "Traceback" not in err
    assert snapshot(parent, skip=linked_out) == before
    assert not (parent / ".ckp-cache").exists() and not (parent / "projects").exists()


def test_the_discovery_functions_refuse_the_link(linked_out: Path) -> None:
    problems: list[str] = []
    assert bank_of(linked_out / "memory-bank" / "todo.md", problems=problems) is None
    assert named_bank(linked_out / "memory-bank") is None
    assert find_banks([linked_out / "memory-bank"], problems=problems) == []
    assert any("leads outside its project" in p for p in problems)


def test_a_bank_linked_inside_its_project_is_a_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = git_repo(tmp_path / "clone")
    (clone / "docs" / "memory").mkdir(parents=True)
    (clone / "docs" / "memory" / "a.md").write_text("CONCEPT: a\nTLDR: A.\nANSWERS_WHEN: a\n\nBody.\n")
    (clone / "memory-bank").symlink_to("docs/memory")
    monkeypatch.chdir(clone)
    assert escape(clone / "memory-bank") is None
    assert main(["index", "memory-bank"]) == 0
    assert (clone / "docs" / "memory" / "_index.md").is_file()


def test_a_link_above_the_project_is_no_escape(tmp_path: Path) -> None:
    real = git_repo(tmp_path / "real" / "clone")
    (real / "memory-bank").mkdir()
    (tmp_path / "via").symlink_to("real")
    spelled = tmp_path / "via" / "clone" / "memory-bank"
    assert project_root(spelled) == tmp_path / "via" / "clone"
    assert escape(spelled) is None


def test_inside_follows_every_link_and_dangling_ones(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "out").symlink_to("../elsewhere")
    assert inside(tmp_path / "root" / "a" / "b", tmp_path / "root")
    assert not inside(tmp_path / "root" / "out", tmp_path / "root")
    assert not inside(tmp_path / "root" / ".." / "x", tmp_path / "root")
    assert not inside(tmp_path / "rootx", tmp_path / "root")
