"""A thousand nested folders: banks are found without recursion, and the depth is bounded with a message."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ckp_lsp.core.project.discovery import MAX_DEPTH, find_banks, knowledge_files
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import bare_header, remove_nested


@pytest.fixture(autouse=True)
def removed(tmp_path: Path) -> Iterator[None]:
    """The nested folders go at the end: pytest's own clean-up of old folders would recurse."""
    yield
    remove_nested(tmp_path)


def nest(folder: Path, depth: int, leaf: bytes | None = None) -> None:
    """``depth`` folders ``d/d/…`` below ``folder``, made through descriptors, and ``x.md`` at the bottom."""
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    if leaf is not None:
        out = os.open("x.md", os.O_WRONLY | os.O_CREAT, dir_fd=fd)
        os.write(out, leaf)
        os.close(out)
    os.close(fd)


def test_banks_below_a_thousand_nested_folders_are_searched_without_recursion(tmp_path: Path) -> None:
    (tmp_path / "a" / "memory-bank").mkdir(parents=True)
    nest(tmp_path, 1000)
    problems: list[str] = []
    assert find_banks([tmp_path], problems=problems) == [tmp_path / "a" / "memory-bank"]
    (problem,) = problems
    assert problem == (
        f"{tmp_path}{'/d' * MAX_DEPTH}: folders nested more than {MAX_DEPTH} levels deep are not searched for banks"
    )


def test_a_bank_just_within_the_depth_is_found(tmp_path: Path) -> None:
    nest(tmp_path, MAX_DEPTH - 1)
    deep = tmp_path.joinpath(*["d"] * (MAX_DEPTH - 1), "memory-bank")
    deep.mkdir()
    assert find_banks([tmp_path]) == [deep]


def test_a_banks_files_below_the_depth_are_skipped_with_the_reason(tmp_path: Path) -> None:
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "good.md").write_text(bare_header(CONCEPT="good"), encoding="utf-8")
    nest(bank, 1000, bare_header(CONCEPT="x").encode())
    skipped: dict[str, str] = {}
    assert knowledge_files(bank, (), skipped) == ["good.md"]
    assert skipped == {"d/" * MAX_DEPTH + "d": f"a folder nested more than {MAX_DEPTH} levels deep"}
    assert sorted(load_bank(bank).by_concept) == ["good"]
