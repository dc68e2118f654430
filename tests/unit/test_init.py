"""``ckp init``: reading a project, the file and index it writes, never overwriting, the agent rules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ckp_lsp.cli.init_cmd import init_bank
from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.project.agent_rules import RULES_END, RULES_START, agent_rules, with_rules
from ckp_lsp.core.project.init import InitError
from ckp_lsp.core.project.project import scan_project
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.clock import this_month, today
from tests.copies import copy_tree

DATA = Path(__file__).resolve().parent.parent / "data" / "init" / "shop"
REPO = Path(__file__).resolve().parents[2]
TODAY = today()


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return copy_tree(DATA, tmp_path / "shop")


def errors(bank_root: Path) -> list[str]:
    """Error-level findings of every file of the bank and of its index."""
    bank = load_bank(bank_root)
    found = [f for rel in bank.files for f in check_file(bank, rel)] + check_index(bank)
    return [f"{f.code} {f.message}" for f in found if f.severity == Severity.ERROR]


# --- reading the project ----------------------------------------------------------------------------


def test_scan_reads_manifest_readme_languages_and_folders(shop: Path) -> None:
    project = scan_project(shop)
    assert project.name == "shop"  # the npm scope is dropped
    assert project.concept == "shop"
    assert project.description.startswith("Online shop for handmade furniture")
    assert project.intro.startswith("The shop sells handmade furniture online.")  # badges skipped
    assert project.languages == [("TypeScript", 3), ("Python", 1), ("Shell", 1)]
    assert project.folders == [("scripts", 2), ("src", 3)]
    assert project.dependencies == ["express", "stripe", "zod"]
    assert project.manifests == ["package.json"]


def test_scan_reads_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "Data Tool"\ndescription = "Cleans CSV files."\n'
        'dependencies = ["pandas>=2", "click ; python_version>\'3.8\'"]\n'
    )
    project = scan_project(tmp_path)
    assert (project.name, project.concept, project.description) == (
        "Data Tool",
        "data-tool",
        "Cleans CSV files.",
    )
    assert project.dependencies == ["pandas", "click"]


def test_scan_skips_the_bank_and_dependency_folders(shop: Path) -> None:
    (shop / "node_modules" / "x").mkdir(parents=True)
    (shop / "node_modules" / "x" / "a.js").write_text("")
    (shop / "memory-bank").mkdir()
    (shop / "memory-bank" / "a.py").write_text("")
    project = scan_project(shop, skip=shop / "memory-bank")
    assert dict(project.languages).get("JavaScript") is None
    assert dict(project.languages)["Python"] == 1


# --- what init writes ------------------------------------------------------------------------------


def test_init_writes_a_project_file_with_a_full_header(shop: Path) -> None:
    result = init_bank(shop, today=TODAY)
    assert result.file == shop / "memory-bank" / "projects" / "shop.md"
    text = result.file.read_text()
    header = dict(line.split(":", 1) for line in text.split("\n\n", 1)[0].splitlines())
    assert set(header) == {"CONCEPT", "TLDR", "ANSWERS_WHEN", "CONFIDENCE", "VALIDATED"}
    assert header["CONCEPT"].strip() == "shop"
    assert header["VALIDATED"].strip() == this_month()
    keywords = [k.strip() for k in header["ANSWERS_WHEN"].split(",")]
    assert {"cart", "TypeScript", "express"} <= set(keywords)
    assert "## Stack" in text and "TypeScript (3 files)" in text and "`src/`: 3 files" in text


def test_init_writes_the_index_and_the_bank_checks_clean(shop: Path) -> None:
    result = init_bank(shop, today=TODAY)
    assert result.index_written
    assert "| shop | projects/shop.md |" in (shop / "memory-bank" / "_index.md").read_text()
    assert errors(shop / "memory-bank") == []


def test_init_never_overwrites_and_writes_nothing(shop: Path) -> None:
    first = init_bank(shop, today=TODAY)
    first.file.write_text(first.file.read_text() + "\nMy own notes.\n")
    before = first.file.read_bytes()
    index_before = (shop / "memory-bank" / "_index.md").read_bytes()
    with pytest.raises(InitError, match="exists already"):
        init_bank(shop, today=TODAY)
    assert first.file.read_bytes() == before
    assert (shop / "memory-bank" / "_index.md").read_bytes() == index_before


def test_init_into_an_existing_bank_relates_and_keeps_the_index_prose(shop: Path) -> None:
    bank = shop / "memory-bank"
    (bank / "domain").mkdir(parents=True)
    (bank / "domain" / "cart.md").write_text(
        "CONCEPT: cart\nTLDR: The shopping cart.\nANSWERS_WHEN: cart, basket\nVALIDATED: 2025-05\n\n"
        "The cart of the shop holds items until checkout.\n"
    )
    (bank / "_index.md").write_text("Read me first.\n")
    result = init_bank(shop, today=TODAY)
    assert f"SIMILAR_MID:  cart:{this_month()}" in result.file.read_text()
    index = (bank / "_index.md").read_text()
    assert index.startswith("Read me first.\n")
    assert "| cart | domain/cart.md |" in index and "| shop | projects/shop.md |" in index
    assert errors(bank) == []


def test_init_refuses_a_concept_the_bank_already_has(shop: Path) -> None:
    bank = shop / "memory-bank"
    bank.mkdir()
    (bank / "shop.md").write_text("CONCEPT: shop\nTLDR: Shop.\nANSWERS_WHEN: shop\n\nBody.\n")
    with pytest.raises(InitError, match="already declared"):
        init_bank(shop, today=TODAY)
    assert not (bank / "projects").exists()


def test_init_on_this_repository_passes_check(tmp_path: Path) -> None:
    # The manifest, the README and the source folders: what init reads, and what stays put while
    # other tests run (they write below tests/ and test-artifacts/).
    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, copy / name)
    for name in ("ckp_lsp", "benchmarks", "samples"):
        copy_tree(REPO / name, copy / name)
    result = init_bank(copy, today=TODAY)
    assert result.concept == "ckp-lsp"
    assert "Python" in result.file.read_text()
    assert errors(copy / "memory-bank") == []


# --- the agent rules -------------------------------------------------------------------------------


def test_rules_cover_boot_routing_declaration_and_writing() -> None:
    rules = agent_rules("docs/bank")
    assert rules.startswith(RULES_START) and rules.endswith(RULES_END)
    assert "`docs/bank/_index.md` first" in rules
    assert "ANSWERS_WHEN" in rules and "SIMILAR_HIGH" in rules and "SIMILAR_MID" in rules
    assert "`[CKP: loaded X/Y files — match: FILE via KEYWORD, KEYWORD; …]`" in rules
    assert "`[CKP: loaded 0/Y files — out of domain]`" in rules
    assert "VALIDATED: YYYY-MM" in rules and "current" in rules


def test_rules_are_added_once_and_replaced_in_place() -> None:
    rules = agent_rules()
    once = with_rules("# Agent\n\nBe brief.\n", rules)
    assert once == "# Agent\n\nBe brief.\n\n" + rules + "\n"
    assert with_rules(once, rules) == once
    stale = once.replace("Do not read the whole bank.", "Old wording.")
    assert with_rules(stale + "After.\n", rules) == once + "After.\n"


def test_rules_keep_crlf_line_endings() -> None:
    added = with_rules("# Agent\r\n", agent_rules())
    assert "\r\n" + RULES_START + "\r\n" in added
    assert "\n" not in added.replace("\r\n", "")


# --- the commands ----------------------------------------------------------------------------------


def test_cli_init_prints_the_rules(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(shop)]) == 0
    out = capsys.readouterr().out
    assert "Created" in out and "projects/shop.md" in out
    assert RULES_START in out and "`memory-bank/_index.md` first" in out


def test_cli_agent_file_is_idempotent(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = shop / "CLAUDE.md"
    agent.write_text("# Notes\n\nKeep it short.\n")
    assert main(["init", str(shop), "--agent-file", str(agent)]) == 0
    first = agent.read_bytes()
    assert first.startswith(b"# Notes\n\nKeep it short.\n\n" + RULES_START.encode())
    assert "Added the CKP rules" in capsys.readouterr().out
    # The second run finds all of it done (exit 0) and leaves the agent file as it is.
    assert main(["init", str(shop), "--agent-file", str(agent)]) == 0
    captured = capsys.readouterr()
    assert "adopted already" in captured.out and "already holds the current CKP rules" in captured.out
    assert agent.read_bytes() == first


def test_cli_init_with_bank_dir(shop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(shop), "--bank-dir", str(shop / "docs" / "kb")]) == 0
    assert (shop / "docs" / "kb" / "projects" / "shop.md").is_file()
    assert not (shop / "memory-bank").exists()
    assert "`docs/kb/_index.md` first" in capsys.readouterr().out
    # A bank outside the project is named by its absolute path.
    assert main(["init", str(shop), "--bank-dir", str(tmp_path / "kb")]) == 0
    assert f"`{(tmp_path / 'kb').resolve().as_posix()}/_index.md` first" in capsys.readouterr().out


def test_cli_agent_rules_prints_the_block_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agent-rules"]) == 0
    assert capsys.readouterr().out == agent_rules() + "\n"


def test_rules_call_ckp_route_when_the_tools_are_there_and_fall_back_to_the_index() -> None:
    rules = agent_rules()
    tools, boot = rules.index("`ckp_route`"), rules.index("`memory-bank/_index.md` first")
    assert tools < boot  # the tools first, the index as the fallback
    assert "ckp_compile" in rules and "ckp_index" in rules
    assert "Without the tools" in rules and "(without the tools)" in rules
