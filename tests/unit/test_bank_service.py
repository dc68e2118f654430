"""The bank service every face uses (``faces/banks.py``): one write with one outcome, the index
written when it drifted only, and ``ckp init`` adopting a bank through the same offline compile
as ``ckp compile --all`` (the real ``ckp`` command)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.faces.banks import compile_offline, on_disk, read_bank, read_file, write_file, write_index
from tests.unit.builders import bare_header, write_files

CKP = Path(sys.executable).with_name("ckp")
NOTES = {
    "auth.md": "# Auth\n\nTokens are signed with RS256 and checked against the JWKS.\n",
    "billing.md": "# Billing\n\nInvoices go out monthly through Stripe.\n",
    "deploy.md": "# Deploy\n\nThe service ships to Fly.io from the main branch.\n",
}


def ckp(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CKP_NO_CACHE", "CKP_CACHE_DIR")}
    env["HOME"] = str(cwd.parent / "home")
    return subprocess.run([str(CKP), *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_init_adopts_a_bank_as_compile_all_and_index_would(tmp_path: Path) -> None:
    adopted, compiled = tmp_path / "a", tmp_path / "b"
    write_files(adopted / "memory-bank", NOTES)
    shutil.copytree(adopted, compiled)
    init = ckp(["init", "."], adopted)
    assert init.returncode == 0, init.stderr
    assert "Adopted the bank memory-bank: 3 file(s)" in init.stdout
    for argv in (["compile", "--all", "memory-bank"], ["index", "memory-bank"]):
        done = ckp(argv, compiled)
        assert done.returncode == 0, done.stderr
    for rel in [*NOTES, "_index.md"]:
        assert (adopted / "memory-bank" / rel).read_bytes() == (
            compiled / "memory-bank" / rel
        ).read_bytes(), rel


def test_a_write_refused_is_an_outcome_and_the_bank_keeps_what_it_had(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"auth.md": bare_header(CONCEPT="auth")})
    bank = read_bank(root)
    kept = bank.files["auth.md"]
    text, bom = read_file(bank, "auth.md")
    (root / "auth.md").write_text(text + "Typed meanwhile.\n", encoding="utf-8")
    done = write_file(bank, "auth.md", text.replace("Body.", "Fixed."), expected=text, bom=bom)
    assert not done.ok and "auth.md" in done.refused
    assert (root / "auth.md").read_text(encoding="utf-8").endswith("Typed meanwhile.\n")
    assert bank.files["auth.md"] is kept
    written = write_file(bank, "auth.md", text + "More.\n", expected=text + "Typed meanwhile.\n", bom=bom)
    assert written.ok and (root / "auth.md").read_text(encoding="utf-8") == text + "More.\n"


def test_the_bank_takes_what_was_written(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"auth.md": bare_header(CONCEPT="auth")})
    bank = read_bank(root)
    text, _ = read_file(bank, "auth.md")
    assert write_file(bank, "auth.md", text.replace("CONCEPT: auth", "CONCEPT: login"), expected=text).ok
    assert "login" in bank.by_concept and "auth" not in bank.by_concept


def test_the_index_is_written_when_it_drifted_and_only_then(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"auth.md": bare_header(CONCEPT="auth")})
    bank = read_bank(root)
    first = write_index(bank)
    assert first is not None and first.ok and (root / "_index.md").read_text(encoding="utf-8") == first.text
    assert write_index(bank) is None  # up to date: nothing written
    assert bank.index_text == first.text


def test_a_dry_run_compiles_and_writes_nothing(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", NOTES)
    before = {rel: (root / rel).read_bytes() for rel in NOTES}
    done = compile_offline(read_bank(root), dry_run=True)
    assert {o.rel for o in done.outcomes if o.changed} == set(NOTES) and done.written == []
    assert {rel: (root / rel).read_bytes() for rel in NOTES} == before


def test_a_change_on_disk_is_read_as_text_gone_or_refused_with_why(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory-bank", {"auth.md": bare_header(CONCEPT="auth")})
    (tmp_path / "secret.md").write_text("outside\n", encoding="utf-8")
    bank = read_bank(root)
    assert on_disk(bank, "auth.md").text == bare_header(CONCEPT="auth")
    (root / "auth.md").unlink()
    gone = on_disk(bank, "auth.md")
    assert gone.text is None and gone.why is None
    (root / "auth.md").symlink_to(tmp_path / "secret.md")
    linked = on_disk(bank, "auth.md")
    assert linked.text is None and linked.why


#: the modules that call ``write_atomic`` themselves, and what they write (never a bank's file)
WRITES_ITSELF = {
    "faces/banks.py": "the bank service: every bank file and index every face writes",
    "faces/git.py": "the repository's .gitattributes, for the index's merge driver",
    "core/project/agent_rules.py": "the agent file (AGENT.md, CLAUDE.md…) the rules go in",
    "cli/hooks_cmd.py": "each agent host's hook configuration",
}


def test_only_the_bank_service_writes_a_banks_file() -> None:
    import ast

    import ckp_lsp

    package = Path(ckp_lsp.__file__).parent
    writers = set()
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name == "write_atomic":
                    writers.add(rel)
    assert writers == set(WRITES_ITSELF)


def test_init_writes_through_the_bank_service_never_over_a_file_that_appeared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ckp_lsp.cli.init_cmd import init_bank
    from ckp_lsp.core.edit.writes import WriteRefused
    from ckp_lsp.core.project import init

    project = tmp_path / "shop"
    write_files(project, {"README.md": "# Shop\n\nA shop.\n", "src/cart.py": "cart = []\n"})
    real = init.plan_init

    def then_someone_writes(*args: Any, **kwargs: Any) -> init.InitPlan:
        plan = real(*args, **kwargs)
        plan.file.parent.mkdir(parents=True, exist_ok=True)
        plan.file.write_text("Mine.\n", encoding="utf-8")  # written meanwhile, by someone else
        return plan

    monkeypatch.setattr(init, "plan_init", then_someone_writes)
    with pytest.raises(WriteRefused):
        init_bank(project, today=CkpDate(2026, 3, 4))
    bank = project / "memory-bank"
    assert [p.read_text(encoding="utf-8") for p in bank.rglob("*.md")] == ["Mine.\n"]  # no index either
