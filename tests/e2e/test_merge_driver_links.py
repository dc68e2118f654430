"""Installing the ``_index.md`` merge driver writes inside the project only: ``ckp init`` and
``ckp index --install-merge-driver`` refuse, with a message and nothing written, a
``.gitattributes`` linked out of the project, a ``.git/config`` linked out of it, and a ``.git``
file naming another repository's git folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.unit.builders import GIT_ENV, bare_header, git, run_ckp


def project(tmp_path: Path) -> Path:
    repo = tmp_path / "p"
    (repo / "memory-bank").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "memory-bank" / "redis.md").write_text(bare_header(CONCEPT="redis"))
    return repo


def ckp(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_ckp(list(args), cwd, GIT_ENV)


def install(repo: Path, how: str) -> subprocess.CompletedProcess[str]:
    if how == "init":
        return ckp("init", cwd=repo)
    return ckp("index", "memory-bank", "--install-merge-driver", cwd=repo)


def test_a_gitattributes_linked_out_of_the_project_is_not_written(tmp_path: Path) -> None:
    for how in ("index", "init"):
        repo = project(tmp_path / how)
        victim = tmp_path / how / "victim-attrs"
        victim.write_text("keep\n")
        (repo / ".gitattributes").symlink_to(victim)
        run = install(repo, how)
        assert "outside the project" in run.stderr, (how, run.stdout, run.stderr)
        assert victim.read_text() == "keep\n", how
        assert (repo / ".gitattributes").is_symlink()
        assert "ckp-index" not in (repo / ".git" / "config").read_text(), how  # nothing half done


def test_the_gitattributes_is_written_atomically_inside_the_project(tmp_path: Path) -> None:
    repo = project(tmp_path)
    (repo / ".gitattributes").write_text("*.png binary")
    run = install(repo, "index")
    assert run.returncode == 0, run.stderr
    assert (repo / ".gitattributes").read_text() == "*.png binary\nmemory-bank/_index.md merge=ckp-index\n"
    assert "merge.ckp-index" not in run.stderr
    assert '[merge "ckp-index"]' in (repo / ".git" / "config").read_text()


def test_a_git_config_linked_out_of_the_project_is_not_written(tmp_path: Path) -> None:
    repo = project(tmp_path)
    victim = tmp_path / "victim-config"
    config = repo / ".git" / "config"
    victim.write_text(config.read_text())
    before = victim.read_text()
    config.unlink()
    config.symlink_to(victim)
    run = install(repo, "index")
    assert run.returncode == 1 and "outside the project" in run.stderr, run.stderr
    assert "git config merge.ckp-index.driver" in run.stderr  # how to install it by hand
    assert victim.read_text() == before
    assert not (repo / ".gitattributes").exists()


def test_a_git_file_naming_another_repository_is_not_written(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    before = (other / ".git" / "config").read_text()
    repo = tmp_path / "p"
    (repo / "memory-bank").mkdir(parents=True)
    (repo / "memory-bank" / "redis.md").write_text(bare_header(CONCEPT="redis"))
    (repo / ".git").write_text(f"gitdir: {other / '.git'}\n")
    run = install(repo, "index")
    assert run.returncode == 1 and "nothing was written" in run.stderr, run.stderr
    assert "git config merge.ckp-index.driver" in run.stderr
    assert (other / ".git" / "config").read_text() == before
    assert not (repo / ".gitattributes").exists()
