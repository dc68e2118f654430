"""The index never conflicts: real git repositories, two branches, ``git merge`` with the driver
``ckp index --install-merge-driver`` (or ``ckp init``) configures, and without it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.index_merge import merge_index
from ckp_lsp.core.project.config import config_for_bank
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import bare_header, run_cli

FILES = {
    "jwt.md": bare_header(CONCEPT="jwt", SIMILAR_HIGH="oauth2:2026-05"),
    "oauth2.md": bare_header(CONCEPT="oauth2", TLDR="Login flows.", ANSWERS_WHEN="oauth2, login"),
    "redis.md": bare_header(CONCEPT="redis", TLDR="The cache.", ANSWERS_WHEN="redis, cache"),
}


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))  # the user's own stays out
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=check)


def ckp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_cli(capsys, *argv)


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def repository(tmp_path: Path, capsys: pytest.CaptureFixture[str], driver: bool = True) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    bank = repo / "memory-bank"
    bank.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for rel, text in FILES.items():
        (bank / rel).write_text(text, encoding="utf-8")
    assert ckp(capsys, "index", str(bank))[0] == 0
    if driver:
        assert ckp(capsys, "index", str(bank), "--install-merge-driver")[0] == 0
    commit_all(repo, "bank")
    return repo, bank


def write(bank: Path, rel: str, text: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    if text is None:
        (bank / rel).unlink()
    else:
        (bank / rel).write_text(text, encoding="utf-8")
    assert ckp(capsys, "index", str(bank))[0] == 0


def expected_index(bank: Path) -> str:
    b = load_bank(bank, config_for_bank(bank))
    return update_index_text(b.index_text, b)


def test_two_branches_changing_different_files_merge_with_a_correct_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, bank = repository(tmp_path, capsys)
    git(repo, "checkout", "-q", "-b", "feature")
    write(
        bank, "billing.md", bare_header(CONCEPT="billing", TLDR="Invoices.", ANSWERS_WHEN="billing"), capsys
    )
    write(bank, "redis.md", None, capsys)
    commit_all(repo, "billing, no redis")
    git(repo, "checkout", "-q", "main")
    write(bank, "cart.md", bare_header(CONCEPT="cart", TLDR="The cart.", ANSWERS_WHEN="cart"), capsys)
    write(bank, "oauth2.md", FILES["oauth2.md"].replace("Login flows.", "Login and consent flows."), capsys)
    commit_all(repo, "cart, oauth2 consent")
    merged = git(repo, "merge", "-q", "--no-edit", "feature", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert git(repo, "status", "--porcelain").stdout == ""
    index = (bank / "_index.md").read_text(encoding="utf-8")
    assert (
        "<<<<<<<" not in index and "| billing |" in index and "| cart |" in index and "| redis |" not in index
    )
    assert "Login and consent flows." in index
    assert index == expected_index(bank)
    code, out, _ = ckp(capsys, "check", str(bank), "--no-cache")
    assert code == 0 and "CKP07" not in out


def test_a_conflicting_header_edit_conflicts_in_its_file_never_in_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, bank = repository(tmp_path, capsys)
    git(repo, "checkout", "-q", "-b", "feature")
    write(bank, "redis.md", FILES["redis.md"].replace("The cache.", "The session cache."), capsys)
    commit_all(repo, "theirs")
    git(repo, "checkout", "-q", "main")
    write(bank, "redis.md", FILES["redis.md"].replace("The cache.", "The rate-limit cache."), capsys)
    commit_all(repo, "ours")
    merged = git(repo, "merge", "-q", "--no-edit", "feature", check=False)
    assert merged.returncode != 0
    status = git(repo, "status", "--porcelain").stdout.splitlines()
    assert status == ["UU memory-bank/redis.md"]  # the file, and nothing else, is in conflict
    assert "<<<<<<<" in (bank / "redis.md").read_text(encoding="utf-8")
    assert "<<<<<<<" not in (bank / "_index.md").read_text(encoding="utf-8")
    # Resolved, the file's header is what the index is made from once more.
    (bank / "redis.md").write_text(
        FILES["redis.md"].replace("The cache.", "The session cache."), encoding="utf-8"
    )
    assert ckp(capsys, "index", str(bank))[0] == 0
    assert (bank / "_index.md").read_text(encoding="utf-8") == expected_index(bank)


def test_the_driver_installed_twice_is_installed_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, bank = repository(tmp_path, capsys)
    code, out, _ = ckp(capsys, "index", str(bank), "--install-merge-driver")
    assert code == 0 and "installed already" in out
    drivers = git(repo, "config", "--local", "--get-all", "merge.ckp-index.driver").stdout.splitlines()
    assert len(drivers) == 1 and drivers[0].endswith("index --merge-driver %O %A %B %P")
    attributes = (repo / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert attributes == ["memory-bank/_index.md merge=ckp-index"]
    assert git(repo, "check-attr", "merge", "memory-bank/_index.md").stdout.strip().endswith("ckp-index")
    # Only the repository's own configuration: the user's file is untouched.
    assert not (tmp_path / "gitconfig").exists()


def test_ckp_init_installs_the_driver_in_a_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("# Shop\n\nA shop.\n", encoding="utf-8")
    code, out, err = ckp(capsys, "init", str(repo))
    assert code == 0, err
    assert "merge driver" in out
    assert git(repo, "check-attr", "merge", "memory-bank/_index.md").stdout.strip().endswith("ckp-index")
    code, out, _ = ckp(capsys, "init", str(repo))
    assert code == 0 and "merge driver" not in out  # the second run has nothing to do


def test_without_the_driver_ckp_check_says_how_to_recover(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, bank = repository(tmp_path, capsys, driver=False)
    git(repo, "checkout", "-q", "-b", "feature")
    write(bank, "kafka.md", bare_header(CONCEPT="kafka", TLDR="Events.", ANSWERS_WHEN="kafka"), capsys)
    commit_all(repo, "kafka")
    git(repo, "checkout", "-q", "main")
    write(bank, "kappa.md", bare_header(CONCEPT="kappa", TLDR="Streams.", ANSWERS_WHEN="kappa"), capsys)
    commit_all(repo, "kappa")
    assert git(repo, "merge", "-q", "--no-edit", "feature", check=False).returncode != 0
    assert "<<<<<<<" in (bank / "_index.md").read_text(encoding="utf-8")
    code, out, _ = ckp(capsys, "check", str(bank), "--no-cache")
    assert code == 1 and "CKP072" in out and "run `ckp index`" in out
    assert ckp(capsys, "index", str(bank))[0] == 0
    assert (bank / "_index.md").read_text(encoding="utf-8") == expected_index(bank)
    code, out, _ = ckp(capsys, "check", str(bank), "--no-cache")
    assert code == 0 and "CKP07" not in out


def test_the_users_text_outside_the_markers_changed_on_both_sides_is_left_to_git() -> None:
    base = "# Index\n\n<!-- ckp:index:start -->\n| CONCEPT |\n|---|\n<!-- ckp:index:end -->\n"
    ours, theirs = base.replace("# Index", "# Our index"), base.replace("# Index", "# Their index")
    assert merge_index(base, ours, theirs) is None
    assert merge_index(base, ours, base) == ours
    assert merge_index(base, "no markers", theirs) is None
