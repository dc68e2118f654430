"""``staleness = "git"`` runs no program a repository chooses. A repository that arrives with its
own ``.git/config`` (an archive, a shared folder) setting ``core.fsmonitor``, a clean and smudge
filter, signature checking with its own ``gpg.program``, hooks and a pager, each a script that
leaves a marker: ``ckp check``, the language server and ``ckp mcp --read-only`` read the commit
dates, and no marker ever appears. An untrusted ``.ckp.toml`` cannot turn git mode on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.unit.builders import bare_header, git, run_ckp

from .harness import Session

ROOT = Path(__file__).resolve().parents[2]
REDIS = bare_header(CONCEPT="redis", VALIDATED="2025-06")
# cart validated its relationship in 2025-06; redis is committed in 2025-08: stale in git mode only
CART = bare_header(CONCEPT="cart", SIMILAR_HIGH="redis:2025-06", VALIDATED="2025-06")


def hostile_repository(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose own configuration names a program for everything it can, and the folder
    where each program would leave its marker."""
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = tmp_path / "repo"
    (repo / "memory-bank").mkdir(parents=True)
    git(repo, "init", "-q")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    for name in ("fsmonitor", "clean", "smudge", "process", "gpg", "hook", "pager", "textconv", "external"):
        script = scripts / name
        passes = "exec cat" if name in ("clean", "smudge", "textconv", "pager") else "exit 0"
        script.write_text(f"#!/bin/sh\n: > '{markers / name}'\n{passes}\n")
        script.chmod(0o755)
    (repo / "memory-bank" / "redis.md").write_text(REDIS)
    (repo / "memory-bank" / "cart.md").write_text(CART)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "bank", date="2025-08-01T12:00:00")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    settings = {
        "core.fsmonitor": scripts / "fsmonitor",
        "core.hooksPath": scripts,
        "core.pager": scripts / "pager",
        "pager.log": "true",
        "filter.evil.clean": scripts / "clean",
        "filter.evil.smudge": scripts / "smudge",
        "diff.evil.textconv": scripts / "textconv",
        "diff.external": scripts / "external",
        "log.showSignature": "true",
        "gpg.program": scripts / "gpg",
    }
    for key, value in settings.items():
        git(repo, "config", key, str(value))
    for hook in ("post-index-change", "reference-transaction", "post-checkout"):
        (scripts / hook).symlink_to(scripts / "hook")
    # A modified file and a touched one: ``git ls-files -m`` would hash both through the filter.
    (repo / "memory-bank" / "notes.md").write_text(bare_header(CONCEPT="notes"))
    st = (repo / "memory-bank" / "redis.md").stat()
    os.utime(repo / "memory-bank" / "redis.md", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    return repo, markers


def user_config(tmp_path: Path, text: str) -> Path:
    xdg = tmp_path / "xdg"
    (xdg / "ckp").mkdir(parents=True)
    (xdg / "ckp" / "config.toml").write_text(text)
    return xdg


def ckp(args: list[str], cwd: Path, xdg: Path) -> subprocess.CompletedProcess[str]:
    return run_ckp(args, cwd, {"XDG_CONFIG_HOME": str(xdg)})


def test_ckp_check_reads_the_dates_and_runs_no_program_of_the_repository(tmp_path: Path) -> None:
    repo, markers = hostile_repository(tmp_path)
    run = ckp(
        ["check", "memory-bank", "--format", "json"], repo, user_config(tmp_path, 'staleness = "git"\n')
    )
    assert "CKP050" in run.stdout, run.stdout + run.stderr  # the commit dates were read
    assert sorted(p.name for p in markers.iterdir()) == []


async def test_the_server_reads_the_dates_and_runs_no_program_of_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, markers = hostile_repository(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user_config(tmp_path, 'staleness = "git"\n')))
    async with Session.indexed(repo, settings={"staleness": "git"}) as session:
        cart = (repo / "memory-bank" / "cart.md").as_uri()
        codes = [d.code for d in session.client.diagnostics.get(cart, [])]  # type: ignore[attr-defined]
        assert "CKP050" in codes, session.client.diagnostics  # type: ignore[attr-defined]
    assert sorted(p.name for p in markers.iterdir()) == []


async def test_ckp_mcp_read_only_reads_the_dates_and_runs_no_program_of_the_repository(
    tmp_path: Path,
) -> None:
    repo, markers = hostile_repository(tmp_path)
    xdg = user_config(tmp_path, 'staleness = "git"\n')
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ckp_lsp.cli.main", "mcp", str(repo), "--read-only"],
        env={**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(xdg)},
        cwd=str(repo),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("ckp_check", {})
        assert not result.is_error and result.structured_content is not None
        codes = [d["code"] for d in result.structured_content["diagnostics"]]
        assert "CKP050" in codes, result.structured_content
    assert sorted(p.name for p in markers.iterdir()) == []


def test_an_untrusted_ckp_toml_cannot_turn_git_mode_on(tmp_path: Path) -> None:
    repo, markers = hostile_repository(tmp_path)
    (repo / ".ckp.toml").write_text('staleness = "git"\n')
    xdg = user_config(tmp_path, "")
    run = ckp(["check", "memory-bank", "--format", "json"], repo, xdg)
    assert "CKP050" not in run.stdout  # validated dates: cart's relationship is current
    assert "staleness" in run.stderr and "ckp trust" in run.stderr, run.stderr
    assert ckp(["trust", "."], repo, xdg).returncode == 0
    run = ckp(["check", "memory-bank", "--format", "json"], repo, xdg)
    assert "CKP050" in run.stdout, run.stdout + run.stderr  # trusted: git mode, and still no program
    assert sorted(p.name for p in markers.iterdir()) == []
