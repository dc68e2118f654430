"""The cache of parsed files (``core.bank.cache``): a bank read through it is the bank read from
disk, a changed file is read again, a broken cache is ignored, and it is written only where
it may be."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main as ckp
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.cache import FOLDER, FileCache, cache_path
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.brief import brief
from ckp_lsp.faces import banks
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import SHOP, copy_bank

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


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


def cached(root: Path) -> tuple[Bank, FileCache]:
    cache = FileCache.for_bank(root)
    assert cache is not None
    return load_bank(root, None, cache), cache


@pytest.fixture(autouse=True)
def _default_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CKP_CACHE_DIR", raising=False)
    monkeypatch.delenv("CKP_NO_CACHE", raising=False)


@pytest.mark.parametrize(
    "bank", [SAMPLES / "broken" / "memory-bank", SAMPLES / "mentat" / "memory-bank", SHOP]
)
def test_a_bank_read_through_its_cache_is_the_bank_read_from_disk(tmp_path: Path, bank: Path) -> None:
    root = copy_bank(bank, tmp_path / "memory-bank")
    os.symlink(root / "nowhere.md", root / "zz-link.md")  # skipped, and said why, either way
    first, cache = cached(root)
    assert cache.hits == 0
    second, cache = cached(root)
    clean = [rel for rel, kf in first.files.items() if brief(kf) is not None]
    assert cache.hits == len(clean) > 0
    same_bank(load_bank(root), first)
    same_bank(load_bank(root), second)


def test_the_cache_folder_is_ignored_by_git_and_holds_one_file(tmp_path: Path) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    cached(root)
    folder = root / FOLDER
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "bank.marshal"]
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_changed_added_or_deleted_file_is_read_again(tmp_path: Path) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    before, _ = cached(root)
    rel = next(r for r, kf in before.files.items() if brief(kf) is not None)
    path = root / rel
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\nMore body.\n", encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    (root / "new-note.md").write_text(
        "CONCEPT: new-note\nTLDR: A new note.\nANSWERS_WHEN: new\nVALIDATED: 2026-10\n\nBody.\n",
        encoding="utf-8",
    )
    gone = sorted(before.files)[-1]
    (root / gone).unlink()
    after, cache = cached(root)
    assert after.files[rel].size == before.files[rel].size + len("\nMore body.\n")
    assert "new-note.md" in after.files and gone not in after.files
    same_bank(load_bank(root), after)
    assert cache.hits == len([kf for kf in after.files.values() if brief(kf) is not None]) - 2


def test_an_entry_whose_date_is_not_valid_is_read_again(tmp_path: Path) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    cached(root)
    cache = FileCache.for_bank(root)  # the entries as written: briefs
    assert cache is not None
    cache._new = dict(cache._old)
    rel, (size, mtime, b) = next((r, e) for r, e in cache._new.items() if e[2] is not None)
    # A VALIDATED the fast scan would not have read (an entry that does not hold): the file is read.
    cache._new[rel] = (size, mtime, (*b[:5], "2025-13", *b[6:]))
    cache._changed = True
    cache.save()
    again, cache = cached(root)
    assert again.files[rel].validated_text == load_bank(root).files[rel].validated_text != "2025-13"
    assert cache.hits == len(cache._old) - 1 - sum(e[2] is None for e in cache._old.values())
    same_bank(load_bank(root), again)


@pytest.mark.parametrize(
    "content",
    [b"", b"garbage", b"\x00" * 100, None],
    ids=["empty", "text", "zeros", "truncated"],
)
def test_a_broken_or_foreign_cache_is_ignored_and_written_anew(tmp_path: Path, content: bytes | None) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    cached(root)
    path = cache_path(root)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if content is None else content)
    bank, cache = cached(root)
    assert cache.hits == 0
    same_bank(load_bank(root), bank)
    assert cached(root)[1].hits > 0  # written anew


@pytest.mark.parametrize("shape", ["short", "types"])
def test_an_entry_of_another_shape_is_ignored(tmp_path: Path, shape: str) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    cached(root)
    cache = FileCache.for_bank(root)  # the entries as written: briefs
    assert cache is not None
    cache._new = dict(cache._old)
    for rel, (size, mtime, b) in list(cache._new.items()):
        odd = (rel, "not", "a", "brief") if shape == "short" or b is None else (rel, size, 7, *b[3:])
        cache._new[rel] = (size, mtime, odd)
    cache._changed = True
    cache.save()
    bank, cache = cached(root)
    assert cache.hits == 0
    same_bank(load_bank(root), bank)


def test_ckp_check_twice_finds_the_same_and_sees_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_bank(SAMPLES / "broken" / "memory-bank", tmp_path / "memory-bank")
    assert ckp(["check", "--no-cache", str(root)]) == 1
    expected = capsys.readouterr().out
    assert not (root / FOLDER).exists()  # --no-cache leaves it alone
    assert ckp(["check", str(root)]) == 1
    assert capsys.readouterr().out == expected
    assert (root / FOLDER).is_dir()
    assert ckp(["check", str(root)]) == 1  # from the cache, findings included
    assert capsys.readouterr().out == expected
    # A change is seen: a new file naming an unknown concept.
    (root / "zz-new.md").write_text(
        "CONCEPT: zz-new\nTLDR: New.\nANSWERS_WHEN: new\nSIMILAR_HIGH: nosuch-thing:2026-10\n"
        "VALIDATED: 2026-10\n\nBody.\n",
        encoding="utf-8",
    )
    assert ckp(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "zz-new.md" in out and "CKP041" in out
    assert ckp(["check", "--no-cache", str(root)]) == 1
    assert capsys.readouterr().out == out


def test_the_cache_is_written_only_inside_the_folder_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    one = sorted(p for p in root.rglob("*.md") if p.name != "_index.md")[0]
    ckp(["check", str(one)])  # a file: its bank is outside what was named
    assert not (root / FOLDER).exists()
    monkeypatch.setenv("CKP_NO_CACHE", "1")
    ckp(["check", str(root)])
    assert not (root / FOLDER).exists()
    monkeypatch.delenv("CKP_NO_CACHE")
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv("CKP_CACHE_DIR", str(elsewhere))
    ckp(["check", str(one)])  # a place the user chose is written
    assert not (root / FOLDER).exists()
    assert [p.suffix for p in elsewhere.iterdir()] == [".marshal"]
    capsys.readouterr()


def test_a_cache_folder_that_cannot_be_written_is_no_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_bank(SAMPLES / "broken" / "memory-bank", tmp_path / "memory-bank")
    (root / FOLDER).write_text("a file where the folder would be")
    code = ckp(["check", "--no-cache", str(root)])
    expected = capsys.readouterr()
    assert ckp(["check", str(root)]) == code
    assert capsys.readouterr() == expected
    assert (root / FOLDER).read_text() == "a file where the folder would be"


def test_a_cache_of_another_python_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    cached(root)
    from ckp_lsp.core.bank import cache as module

    monkeypatch.setattr(module, "_STAMP", [])
    monkeypatch.setattr(sys, "version_info", (3, 99, 0, "final", 0))
    assert cached(root)[1].hits == 0


def test_a_cache_written_before_the_reader_was_edited_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every module of the core is in the cache's stamp, not only the cache's own package: an
    edited reader (``core/format/``) does not trust what the reader before it wrote. (A copy of
    the core's layout: the checkout's own files are never touched while other tests run.)"""
    import os

    from ckp_lsp.core.bank import cache as module

    core = tmp_path / "core"
    for rel in ("bank/cache.py", "format/knowledge.py", "routing/ranked.py"):
        (core / rel).parent.mkdir(parents=True, exist_ok=True)
        (core / rel).write_text("# a module\n")
    monkeypatch.setattr(module, "__file__", str(core / "bank" / "cache.py"))
    monkeypatch.setattr(module, "_STAMP", [])
    before = module._stamp()
    assert {entry[0] for entry in before[4:]} == {
        os.path.join("bank", "cache.py"),
        os.path.join("format", "knowledge.py"),
        os.path.join("routing", "ranked.py"),
    }
    (core / "format" / "knowledge.py").write_text("# the reader, edited\n")
    monkeypatch.setattr(module, "_STAMP", [])
    assert module._stamp() != before


