"""Configuration: `.ckp.toml`, editor settings on top, and what each setting changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.index import parse_index, update_index_text
from ckp_lsp.core.project.config import (
    DEFAULT_EXCLUDE,
    DEFAULT_SESSION_FILES,
    Config,
    config_for_bank,
    load_config,
)
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import SHOP, bank_of_texts, bare_header, copy_bank, write_files


def toml(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".ckp.toml").write_text(text, encoding="utf-8")
    return folder


def test_defaults() -> None:
    config = Config()
    assert config.staleness == "validated"
    assert config.index_format == "table"
    assert config.index_budget_tokens == 4000
    assert config.exclude == DEFAULT_EXCLUDE
    assert config.session_files == DEFAULT_SESSION_FILES
    assert config.diagnostics == {}
    assert config.problems == ()
    assert load_config(Path("/nonexistent")) == config


def test_diagnostics_severity_can_be_changed_or_turned_off(tmp_path: Path) -> None:
    config = load_config(toml(tmp_path, '[diagnostics]\nCKP046 = "error"\nckp050 = "off"\nCKP060 = "info"\n'))
    assert config.diagnostics == {"CKP046": Severity.ERROR, "CKP050": None, "CKP060": Severity.INFORMATION}
    assert config.problems == ()
    files = {
        "a.md": bare_header(SIMILAR_HIGH="b:2025-01", SIMILAR_MID="c", CONFIDENCE="sure"),
        "b.md": bare_header(CONCEPT="b", VALIDATED="2025-06"),
        "c.md": bare_header(CONCEPT="c"),
    }
    default = {f.code: f.severity for f in check_file(bank_of_texts(files), "a.md")}
    assert default == {"CKP046": Severity.WARNING, "CKP050": Severity.WARNING, "CKP060": Severity.ERROR}
    changed = {f.code: f.severity for f in check_file(bank_of_texts(files, config), "a.md")}
    assert changed == {"CKP046": Severity.ERROR, "CKP060": Severity.INFORMATION}


def test_index_findings_follow_the_overrides_too() -> None:
    bank = bank_of_texts({"a.md": bare_header()}, Config(diagnostics={"CKP070": Severity.ERROR}))
    assert [(f.code, f.severity) for f in check_index(bank)] == [("CKP070", Severity.ERROR)]
    bank = bank_of_texts({"a.md": bare_header()}, Config(diagnostics={"CKP070": None}))
    assert check_index(bank) == []


def test_staleness_setting_selects_the_source(tmp_path: Path) -> None:
    config = load_config(toml(tmp_path, 'staleness = "mtime"\n'))
    assert config.staleness == "mtime"
    bank = bank_of_texts(
        {
            "a.md": bare_header(SIMILAR_HIGH="b:2025-01"),
            "b.md": bare_header(CONCEPT="b", VALIDATED="2025-06"),
        },
        config,
    )
    # In-memory files have no modification time: nothing is stale although VALIDATED says so.
    assert "CKP050" not in {f.code for f in check_file(bank, "a.md")}


def test_index_format_setting_selects_the_form(tmp_path: Path) -> None:
    config = load_config(toml(tmp_path, 'index_format = "blocks"\n'))
    assert config.index_format == "blocks"
    bank = load_bank(SHOP, config)
    assert parse_index(update_index_text(None, bank)).form == "blocks"


def test_index_budget_setting_is_the_ckp071_limit(tmp_path: Path) -> None:
    config = load_config(toml(tmp_path, "index_budget_tokens = 50\n"))
    assert config.index_budget_tokens == 50
    assert [f.code for f in check_index(load_bank(SHOP, config))] == ["CKP071"]


def test_exclude_globs_leave_files_out_of_the_bank(tmp_path: Path) -> None:
    root = copy_bank(SHOP, tmp_path / "memory-bank")
    write_files(root, {"drafts/idea.md": "not yet a knowledge file\n"})
    assert "drafts/idea.md" in load_bank(root).files
    config = load_config(toml(root, 'exclude = ["README.md", "drafts/*", "infra/*.md"]\n'))
    files = set(load_bank(root, config).files)
    assert "drafts/idea.md" not in files and "infra/deploy.md" not in files and "README.md" not in files
    assert "jwt.md" in files


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('staleness = "weekly"\n', "staleness = 'weekly' is not one of validated, git, mtime"),
        ('index_format = "list"\n', "index_format = 'list' is not one of table, blocks"),
        (
            '[diagnostics]\nCKP999 = "error"\n',
            "diagnostics.CKP999 is not a diagnostic code (CKP001 to CKP080)",
        ),
        (
            '[diagnostics]\nCKP046 = "eror"\n',
            "diagnostics.CKP046 = 'eror' is not a severity: use error, warning, information, hint or off",
        ),
        ('index_budget_tokens = "lots"\n', "index_budget_tokens = 'lots' is not a positive number"),
        ("index_budget_tokens = -5\n", "index_budget_tokens = -5"),
        ('exclude = "drafts/*"\n', "exclude = 'drafts/*' is not a list"),
        ('banks = "docs/kb"\n', "banks = 'docs/kb' is not a list"),
        ("staleness = \n", ".ckp.toml"),  # not TOML at all
    ],
)
def test_bad_values_are_reported_and_the_defaults_kept(tmp_path: Path, text: str, problem: str) -> None:
    config = load_config(toml(tmp_path, text))
    assert len(config.problems) == 1
    assert problem in config.problems[0]
    assert (config.staleness, config.index_format, config.index_budget_tokens) == ("validated", "table", 4000)
    assert config.exclude == DEFAULT_EXCLUDE
    assert config.diagnostics.get("CKP046") is None


def test_a_bad_value_does_not_stop_the_good_ones(tmp_path: Path) -> None:
    config = load_config(
        toml(
            tmp_path,
            'staleness = "weekly"\nindex_format = "blocks"\n[diagnostics]\nCKP999 = "off"\nCKP032 = "off"\n',
        )
    )
    assert config.index_format == "blocks"
    assert config.diagnostics == {"CKP032": None}
    assert len(config.problems) == 2


def test_bank_config_overrides_the_repository_config_up_to_the_git_root(tmp_path: Path) -> None:
    toml(tmp_path, 'staleness = "mtime"\n')  # above the repository: not read
    repo = toml(tmp_path / "repo", 'index_format = "blocks"\nindex_budget_tokens = 900\n')
    (repo / ".git").mkdir()
    bank = toml(repo / "docs" / "memory-bank", "index_budget_tokens = 1200\n")
    config = config_for_bank(bank)
    assert config.index_format == "blocks"
    assert config.index_budget_tokens == 1200
    assert config.staleness == "validated"


def test_editor_settings_merge_on_top() -> None:
    config = Config(index_budget_tokens=900).merged(
        {
            "index": {"updateOnSave": True, "format": "blocks", "budget_tokens": 2000},
            "diagnostics": {"CKP032": "hint"},
        }
    )
    assert config.index_update_on_save is True
    assert config.index_format == "blocks"
    assert config.index_budget_tokens == 2000
    assert config.diagnostics == {"CKP032": Severity.HINT}
    again = config.merged({"diagnostics": {"CKP046": "off"}})
    assert again.diagnostics == {"CKP032": Severity.HINT, "CKP046": None}
