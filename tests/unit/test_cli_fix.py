"""``ckp fix``: the safe quick fixes and a drifted index written to disk, --diff, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.cli import fix_cmd
from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import copy_to_cwd, edit_on_disk_during, snapshot_files

DATA = Path(__file__).resolve().parent.parent / "data" / "compile"


@pytest.fixture
def fixable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of a bank with safe findings, an unsafe one (a stale relationship) and a drifted index."""
    return copy_to_cwd(DATA / "fixable", tmp_path / "fixable", monkeypatch) / "memory-bank"


@pytest.fixture
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of a bank with nothing to fix."""
    return copy_to_cwd(DATA / "bank", tmp_path / "clean", monkeypatch) / "memory-bank"


def findings_of(root: Path) -> dict[str, list[str]]:
    bank = load_bank(root)
    out = {rel: [f.code for f in check_file(bank, rel)] for rel in sorted(bank.files)}
    out["_index.md"] = [f.code for f in check_index(bank)]
    return out


def test_fix_applies_the_safe_fixes_and_regenerates_the_index(
    fixable: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_files(fixable)
    assert main(["fix", str(fixable)]) == 0
    after = snapshot_files(fixable)
    tokens = after["tokens.md"].decode()
    assert tokens.startswith(
        "CONCEPT:      tokens\n"
        "TLDR:         Access and refresh tokens of the API.\n"
        "ANSWERS_WHEN: token, access token, refresh token\n"
        "SIMILAR_HIGH: login-flow:2026-10\n"
        "CONFIDENCE:   high\n"
        "VALIDATED:     2026-10\n"
    )
    login = after["login.md"].decode()
    assert 'CONCEPT: "login-flow"\n' in login
    assert "  - sign in\nSIMILAR_HIGH:" in login  # the duplicate keyword's line is gone
    assert "SIMILAR_MID:\n  - audit:2026-10\nVALIDATED:" in login  # so is the entry in both tiers
    assert after["audit.md"] == before["audit.md"]  # only a stale relationship: not a safe fix
    for name in ("tokens.md", "login.md"):
        assert body_of(after[name].decode()) == body_of(before[name].decode())
    assert after["_index.md"] != before["_index.md"]
    # Only what needs a person is left: re-validating audit's relationship to tokens.
    assert findings_of(fixable) == {"audit.md": ["CKP050"], "login.md": [], "tokens.md": [], "_index.md": []}
    err = capsys.readouterr().err
    assert "Fixed 8 finding(s) in 3 file(s); 1 remaining" in err


def test_fix_diff_writes_nothing(fixable: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot_files(fixable)
    assert main(["fix", "--diff", str(fixable)]) == 0
    assert snapshot_files(fixable) == before
    captured = capsys.readouterr()
    for name in ("login.md", "tokens.md", "_index.md"):
        assert f"--- a/fixable/memory-bank/{name}\n+++ b/fixable/memory-bank/{name}\n" in captured.out
    lines = captured.out.splitlines()
    assert "-CONFIDENCE:   hihg" in lines and "+CONFIDENCE:   high" in lines
    assert "Would fix 8 finding(s) in 3 file(s)" in captured.err


def test_fix_regenerates_a_drifted_index_and_touches_nothing_else(
    clean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = clean / "_index.md"
    index.write_text(
        index.read_text(encoding="utf-8").replace("Old summary of tokens.", "Drifted."), encoding="utf-8"
    )
    assert findings_of(clean)["_index.md"] == ["CKP070"]
    before = snapshot_files(clean)
    assert main(["fix", str(clean)]) == 0
    after = snapshot_files(clean)
    assert {k for k in after if after[k] != before[k]} == {"_index.md"}
    assert after["_index.md"] == (DATA / "bank" / "memory-bank" / "_index.md").read_bytes()
    assert "Fixed 1 finding(s) in 1 file(s); 0 remaining" in capsys.readouterr().err


def test_fix_on_one_file_fixes_only_that_file(fixable: Path) -> None:
    before = snapshot_files(fixable)
    assert main(["fix", str(fixable / "tokens.md")]) == 0
    after = snapshot_files(fixable)
    assert {k for k in after if after[k] != before[k]} == {"tokens.md"}


def test_fix_on_a_clean_bank_changes_nothing_and_exits_0(
    clean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_files(clean)
    assert main(["fix", str(clean)]) == 0
    assert snapshot_files(clean) == before
    assert "Fixed 0 finding(s) in 0 file(s); 0 remaining" in capsys.readouterr().err


def test_fix_with_nothing_to_fix_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fix", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert "no such file or folder" in err and "nothing to fix" in err


def test_fix_refuses_a_file_changed_on_disk_and_exits_1(
    fixable: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = fixable / "tokens.md"
    edited = edit_on_disk_during(monkeypatch, fix_cmd, "fix_text", target, "Typed meanwhile.\n")
    assert main(["fix", str(fixable)]) == 1
    assert target.read_text(encoding="utf-8") == edited
    assert "tokens.md changed on disk since it was read; nothing was written" in capsys.readouterr().err
    # The other files were fixed.
    assert 'CONCEPT: "login-flow"' in (fixable / "login.md").read_text(encoding="utf-8")


def test_a_file_named_that_is_no_knowledge_file_is_never_rewritten(
    clean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MEMORY.md is an entry file: a duplicate keyword in it is none of ckp's business."""
    memory = clean / "MEMORY.md"
    memory.write_text("CONCEPT: memo\nTLDR: Memo.\nANSWERS_WHEN: memo, memo\n\n# Memory\n", encoding="utf-8")
    before = snapshot_files(clean)
    assert main(["fix", str(memory)]) == 0
    assert snapshot_files(clean) == before
    err = capsys.readouterr().err
    assert "MEMORY.md: not a knowledge file (an agent's entry file" in err and "not fixed" in err
