"""Reading git fetches nothing: a repository that arrives with its own ``.git`` can declare itself
a partial clone of a promisor remote whose transport (``core.sshCommand``) is a program of its
choosing; when an object is missing git would fetch it, running that program. ``ckp diff``,
``ckp check --changed`` and ``staleness = "git"`` read such a repository and no marker appears."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.unit.builders import GIT_ENV, bare_header, git, run_ckp


def promisor_repository(tmp_path: Path) -> tuple[Path, Path]:
    """Two commits of a bank; the blob of ``redis.md`` at HEAD and the bank's tree at HEAD~1 are
    missing, and the promisor remote's ssh command leaves a marker: the repository and marker."""
    marker = tmp_path / "PWNED"
    ssh = tmp_path / "ssh.sh"
    ssh.write_text(f"#!/bin/sh\n: > '{marker}'\nexit 1\n")
    ssh.chmod(0o755)
    repo = tmp_path / "repo"
    (repo / "memory-bank").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "memory-bank" / "cart.md").write_text(bare_header(CONCEPT="cart"))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "one", date="2025-07-01T12:00:00")
    old_tree = _rev(repo, "HEAD:memory-bank")
    (repo / "memory-bank" / "redis.md").write_text(bare_header(CONCEPT="redis"))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "two", date="2025-08-01T12:00:00")
    (repo / "memory-bank" / "redis.md").write_text(bare_header(CONCEPT="redis", TLDR="Changed."))
    for oid in (_rev(repo, "HEAD:memory-bank/redis.md"), old_tree):
        (repo / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    for key, value in {
        "core.repositoryformatversion": "1",
        "extensions.partialClone": "origin",
        "remote.origin.url": "ssh://127.0.0.1/x",
        "remote.origin.promisor": "true",
        "core.sshCommand": str(ssh),
    }.items():
        git(repo, "config", key, value)
    return repo, marker


def _rev(repo: Path, name: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", name], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def ckp(args: list[str], repo: Path, tmp_path: Path, config: str = "") -> subprocess.CompletedProcess[str]:
    xdg = tmp_path / "xdg"
    (xdg / "ckp").mkdir(parents=True, exist_ok=True)
    (xdg / "ckp" / "config.toml").write_text(config)
    return run_ckp(args, repo, {**GIT_ENV, "XDG_CONFIG_HOME": str(xdg)})


def test_the_repository_would_run_its_ssh_command_on_a_lazy_fetch(tmp_path: Path) -> None:
    repo, marker = promisor_repository(tmp_path)
    env = {**os.environ, **GIT_ENV}
    subprocess.run(
        ["git", "-C", str(repo), "cat-file", "blob", "HEAD:memory-bank/redis.md"],
        env=env,
        capture_output=True,
    )
    assert marker.exists()  # the setting is live: the tests below prove ckp keeps it from running


def test_ckp_diff_fetches_nothing(tmp_path: Path) -> None:
    repo, marker = promisor_repository(tmp_path)
    run = ckp(["diff", "HEAD"], repo, tmp_path)
    assert run.returncode in (0, 1, 2) and "Traceback" not in run.stderr, run.stderr
    assert not marker.exists(), run.stdout + run.stderr


def test_ckp_check_changed_fetches_nothing(tmp_path: Path) -> None:
    repo, marker = promisor_repository(tmp_path)
    run = ckp(["check", "--changed", "HEAD", "memory-bank"], repo, tmp_path)
    assert "Traceback" not in run.stderr, run.stderr
    assert not marker.exists(), run.stdout + run.stderr


def test_git_staleness_fetches_nothing(tmp_path: Path) -> None:
    repo, marker = promisor_repository(tmp_path)
    run = ckp(["check", "memory-bank"], repo, tmp_path, 'staleness = "git"\n')
    assert "Traceback" not in run.stderr, run.stderr
    assert not marker.exists(), run.stdout + run.stderr
