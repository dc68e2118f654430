"""File and folder names that are not UTF-8: skipped, with their names shown escaped."""

from __future__ import annotations

import os
from pathlib import Path

from ckp_lsp.core.bank.stat_scan import stat_tree
from ckp_lsp.core.project.discovery import knowledge_files, shown_name
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import bare_header


def odd_bank(tmp_path: Path) -> Path:
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "good.md").write_text(bare_header(CONCEPT="good"), encoding="utf-8")
    (bank / os.fsdecode(b"\xff.md")).write_text(bare_header(CONCEPT="bad"), encoding="utf-8")
    (bank / os.fsdecode(b"caf\xe9")).mkdir()
    (bank / os.fsdecode(b"caf\xe9") / "inner.md").write_text(bare_header(CONCEPT="inner"), encoding="utf-8")
    (bank / "café.md").write_text(bare_header(CONCEPT="cafe"), encoding="utf-8")  # UTF-8: read
    return bank


def test_a_name_that_is_not_utf8_is_shown_with_its_bytes_escaped() -> None:
    assert shown_name(os.fsdecode(b"a\xff\xfeb.md")) == "a\\xff\\xfeb.md"
    assert shown_name("café.md") == "café.md"


def test_files_and_folders_named_in_other_bytes_are_skipped_with_the_reason(tmp_path: Path) -> None:
    bank = odd_bank(tmp_path)
    skipped: dict[str, str] = {}
    assert knowledge_files(bank, (), skipped) == ["café.md", "good.md"]
    assert skipped == {
        "\\xff.md": "a file name that is not valid UTF-8",
        "caf\\xe9": "a folder name that is not valid UTF-8",
    }


def test_a_bank_with_such_names_loads_and_every_value_is_text(tmp_path: Path) -> None:
    loaded = load_bank(odd_bank(tmp_path))
    assert sorted(loaded.by_concept) == ["cafe", "good"]
    assert set(loaded.unreadable) == {"\\xff.md", "caf\\xe9"}
    for rel in [*loaded.files, *loaded.unreadable]:
        rel.encode("utf-8")  # no lone surrogate reaches a URI, JSON or a message


def test_the_stat_scan_of_the_polling_faces_leaves_them_out(tmp_path: Path) -> None:
    bank = odd_bank(tmp_path)
    stats = stat_tree(str(bank), enter=lambda name: True, keep=lambda name: name.endswith(".md"))
    assert sorted(stats) == ["café.md", "good.md"]
