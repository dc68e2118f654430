"""A bank read on two cores, or in parts sent to another process, is the bank read at once."""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

import pytest

from ckp_lsp.core import other_core
from ckp_lsp.core.bank import PARALLEL_HALF, Bank, read_items
from ckp_lsp.core.checks import check_file, check_index
from ckp_lsp.core.knowledge import brief
from tests.unit.builders import SHOP, copy_bank

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def generated(dest: Path, n: int) -> Path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from genbank import generate
    finally:
        sys.path.pop(0)
    generate(dest, n, seed=5)
    return dest


def same_bank(a: Bank, b: Bank) -> None:
    """Same files in the same order, the same tables, and the same findings everywhere."""
    assert list(a.files) == list(b.files)
    assert a.unreadable == b.unreadable
    assert a.index_text == b.index_text
    assert a.by_concept == b.by_concept
    assert a.backlinks == b.backlinks
    assert dict(a.claims) == dict(b.claims)
    for rel in a.files:
        assert check_file(a, rel) == check_file(b, rel), rel
    assert check_index(a) == check_index(b)


def test_a_large_bank_is_read_on_two_cores_as_on_one(tmp_path: Path) -> None:
    bank = generated(tmp_path, 2 * PARALLEL_HALF + 50)
    assert other_core.can_fork()
    # A file with findings of its own travels whole; a symlink is skipped and said why.
    (bank / "zz-no-header.md").write_text("Just prose, no header.\n", encoding="utf-8")
    os.symlink(bank / "zz-no-header.md", bank / "zz-link.md")
    same_bank(Bank.load(bank), Bank.load(bank, parallel=True))


@pytest.mark.parametrize(
    "bank", [SAMPLES / "broken" / "memory-bank", SAMPLES / "mentat" / "memory-bank", SHOP]
)
def test_a_bank_sent_in_parts_is_built_again_the_same(bank: Path) -> None:
    read = Bank(bank, Bank.load(bank).config)
    built = Bank(bank, read.config)
    for part in read.read_parts(4):
        built.add_part(pickle.loads(pickle.dumps(part)))  # as it crosses to another process
    built.index_text = read.index_text
    same_bank(Bank.load(bank), read)
    same_bank(read, built)


def test_clean_files_travel_brief_and_others_whole() -> None:
    bank = SAMPLES / "broken" / "memory-bank"
    items = read_items(os.path.join(bank, ""), sorted(Bank.load(bank).files))
    loaded = Bank.load(bank)
    for item in items:
        kf = loaded.files[item[0] if isinstance(item, tuple) else item.path]
        assert (brief(kf) is None) == (not isinstance(item, tuple))
    assert any(isinstance(i, tuple) for i in items) and any(not isinstance(i, tuple) for i in items)


def test_a_file_whose_date_is_no_longer_valid_is_read_again(tmp_path: Path) -> None:
    bank = copy_bank(SHOP, tmp_path / "memory-bank")
    items = read_items(os.path.join(bank, ""), sorted(Bank.load(bank).files))
    first = next(i for i in items if isinstance(i, tuple) and len(i) > 2)
    # A VALIDATED that was in the past when sent and is not now (the day changed meanwhile).
    future = (*first[:5], "2999-01", *first[6:])
    built = Bank(bank)
    built.add_part([future])
    assert built.files[first[0]].validated_text == Bank.load(bank).files[first[0]].validated_text


def test_ckp_check_of_a_large_bank_on_two_cores_finds_what_one_core_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ckp_lsp.cli import check

    bank = generated(tmp_path / "memory-bank", 2 * PARALLEL_HALF + 20)
    (bank / "zz-no-header.md").write_text("Just prose, no header.\n", encoding="utf-8")
    forked: list[object] = []
    start = other_core.start

    def counted(work: object) -> object:
        child = start(work)  # type: ignore[arg-type]
        forked.append(child)
        return child

    monkeypatch.setattr(other_core, "start", counted)
    two = check.collect([bank])
    assert len(forked) == 2 and all(forked)  # the reading and the checking
    monkeypatch.setattr(other_core, "start", lambda work: None)
    one = check.collect([bank])
    assert two == one
    assert {path.name for path, _ in two[0]} >= {"_index.md", "zz-no-header.md"}
