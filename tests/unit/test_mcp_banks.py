"""The banks ``ckp mcp`` serves: one way to a file (nothing outside a bank), and kept current by stats."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ckp_lsp.mcp.banks import Refusal, ServedBanks
from tests.copies import copy_tree

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    copy_tree(SAMPLES, tmp_path / "ws")
    return tmp_path / "ws"


def test_banks_are_named_by_their_path_below_the_served_folder(ws: Path) -> None:
    banks = ServedBanks(ws, poll_interval=0)
    names = [sb.name for sb in banks.banks]
    assert {"broken/memory-bank", "mentat/memory-bank"} <= set(names) and names == sorted(names)
    assert banks.bank("mentat/memory-bank") is banks.bank(str(ws / "mentat" / "memory-bank"))
    with pytest.raises(Refusal, match=f"serves {len(names)} banks"):
        banks.bank(None)
    single = ServedBanks(ws / "mentat" / "memory-bank", poll_interval=0)
    assert [sb.name for sb in single.banks] == ["memory-bank"] and single.bank(None).name == "memory-bank"


def test_a_file_is_found_relative_to_its_bank_to_the_folder_or_absolute(ws: Path) -> None:
    banks = ServedBanks(ws, poll_interval=0)
    mentat = ws / "mentat" / "memory-bank"
    want = (banks.bank("mentat/memory-bank"), "stack/database.md")
    assert banks.file("stack/database.md", "mentat/memory-bank") == want
    assert banks.file("mentat/memory-bank/stack/database.md") == want
    assert banks.file(str(mentat / "stack" / "database.md")) == want


@pytest.mark.parametrize(
    "path",
    [
        "../secret.md",
        "stack/../../secret.md",
        "/etc/passwd",
        "",
        "a\0b",
        "leak.md",
        "up/secret.md",
        "secret.md",
    ],
)
def test_nothing_outside_the_bank_is_named(ws: Path, path: str) -> None:
    mentat = ws / "mentat" / "memory-bank"
    (ws / "secret.md").write_text("CONCEPT: secret\nTLDR: Out.\nANSWERS_WHEN: secret\n")
    (mentat / "leak.md").symlink_to(ws / "secret.md")
    (mentat / "up").symlink_to(ws, target_is_directory=True)
    banks = ServedBanks(mentat, poll_interval=0)
    with pytest.raises(Refusal):
        banks.file(path)
    with pytest.raises(Refusal):
        banks.file(str(ws / "secret.md"))
    assert "leak.md" not in banks.bank(None).bank.files


def test_only_the_files_that_changed_are_read_again(ws: Path) -> None:
    root = ws / "mentat" / "memory-bank"
    banks = ServedBanks(root, poll_interval=0)
    sb = banks.bank(None)
    before = dict(sb.bank.files)
    (root / "stack" / "cache.md").write_text("CONCEPT: cache\nTLDR: Redis.\nANSWERS_WHEN: cache\n")
    (root / "projects" / "civis.md").unlink()
    banks.current()
    assert sb.bank.files["stack/cache.md"].concept == "cache" and "projects/civis.md" not in sb.bank.files
    # Every other file is the same object: not read again.
    assert all(sb.bank.files[p] is kf for p, kf in before.items() if p != "projects/civis.md")


def test_a_file_rewritten_in_place_is_found_by_the_stat_scan(ws: Path) -> None:
    root = ws / "mentat" / "memory-bank"
    banks = ServedBanks(root, poll_interval=0)
    sb = banks.bank(None)
    target = root / "stack" / "database.md"
    folder_mtime = os.stat(target.parent).st_mtime_ns
    text = target.read_text(encoding="utf-8")
    with target.open("r+", encoding="utf-8") as fh:  # in place: the folder does not change
        fh.write(text.replace("database", "databass", 1))
    os.utime(target.parent, ns=(folder_mtime, folder_mtime))
    assert banks.current()[0].bank.files["stack/database.md"].concept == "database"  # not seen yet
    banks.poll_once()
    assert banks.current()[0].bank.files["stack/database.md"].concept == "databass"
    assert sb.bank.file_of("databass") is not None and sb.bank.file_of("database") is None


def test_a_folder_without_a_bank_says_how_to_start_one_and_finds_it_once_made(tmp_path: Path) -> None:
    banks = ServedBanks(tmp_path, poll_interval=0)
    with pytest.raises(Refusal, match="ckp init"):
        banks.bank(None)
    (tmp_path / "memory-bank").mkdir()
    (tmp_path / "memory-bank" / "notes.md").write_text("CONCEPT: notes\nTLDR: Notes.\nANSWERS_WHEN: notes\n")
    assert banks.bank(None).bank.file_of("notes") is not None


def test_a_folder_inside_a_bank_serves_that_whole_bank(ws: Path) -> None:
    """As the README says: routing and the index work on a bank as one."""
    bank = ws / "mentat" / "memory-bank"
    sub = next(p for p in sorted(bank.iterdir()) if p.is_dir() and not p.name.startswith("."))
    served = ServedBanks(sub, poll_interval=0)
    assert [sb.bank.root for sb in served.banks] == [bank.resolve()]
    assert len(served.banks[0].bank.files) == len(ServedBanks(bank, poll_interval=0).banks[0].bank.files)


def test_the_router_built_is_out_of_the_collectors_sight(ws: Path) -> None:
    """A full collection during a later ``ckp_route`` never walks the router's postings again."""
    import gc

    sb = ServedBanks(ws / "mentat" / "memory-bank", poll_interval=0).bank(None)
    gc.collect()
    gc.unfreeze()
    router = sb.router()
    try:
        assert gc.get_freeze_count() > 0
        assert not any(o is router.postings for o in gc.get_objects())  # frozen: not walked
        assert sb.router() is router  # built once while the bank is unchanged
        assert "projects/mentat.md" in [e.file for e in router.route("ISTAT SDMX mentat").loaded]
    finally:
        gc.unfreeze()
