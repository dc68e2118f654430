"""Thousands of files declaring one concept: each CKP011 names a few and counts the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ckp_lsp.core.bank.checks import TWINS_NAMED, check_file
from tests.unit.builders import bank_of_texts, bare_header


@pytest.mark.scale
def test_ckp011_names_three_others_and_the_count_of_the_rest() -> None:
    bank = bank_of_texts({f"f{n:04}.md": bare_header() for n in range(4000)})
    (dup,) = [f for f in check_file(bank, "f0000.md") if f.code == "CKP011"]
    assert dup.message == (
        "concept 'jwt' is also declared by f0001.md, f0002.md, f0003.md and 3,996 more: "
        "concepts must be unique in a bank, rename one"
    )
    assert dup.data["others"] == ["f0001.md", "f0002.md", "f0003.md"]
    assert TWINS_NAMED == 3


def test_a_few_twins_are_all_named() -> None:
    bank = bank_of_texts({f"{c}.md": bare_header() for c in "abcd"})
    (dup,) = [f for f in check_file(bank, "a.md") if f.code == "CKP011"]
    assert "also declared by b.md, c.md, d.md: " in dup.message


@pytest.mark.scale
def test_ckp_check_of_4000_twins_prints_a_bounded_report(tmp_path: Path) -> None:
    """The output grows with the files, not with their square (156 MB before)."""
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    for n in range(4000):
        (bank / f"f{n:04}.md").write_text("CONCEPT: same\nTLDR: T.\nANSWERS_WHEN: k\nVALIDATED: 2025-05\n")
    run = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "check", str(bank), "--format", "json", "--no-cache"],
        capture_output=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    twins = [d for d in report["diagnostics"] if d["code"] == "CKP011"]
    assert len(twins) == 4000
    assert max(len(d["message"]) for d in twins) < 200
    assert len(run.stdout) < 4000 * 1500  # naming every twin: over 4000 * 3999 * 10 bytes
