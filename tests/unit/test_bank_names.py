"""Banks under any name, adopted, never duplicated: ``memory_bank/``, ``memoryBank/``,
``docs/memory-bank/``, ``.cursor/memory-bank/`` and a folder an agent's rules file names are found
by ``ckp check`` and adopted in place by ``ckp init``; a folder that only looks like a bank is
named by ``ckp init``, which then writes nothing. The real ``ckp`` command, in a git repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ckp_lsp.core.project.bank_names import folders_named_by_agents, is_bank_name
from ckp_lsp.core.project.discovery import find_banks
from tests.unit.builders import write_files

CKP = Path(sys.executable).with_name("ckp")
NOTES = {
    "auth.md": "# Auth\n\nTokens are signed with RS256.\n",
    "billing.md": "# Billing\n\nInvoices go out monthly.\n",
}

#: layout -> (the files besides the notes, the folder the notes are in)
LAYOUTS = {
    "memory_bank": ({}, "memory_bank"),
    "memoryBank": ({}, "memoryBank"),
    "docs/memory-bank": ({}, "docs/memory-bank"),
    ".cursor/memory-bank": ({}, ".cursor/memory-bank"),
    "CLAUDE.md": ({"CLAUDE.md": "# Project\n\nThe memory bank is in `docs/memory/`.\n"}, "docs/memory"),
    "AGENTS.md": ({"AGENTS.md": "Keep project knowledge in ./kb/ (one file per topic).\n"}, "kb"),
    ".clinerules": ({".clinerules": "Memory: read every file of notes/ai/ before a task.\n"}, "notes/ai"),
    ".clinerules/": ({".clinerules/memory.md": "# Memory\n\nOur memory lives in context/.\n"}, "context"),
    ".cursorrules": ({".cursorrules": "Knowledge base: `handbook/`.\n"}, "handbook"),
}


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CKP_NO_CACHE", "CKP_CACHE_DIR")}
    return subprocess.run([str(CKP), *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def project(root: Path, files: dict[str, str]) -> Path:
    write_files(root, {"README.md": "# Shop\n\nA shop.\n", "src/main.py": "print()\n", **files})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_bank_under_any_name_is_found_and_adopted_in_place(tmp_path: Path, layout: str) -> None:
    extra, where = LAYOUTS[layout]
    root = project(tmp_path / "shop", {**extra, **{f"{where}/{k}": v for k, v in NOTES.items()}})
    check = run(["check"], root)
    assert check.returncode == 0, check.stderr
    assert f"{where}/auth.md:1:1: warning CKP001" in check.stdout
    assert f"{where}/billing.md:1:1: warning CKP001" in check.stdout

    init = run(["init"], root)
    assert init.returncode == 0, init.stderr
    assert f"Adopted the bank {where}" in init.stdout
    assert not (root / "memory-bank").exists()  # never a second bank beside it
    assert (root / where / "_index.md").is_file()
    assert (root / where / "auth.md").read_text().startswith("CONCEPT:")
    assert (root / where / "auth.md").read_text().endswith(NOTES["auth.md"])  # the body, byte for byte
    assert f"`{where}/_index.md`" in init.stdout  # the agent rules name the bank adopted
    after = run(["check"], root)
    assert "CKP001" not in after.stdout, after.stdout


def test_a_folder_that_only_looks_like_a_bank_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    root = project(tmp_path / "shop", {f"docs/kb/{k}": v for k, v in NOTES.items()})
    before = snapshot(root)
    init = run(["init"], root)
    assert init.returncode == 1
    assert "docs/kb/  (2 Markdown files in a folder named 'kb')" in init.stderr
    assert "ckp init --bank-dir docs/kb" in init.stderr and 'banks = ["docs/kb"]' in init.stderr
    assert snapshot(root) == before

    adopt = run(["init", "--bank-dir", "docs/kb"], root)
    assert adopt.returncode == 0, adopt.stderr
    assert "Adopted the bank docs/kb" in adopt.stdout and not (root / "memory-bank").exists()
    assert (root / "docs/kb/projects").exists() is False  # adopted: no file of ours
    check = run(["check"], root)
    assert "docs/kb/auth.md" not in check.stdout or "CKP001" not in check.stdout


def test_a_folder_named_in_ckp_toml_is_adopted(tmp_path: Path) -> None:
    root = project(
        tmp_path / "shop",
        {".ckp.toml": 'banks = ["docs/kb"]\n', **{f"docs/kb/{k}": v for k, v in NOTES.items()}},
    )
    init = run(["init"], root)
    assert init.returncode == 0, init.stderr
    assert "Adopted the bank docs/kb" in init.stdout and not (root / "memory-bank").exists()


def test_cline_core_files_in_any_folder_look_like_a_bank(tmp_path: Path) -> None:
    root = project(
        tmp_path / "shop",
        {"ai/projectbrief.md": "# Brief\n\nA shop.\n", "ai/activeContext.md": "# Now\n\nCheckout.\n"},
    )
    init = run(["init"], root)
    assert init.returncode == 1
    assert "ai/  (holds activeContext.md, projectbrief.md, the files of a Cline memory bank)" in init.stderr


def test_a_project_without_any_bank_gets_memory_bank(tmp_path: Path) -> None:
    root = project(tmp_path / "shop", {"docs/api.md": "# API\n\nEndpoints.\n", "docs/setup.md": "# Setup\n"})
    init = run(["init"], root)
    assert init.returncode == 0, init.stderr
    assert (root / "memory-bank/_index.md").is_file()


def test_a_rules_file_pointing_at_documentation_names_no_bank(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "shop",
        {
            "CLAUDE.md": "See docs/ for the API documentation and src/ for the code.\n"
            "Context: the architecture is in docs/architecture/.\n"
            "Never read ../other/ or /etc/ (memory of other projects).\n",
            "docs/architecture/a.md": "# A\n",
            "docs/architecture/b.md": "# B\n",
            "docs/x.md": "# X\n",
        },
    )
    (root / ".git").mkdir()
    assert folders_named_by_agents(root) == []
    assert find_banks([root]) == []


def test_the_spellings_of_memory_bank() -> None:
    for name in ("memory-bank", "memory_bank", "memoryBank", "MemoryBank", ".memory-bank", ".memory_bank"):
        assert is_bank_name(name), name
    for name in ("memory", "bank", "memory-banks", "my-memory-bank", "docs"):
        assert not is_bank_name(name), name
