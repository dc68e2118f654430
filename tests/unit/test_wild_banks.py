"""Banks as they are shaped in the wild: front matter without CKP keys, hand-written indexes,
templates and entry files, session files, hidden and configured bank folders, ``ckp init`` on a
project that keeps a bank already."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.compile.compiler import compile_header
from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.core.format.full_reader import is_template_text
from ckp_lsp.core.format.index import parse_index, update_index_text
from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START
from ckp_lsp.core.format.text import Span
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.project.discovery import find_banks, knowledge_files
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import bank_of_texts, bare_header, run_cli, snapshot_files, write_files

ADR = (
    "---\ntitle: Use Kafka for domain events\ntags: [kafka, events]\nstatus: accepted\ndate: 2024-03-02\n---\n\n"
    "# ADR 3: Use Kafka for domain events\n\n"
    "Billing and search consume the order events that the shop publishes to Kafka topics.\n"
)
HAND_INDEX = "# Our notes\n\n| File | What |\n|---|---|\n| [db](db.md) | the database |\n"
TEMPLATE = (
    "# [Feature name]\n\n## Context\n\n[Describe the problem this feature solves]\n\n"
    "## Decision\n\n[What was decided, and by whom]\n\nDate: YYYY-MM-DD\n"
)


def codes(bank: Bank, rel: str) -> list[str]:
    return [f.code for f in check_file(bank, rel)]


# --- front matter without CKP keys ------------------------------------------------------------------


def test_front_matter_without_ckp_keys_is_one_ckp001() -> None:
    bank = bank_of_texts({"adr-003.md": ADR})
    (finding,) = check_file(bank, "adr-003.md")
    assert (finding.code, finding.span) == ("CKP001", Span(0, 0, 0, 3))
    assert "front matter" in finding.message


def test_front_matter_with_a_misspelt_ckp_key_is_a_header_with_findings() -> None:
    bank = bank_of_texts({"a.md": "---\ntitle: A\nCONCPT: a\n---\n\nBody.\n"})
    assert "CKP001" not in codes(bank, "a.md") and "CKP003" in codes(bank, "a.md")


def test_inserting_a_header_goes_into_the_front_matter_and_keeps_the_users_keys() -> None:
    bank = bank_of_texts({"adr-003.md": ADR})
    new = compile_header(bank, "adr-003.md", ADR).text
    front, _, _ = new[4:].partition("\n---\n")
    assert new.startswith(
        "---\ntitle: Use Kafka for domain events\ntags: [kafka, events]\nstatus: accepted\n"
    )
    assert "CONCEPT: adr-003" in front and "ANSWERS_WHEN:" in front
    assert new.count("---\n") == 2
    assert body_of(new) == body_of(ADR)
    assert check_file(bank_of_texts({"adr-003.md": new}), "adr-003.md") == []


# --- hand-written indexes ---------------------------------------------------------------------------


def test_a_hand_written_index_is_not_read_as_ckp_rows() -> None:
    assert parse_index(HAND_INDEX).rows == []
    bank = bank_of_texts({"db.md": bare_header(CONCEPT="db"), "_index.md": HAND_INDEX})
    (finding,) = check_index(bank)
    assert finding.code == "CKP070" and "`ckp index`" in finding.message
    assert "''" not in finding.message


def test_an_unmarked_table_with_a_concept_column_is_still_an_index() -> None:
    legacy = "| CONCEPT | FILE | TLDR |\n|---|---|---|\n| ghost | ghost.md | Gone. |\n"
    assert [r.concept for r in parse_index(legacy).rows] == ["ghost"]


def test_a_hand_written_index_gets_the_section_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = write_files(
        tmp_path / "memory-bank", {"db.md": bare_header(CONCEPT="db"), "_index.md": HAND_INDEX}
    )
    code, out, _ = run_cli(capsys, "index", str(bank))
    assert code == 0 and "added the generated section" in out and "kept" in out
    text = (bank / "_index.md").read_text()
    assert text.startswith(HAND_INDEX) and text.count(INDEX_START) == 1
    code, out, _ = run_cli(capsys, "index", str(bank))
    assert code == 0 and "up to date" in out
    assert (bank / "_index.md").read_text() == text
    assert run_cli(capsys, "fix", str(bank))[0] == 0
    assert (bank / "_index.md").read_text() == text


def test_ckp_fix_adds_the_section_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = write_files(
        tmp_path / "memory-bank", {"db.md": bare_header(CONCEPT="db"), "_index.md": HAND_INDEX}
    )
    code, _, err = run_cli(capsys, "fix", str(bank))
    assert code == 0 and "added the generated section" in err
    assert (bank / "_index.md").read_text().count(INDEX_START) == 1


def test_a_lost_end_marker_does_not_make_a_second_section() -> None:
    bank = bank_of_texts({"db.md": bare_header(CONCEPT="db")})
    good = update_index_text("# Notes\n", bank)
    broken = good.replace(INDEX_END + "\n", "") + "\nAfter.\n"
    fixed = update_index_text(broken, bank)
    assert fixed.count(INDEX_START) == 1 and fixed.count("| db | db.md |") == 1
    assert fixed.startswith("# Notes\n") and fixed.endswith("\nAfter.\n")


# --- files that are not knowledge files -------------------------------------------------------------


def test_index_files_entry_files_and_templates_are_not_knowledge_files(tmp_path: Path) -> None:
    root = write_files(
        tmp_path,
        {
            "a.md": bare_header(CONCEPT="a"),
            "MEMORY.md": "- [a](a.md) what a is\n",
            "index.md": "# Index\n",
            "guides/_index.md": "# Guides\n",
            "guides/index.md": "# Guides\n",
            "guides/b.md": bare_header(CONCEPT="b"),
            "_adr-template.md": TEMPLATE,
            "feature-template.md": TEMPLATE,
            "templates/note.md": TEMPLATE,
        },
    )
    assert knowledge_files(root, Config().exclude) == ["a.md", "guides/b.md"]


def test_the_excludes_are_configurable(tmp_path: Path) -> None:
    root = write_files(tmp_path, {"a.md": "x", "index.md": "y", "drafts/c.md": "z"})
    assert knowledge_files(root, Config().merged({"exclude": ["drafts/*"]}).exclude) == ["a.md", "index.md"]
    extended = Config().merged({"extend_exclude": ["drafts/*"]})
    assert knowledge_files(root, extended.exclude) == ["a.md"]
    assert "README.md" in extended.exclude


def test_a_file_full_of_placeholders_is_a_template_without_ckp001(tmp_path: Path) -> None:
    assert is_template_text(TEMPLATE)
    assert not is_template_text("# Kafka\n\nWe use Kafka for events. See [the ADR](adr.md).\n- [ ] todo\n")
    bank = write_files(
        tmp_path / "memory-bank", {"feature-spec.md": TEMPLATE, "notes.md": "# Notes\n\nPlain.\n"}
    )
    loaded = load_bank(bank)
    assert codes(loaded, "feature-spec.md") == [] and codes(loaded, "notes.md") == ["CKP001"]
    before = (bank / "feature-spec.md").read_bytes()
    assert run_cli_quiet(["compile", "--all", str(bank)]) == 0
    assert (bank / "feature-spec.md").read_bytes() == before
    assert (bank / "notes.md").read_text().startswith("CONCEPT:")


def run_cli_quiet(argv: list[str]) -> int:
    from ckp_lsp.cli.main import main

    return main(argv)


# --- session files ----------------------------------------------------------------------------------


def session_bank(config: Config | None = None) -> Bank:
    return bank_of_texts(
        {
            "activeContext.md": bare_header(CONCEPT="active-context", VALIDATED="2025-09"),
            "a.md": bare_header(CONCEPT="a", SIMILAR_MID="active-context:2025-05, b:2025-05"),
            "b.md": bare_header(CONCEPT="b", VALIDATED="2025-09"),
        },
        config,
    )


def test_a_relationship_to_a_session_file_is_never_stale() -> None:
    stale = [f.data.get("concept") for f in check_file(session_bank(), "a.md") if f.code == "CKP050"]
    assert stale == ["b"]


def test_session_files_are_configurable() -> None:
    bank = session_bank(Config().merged({"session_files": []}))
    stale = sorted(f.data.get("concept") for f in check_file(bank, "a.md") if f.code == "CKP050")
    assert stale == ["active-context", "b"]


def test_session_files_are_routed() -> None:
    from ckp_lsp.core.routing import route

    assert route(session_bank(), "what is jwt").concepts  # every file claims jwt
    assert "active-context" in route(session_bank(), "active-context").concepts


# --- where banks are -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "folder", [".memory-bank", ".claude/memory", "memory", ".github/memory-bank", ".cursor/memory-bank"]
)
def test_agent_bank_folders_are_found(tmp_path: Path, folder: str) -> None:
    (tmp_path / ".git").mkdir()
    write_files(tmp_path, {f"{folder}/a.md": bare_header(CONCEPT="a"), "src/memory/x.py": ""})
    assert find_banks([tmp_path]) == [(tmp_path / folder).resolve()]


@pytest.mark.parametrize("folder", [".memory-bank", ".claude/memory", "memory", "notes"])
def test_every_command_works_on_an_agent_bank_folder(
    tmp_path: Path, folder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = write_files(
        tmp_path / folder, {"a.md": bare_header(CONCEPT="a"), "b.md": bare_header(CONCEPT="b")}
    )
    assert run_cli(capsys, "index", str(bank))[0] == 0
    assert run_cli(capsys, "check", str(bank))[0] == 0
    assert run_cli(capsys, "fix", str(bank))[0] == 0
    code, out, _ = run_cli(capsys, "route", str(bank), "jwt")
    assert code == 0 and "loaded 2/2" in out
    (tmp_path / "q.yaml").write_text("- query: jwt\n  must_load: [a]\n")
    assert run_cli(capsys, "bench", str(bank), "--queries", str(tmp_path / "q.yaml"))[0] == 0
    assert run_cli(capsys, "compile", "--all", str(bank))[0] == 0


def test_a_hidden_folder_named_in_the_configuration_is_a_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_files(
        tmp_path, {".git/HEAD": "", ".ckp.toml": 'banks = [".notes"]\n', ".notes/a.md": bare_header()}
    )
    assert find_banks([tmp_path]) == [(tmp_path / ".notes").resolve()]
    code, out, _ = run_cli(capsys, "check", str(tmp_path))
    assert code == 0 and "1 file" in out


def test_check_of_a_project_finds_its_hidden_bank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(tmp_path, {".claude/memory/a.md": bare_header(CONCEPT="a", SIMILAR_MID="zz:2025-01")})
    code, out, _ = run_cli(capsys, "check", str(tmp_path))
    assert code == 1 and "CKP041" in out


def test_a_folder_that_is_no_bank_says_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = run_cli(capsys, "index", str(tmp_path / "empty"))
    assert code == 2 and "banks = [...]" in err


# --- ckp init on a project that has a bank ---------------------------------------------------------


def test_init_adopts_the_bank_a_project_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = write_files(
        tmp_path / "proj",
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            ".memory-bank/projectbrief.md": "# Project brief\n\nThe shop sells tea online with a Django backend.\n",
            ".memory-bank/techContext.md": "# Tech context\n\nDjango, PostgreSQL and Redis run the shop.\n",
            ".memory-bank/db.md": bare_header(CONCEPT="db"),
        },
    )
    bodies = {rel: body for rel, body in snapshot_files(project / ".memory-bank").items()}
    monkeypatch.chdir(tmp_path)
    old = os.umask(0o022)
    try:
        code, out, _ = run_cli(capsys, "init", "proj", "--agent-file", "CLAUDE.md")
    finally:
        os.umask(old)
    assert code == 0
    assert "Adopted the bank" in out and "projectbrief.md" in out and "techContext.md" in out
    bank = project / ".memory-bank"
    db = (bank / "db.md").read_text()  # a header there is the user's: only missing fields are added
    assert "How access tokens are signed." in db and "jwt, access token" in db and "2025-05" in db
    for rel in ("projectbrief.md", "techContext.md"):
        text = (bank / rel).read_text()
        assert text.startswith("CONCEPT:") and text.endswith(bodies[rel].decode())
    assert not (bank / "projects").exists()
    assert (project / "CLAUDE.md").is_file() and not (tmp_path / "CLAUDE.md").exists()
    assert "`.memory-bank/_index.md` first" in (project / "CLAUDE.md").read_text()
    assert stat.S_IMODE((bank / "_index.md").stat().st_mode) == 0o644
    assert stat.S_IMODE((project / "CLAUDE.md").stat().st_mode) == 0o644
    assert run_cli(capsys, "check", str(bank))[0] == 0
    code, out, _ = run_cli(capsys, "init", "proj", "--agent-file", "CLAUDE.md")
    assert code == 0 and "adopted already" in out


def test_index_of_a_bank_without_headers_says_to_compile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = write_files(tmp_path / "memory-bank", {"a.md": "# A\n\nNotes.\n"})
    code, _, err = run_cli(capsys, "index", str(bank))
    assert code == 0 and "ckp compile --all" in err


def test_the_editor_spells_the_new_settings_in_camel_case() -> None:
    config = Config().merged({"sessionFiles": [], "extendExclude": ["drafts/*"], "fileBudgetTokens": 100})
    assert config.session_files == () and "drafts/*" in config.exclude and "README.md" in config.exclude
    assert config.file_budget_tokens == 100 and config.problems == ()
