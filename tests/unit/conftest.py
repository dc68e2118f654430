"""Unit-test fixtures shared by several modules: data banks copied into the current folder, an
empty compiler cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ckp_lsp.core.compile import compiler
from tests.unit.builders import FAULTY, SHOP, copy_to_cwd


@pytest.fixture
def faulty_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the faulty bank at ``memory-bank`` in the current folder: one error, two warnings
    and no ``_index.md``."""
    return copy_to_cwd(FAULTY, tmp_path / "memory-bank", monkeypatch)


@pytest.fixture
def shop_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shop bank at ``memory-bank`` in the current folder: every check passes and its
    index is current."""
    return copy_to_cwd(SHOP, tmp_path / "memory-bank", monkeypatch)


@pytest.fixture
def not_a_bank_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder ``notes`` in the current folder: not a memory bank, and none below it."""
    monkeypatch.chdir(tmp_path)
    notes = tmp_path / "notes"
    notes.mkdir()
    return notes


@pytest.fixture
def empty_compile_cache() -> Iterator[None]:
    """No answers remembered from another test, and none left for the next (the compiler's
    cache is the process's)."""
    compiler._CACHE.clear()
    yield
    compiler._CACHE.clear()