def test_a_second_ckp_check_of_an_unchanged_bank_does_not_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_bank(SAMPLES / "mentat" / "memory-bank", tmp_path / "memory-bank")
    ckp(["check", str(root)])
    expected = capsys.readouterr().out
    loads: list[Path] = []
    load = banks.load_bank
    monkeypatch.setattr(banks, "load_bank", lambda r, *a: loads.append(r) or load(r, *a))
    ckp(["check", str(root)])
    assert capsys.readouterr().out == expected
    assert loads == []
    # The index changed: the bank is read and checked again, and the drift is found.
    index = root / "_index.md"
    text = index.read_text(encoding="utf-8")
    index.write_text(
        text.replace("| auth | patterns/auth.md | Shared", "| auth | patterns/auth.md | Old"),
        encoding="utf-8",
    )
    ckp(["check", str(root)])
    out = capsys.readouterr().out
    assert loads == [root] and out != expected
    ckp(["check", "--no-cache", str(root)])
    assert capsys.readouterr().out == out


def test_a_check_of_an_unchanged_bank_reads_no_fields_of_its_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_bank(SAMPLES / "mentat" / "memory-bank", tmp_path / "memory-bank")
    ckp(["check", str(root)])
    expected = capsys.readouterr().out

    def refuse(self: FileCache) -> None:
        raise AssertionError("the fields of the cache were read")

    monkeypatch.setattr(FileCache, "_old_briefs", refuse)
    ckp(["check", str(root)])  # only the sizes, mtimes and last findings: 1/10 of the memory at 100,000 files
    assert capsys.readouterr().out == expected


def test_entries_kept_unchanged_are_written_with_their_fields(tmp_path: Path) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    first, _ = cached(root)
    cache = FileCache.for_bank(root)
    assert cache is not None
    for rel in first.files:
        assert cache.unchanged(rel, (root / rel).stat())
    cache.keep_findings(b"key", [])  # something to write
    cache.save()
    again, cache = cached(root)
    assert cache.hits == len([kf for kf in first.files.values() if brief(kf) is not None]) > 0
    same_bank(load_bank(root), again)


def test_a_cache_replaced_after_it_was_opened_gives_no_fields(tmp_path: Path) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    first, _ = cached(root)
    opened = FileCache.for_bank(root)  # sizes and mtimes read; the fields not yet
    assert opened is not None
    rel = next(r for r, kf in first.files.items() if brief(kf) is not None)
    other = FileCache.for_bank(root)
    assert other is not None
    other._new = dict(other._old)
    size, mtime, b = other._new[rel]
    assert b is not None
    other._new[rel] = (size, mtime, (*b[:3], "x" * len(b[3]), *b[4:]))  # the same layout
    other._changed = True
    other.save()  # another process wrote the cache meanwhile
    assert opened.get(rel, (root / rel).stat()) is None  # read again, not taken from the new file
    assert opened.hits == 0
    assert cached(root)[0].files[rel].tldr == "x" * len(b[3])  # which the new file does say
