"""Finding banks (SPEC §1) and the knowledge files inside them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START
from ckp_lsp.core.project.discovery import (
    bank_of,
    find_banks,
    is_excluded,
    is_knowledge_path,
    knowledge_files,
)
from tests.unit.builders import bare_header, write_files

MARKED_INDEX = f"# Index\n\n{INDEX_START}\n{INDEX_END}\n"
BLOCKS_INDEX = "# Index\n\n---\nCONCEPT: jwt\nTLDR: Tokens.\nANSWERS_WHEN: jwt\n---\n"
HUGO_INDEX = "---\ntitle: Blog\nlayout: list\n---\n\nAll posts of the blog.\n"


def banks(root: Path, configured: list[Path] | None = None) -> list[str]:
    return [b.relative_to(root).as_posix() for b in find_banks([root], configured or [])]


def test_a_memory_bank_folder_is_a_bank(tmp_path: Path) -> None:
    write_files(tmp_path, {"project/memory-bank/a.md": bare_header()})
    assert banks(tmp_path) == ["project/memory-bank"]


def test_an_index_with_markers_makes_a_bank(tmp_path: Path) -> None:
    write_files(tmp_path, {"docs/kb/_index.md": MARKED_INDEX, "docs/kb/a.md": bare_header()})
    assert banks(tmp_path) == ["docs/kb"]


@pytest.mark.parametrize("index", [BLOCKS_INDEX, "CONCEPT: jwt\nTLDR: Tokens.\nANSWERS_WHEN: jwt\n"])
def test_an_index_of_header_blocks_makes_a_bank(tmp_path: Path, index: str) -> None:
    write_files(tmp_path, {"kb/_index.md": index})
    assert banks(tmp_path) == ["kb"]


def test_a_hugo_index_is_not_a_bank(tmp_path: Path) -> None:
    write_files(
        tmp_path, {"site/content/posts/_index.md": HUGO_INDEX, "site/content/posts/first.md": "# First\n"}
    )
    assert banks(tmp_path) == []
    assert bank_of(tmp_path / "site/content/posts/first.md") is None


def test_configured_banks_are_banks(tmp_path: Path) -> None:
    write_files(tmp_path, {"notes/a.md": bare_header(), "other/b.md": bare_header()})
    assert banks(tmp_path) == []
    assert banks(tmp_path, [tmp_path / "notes"]) == ["notes"]
    assert bank_of(tmp_path / "notes/a.md", [tmp_path / "notes"]) == (tmp_path / "notes").resolve()


def test_banks_never_nest_the_outermost_wins(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "memory-bank/a.md": bare_header(),
            "memory-bank/inner/memory-bank/b.md": bare_header(),
            "memory-bank/kb/_index.md": MARKED_INDEX,
        },
    )
    assert banks(tmp_path) == ["memory-bank"]
    inner = tmp_path / "memory-bank/inner/memory-bank/b.md"
    assert bank_of(inner) == (tmp_path / "memory-bank").resolve()
    assert "inner/memory-bank/b.md" in knowledge_files(tmp_path / "memory-bank")


def test_a_configured_bank_inside_another_bank_does_not_nest(tmp_path: Path) -> None:
    write_files(tmp_path, {"memory-bank/sub/a.md": bare_header()})
    assert banks(tmp_path, [tmp_path / "memory-bank/sub"]) == ["memory-bank"]


@pytest.mark.parametrize("skipped", [".git", "node_modules", ".venv", ".hidden"])
def test_tool_and_hidden_folders_are_not_searched(tmp_path: Path, skipped: str) -> None:
    write_files(
        tmp_path, {f"{skipped}/memory-bank/a.md": bare_header(), "src/memory-bank/a.md": bare_header()}
    )
    assert banks(tmp_path) == ["src/memory-bank"]


def test_a_root_that_is_itself_a_bank_is_found(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"a.md": bare_header()})
    assert find_banks([root]) == [root.resolve()]
    assert find_banks([root, root / "."]) == [root.resolve()]


def test_knowledge_files_skip_the_index_excluded_and_tool_folders(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "memory-bank",
        {
            "_index.md": MARKED_INDEX,
            "README.md": "# About\n",
            "a.md": bare_header(),
            "sub/b.md": bare_header(),
            "sub/_index.md": "a nested _index.md is an ordinary file\n",
            "notes.txt": "not Markdown\n",
            "drafts/c.md": bare_header(),
            ".obsidian/d.md": bare_header(),
            "node_modules/e.md": bare_header(),
        },
    )
    assert knowledge_files(root, ("README.md",)) == ["a.md", "drafts/c.md", "sub/_index.md", "sub/b.md"]
    assert knowledge_files(root, ("README.md", "drafts/*")) == ["a.md", "sub/_index.md", "sub/b.md"]
    assert knowledge_files(root) == ["README.md", "a.md", "drafts/c.md", "sub/_index.md", "sub/b.md"]


@pytest.mark.parametrize(
    ("relpath", "globs", "excluded"),
    [
        ("README.md", ("README.md",), True),
        ("sub/README.md", ("README.md",), True),  # a bare name matches in any folder
        ("drafts/a.md", ("drafts/*",), True),
        ("drafts/deep/a.md", ("drafts/*",), True),  # fnmatch's * crosses folders
        ("a.md", ("drafts/*",), False),
        ("archive-2024.md", ("archive-*.md",), True),
    ],
)
def test_exclude_globs(relpath: str, globs: tuple[str, ...], excluded: bool) -> None:
    assert is_excluded(relpath, globs) is excluded
    assert is_knowledge_path(relpath, globs) is not excluded


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlinks_are_followed_only_inside_the_bank(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"a.md": bare_header(), "sub/b.md": bare_header()})
    write_files(tmp_path, {"outside/secret.md": bare_header(), "outside/more/c.md": bare_header()})
    (root / "alias.md").symlink_to(root / "a.md")
    (root / "leak.md").symlink_to(tmp_path / "outside/secret.md")
    (root / "linked-folder").symlink_to(tmp_path / "outside/more", target_is_directory=True)
    assert knowledge_files(root) == ["a.md", "alias.md", "sub/b.md"]


def test_banks_named_in_ckp_toml_are_relative_to_that_file(tmp_path: Path) -> None:
    repo = write_files(
        tmp_path / "repo", {".ckp.toml": 'banks = ["docs/kb"]\n', "docs/kb/a.md": bare_header()}
    )
    (repo / ".git").mkdir()
    write_files(repo, {"tools/.ckp.toml": 'banks = ["kb2"]\n', "tools/kb2/b.md": bare_header()})
    assert banks(repo) == ["docs/kb", "tools/kb2"]
    assert find_banks([repo / "docs"]) == [(repo / "docs/kb").resolve()]  # named by the file above
    assert bank_of(repo / "docs/kb/a.md") == (repo / "docs/kb").resolve()
    assert bank_of(repo / "tools/kb2/b.md") == (repo / "tools/kb2").resolve()


def test_ckp_toml_above_the_repository_is_not_read(tmp_path: Path) -> None:
    write_files(tmp_path, {".ckp.toml": 'banks = ["repo/kb"]\n', "repo/kb/a.md": bare_header()})
    (tmp_path / "repo" / ".git").mkdir()
    assert find_banks([tmp_path / "repo"]) == []
    assert bank_of(tmp_path / "repo/kb/a.md") is None
