"""A file's bank follows from where the file is (and the settings), never from the folder ckp runs
in: the real ``ckp`` command, run from several working folders on the same file, finds the same bank."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ckp_lsp.core.project.discovery import bank_of
from tests.unit.builders import bare_header, write_files

CKP = Path(sys.executable).with_name("ckp")
#: a duplicate keyword: a warning ``ckp check`` reports, a header ``ckp compile`` rewrites
FILE = bare_header(CONCEPT="deep-note", TLDR="Deep notes.", ANSWERS_WHEN="depth, depth")
OTHER = bare_header(CONCEPT="top-note", TLDR="Top notes.", ANSWERS_WHEN="top")


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """``elsewhere/kb``: a bank by its CKP index alone, with a sub-folder, no ``.git`` above; and
    the working folders ckp is run from: the folder above, a git repository, a project with a
    ``.ckp.toml``, the bank's sub-folder, an unrelated folder."""
    kb = write_files(tmp_path / "elsewhere/kb", {"top.md": OTHER, "sub/file.md": FILE})
    assert run(["index", str(kb)], tmp_path).returncode == 0
    repo = write_files(tmp_path / "repo", {"memory-bank/mine.md": OTHER, "src/main.py": "print()\n"})
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    toml = write_files(tmp_path / "toml-project", {".ckp.toml": "exclude = []\n"})
    plain = write_files(tmp_path / "plain", {"notes.txt": "x\n"})
    return {
        "kb": kb,
        "above": tmp_path,
        "git repository": repo / "src",
        "ckp.toml project": toml,
        "bank sub-folder": kb / "sub",
        "unrelated folder": plain,
    }


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CKP_NO_CACHE", "CKP_CACHE_DIR")}
    return subprocess.run([str(CKP), *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


WORKING_FOLDERS = ["above", "git repository", "ckp.toml project", "bank sub-folder", "unrelated folder"]


@pytest.mark.parametrize("where", WORKING_FOLDERS)
def test_ckp_compile_finds_a_files_bank_from_any_working_folder(places: dict[str, Path], where: str) -> None:
    file = places["kb"] / "sub/file.md"
    done = run(["compile", "--provider", "offline", "--dry-run", "--diff", str(file)], places[where])
    assert done.returncode == 0, done.stderr
    assert "not inside a memory bank" not in done.stderr
    assert "-ANSWERS_WHEN: depth, depth" in done.stdout  # compiled in its bank, duplicate dropped
    assert file.read_text() == FILE  # --dry-run


@pytest.mark.parametrize("where", WORKING_FOLDERS)
def test_ckp_check_finds_a_files_bank_from_any_working_folder(places: dict[str, Path], where: str) -> None:
    file = places["kb"] / "sub/file.md"
    done = run(["check", "--format", "json", "--no-cache", str(file)], places[where])
    assert done.returncode == 0, done.stderr
    assert "not inside a memory bank" not in done.stderr
    assert "'depth' appears twice" in done.stdout
    assert '"files": 1' in done.stdout.replace(" ", "").replace('"files":1', '"files": 1')


def test_the_rule_in_the_core_needs_no_working_folder(places: dict[str, Path]) -> None:
    kb = places["kb"]
    assert bank_of(kb / "sub/file.md") == kb
    assert bank_of(kb / "sub") == kb
    assert bank_of(places["git repository"]) is None  # a project without a bank: none
