"""An index holding two generated sections is a finding, `ckp index --check` calls it out of date,
and `ckp index` keeps the first section (regenerated) and removes the stale copy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import bare_header


def ckp(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**os.environ, "XDG_CONFIG_HOME": str(cwd / ".config")},
    )


def doubled(tmp_path: Path) -> Path:
    """A bank whose index an agent wrote, then an editor added a second (stale) section to."""
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "a.md").write_text(bare_header(CONCEPT="a", ANSWERS_WHEN="a"), encoding="utf-8")
    assert ckp("index", str(bank), cwd=tmp_path).returncode == 0
    current = (bank / "_index.md").read_text(encoding="utf-8")
    stale = current[current.index(INDEX_START) : current.index(INDEX_END) + len(INDEX_END)]
    (bank / "_index.md").write_text(
        current + "\n" + stale.replace("| a |", "| gone |") + "\n", encoding="utf-8"
    )
    return bank


def test_two_generated_sections_are_ckp070_on_the_second(tmp_path: Path) -> None:
    bank = doubled(tmp_path)
    text = (bank / "_index.md").read_text(encoding="utf-8")
    second = text.splitlines().index(INDEX_START, text.splitlines().index(INDEX_START) + 1)
    found = [f for f in check_index(load_bank(bank)) if "generated sections" in f.message]
    assert [(f.code, f.span.start_line) for f in found] == [("CKP070", second)]
    assert "2 generated sections" in found[0].message


def test_ckp_check_and_index_check_call_it_out_of_date_and_index_repairs_it(tmp_path: Path) -> None:
    bank = doubled(tmp_path)
    check = ckp("check", str(bank), "--no-cache", cwd=tmp_path)
    assert "CKP070" in check.stdout and "generated sections" in check.stdout, check.stdout
    assert ckp("index", str(bank), "--check", cwd=tmp_path).returncode == 1
    assert ckp("index", str(bank), cwd=tmp_path).returncode == 0
    text = (bank / "_index.md").read_text(encoding="utf-8")
    assert text.count(INDEX_START) == 1 and text.count(INDEX_END) == 1
    assert ckp("index", str(bank), "--check", cwd=tmp_path).returncode == 0
    assert "CKP070" not in ckp("check", str(bank), "--no-cache", cwd=tmp_path).stdout


def test_the_users_text_around_both_sections_is_kept(tmp_path: Path) -> None:
    bank = doubled(tmp_path)
    text = (bank / "_index.md").read_text(encoding="utf-8")
    mine = "My own notes.\n\n" + text.replace(
        INDEX_END + "\n\n" + INDEX_START, INDEX_END + "\n\nBetween.\n\n" + INDEX_START
    )
    mine += "\nAfter.\n"
    again = update_index_text(mine, load_bank(bank))
    assert again.startswith("My own notes.\n\n") and "Between.\n" in again and again.endswith("After.\n")
    assert again.count(INDEX_START) == 1
    assert update_index_text(again, load_bank(bank)) == again
