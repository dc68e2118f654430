"""`ckp check`: text and JSON output, code selection and exit codes, called in-process."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from tests.unit.builders import FAULTY, copy_bank, run_cli

LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info|hint) (?P<code>CKP\d{3}) (?P<msg>.+)$"
)

EXPECTED_TEXT = [
    "memory-bank/auth.md:4:15: error CKP041 no concept 'sesions' in this bank: did you mean 'sessions'?",
    "memory-bank/auth.md:5:15: warning CKP046 the relationship to 'cookies' has no date: "
    "add ':YYYY-MM', the month it was validated",
    "memory-bank/_index.md:1:1: warning CKP070 the bank has no _index.md: generate it with `ckp index` "
    "(or the Regenerate index action)",
    "Found 3 finding(s) in 3 files: 1 error(s), 2 warning(s), 0 info.",
]


def test_text_output_is_path_line_col_severity_code_message(
    faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "check")
    assert out.splitlines() == EXPECTED_TEXT
    first = LINE.match(out.splitlines()[0])
    assert first is not None
    # 1-based: the entry starts on the 4th line, 15th column of auth.md.
    assert (first["path"], first["line"], first["col"], first["sev"], first["code"]) == (
        "memory-bank/auth.md",
        "4",
        "15",
        "error",
        "CKP041",
    )
    assert code == 1


def test_json_output_has_lsp_ranges_severity_numbers_and_a_summary(
    faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "check", "--format", "json")
    data = json.loads(out)
    assert set(data) == {"diagnostics", "summary"}
    assert data["summary"] == {"files": 3, "errors": 1, "warnings": 2, "information": 0, "hints": 0}
    first = data["diagnostics"][0]
    assert first == {
        "file": "memory-bank/auth.md",
        "range": {"start": {"line": 3, "character": 14}, "end": {"line": 3, "character": 21}},
        "severity": 1,
        "code": "CKP041",
        "message": "no concept 'sesions' in this bank: did you mean 'sessions'?",
    }
    assert [(d["code"], d["severity"]) for d in data["diagnostics"]] == [
        ("CKP041", 1),
        ("CKP046", 2),
        ("CKP070", 2),
    ]
    assert data["diagnostics"][1]["range"] == {
        "start": {"line": 4, "character": 14},
        "end": {"line": 4, "character": 21},
    }
    assert code == 1


def test_json_output_of_a_healthy_bank(shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "--format", "json", "memory-bank")
    assert json.loads(out) == {
        "diagnostics": [],
        "summary": {"files": 7, "errors": 0, "warnings": 0, "information": 0, "hints": 0},
    }
    assert code == 0


@pytest.mark.parametrize(
    ("args", "codes", "exit_code"),
    [
        (["--select", "CKP046"], ["CKP046"], 0),
        (["--select", "ckp046"], ["CKP046"], 0),
        (["--select", "CKP04"], ["CKP041", "CKP046"], 1),  # a prefix selects a group
        (["--select", "CKP041,CKP070"], ["CKP041", "CKP070"], 1),
        (["--ignore", "CKP041"], ["CKP046", "CKP070"], 0),  # warnings only: success
        (["--ignore", "CKP04,CKP07"], [], 0),
        (["--select", "CKP04", "--ignore", "CKP046"], ["CKP041"], 1),
    ],
)
def test_select_and_ignore_filter_findings_and_the_exit_code(
    faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str], args: list[str], codes: list[str], exit_code: int
) -> None:
    code, out, _ = run_cli(capsys, "check", "--format", "json", *args)
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == codes
    assert code == exit_code


def test_exit_0_and_a_summary_when_all_checks_pass(
    shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "check")
    assert out == "All checks passed (7 files).\n"
    assert err == ""
    assert code == 0


def test_exit_0_when_only_warnings_remain(faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "--ignore", "CKP041")
    assert out.splitlines()[-1] == "Found 2 finding(s) in 3 files: 0 error(s), 2 warning(s), 0 info."
    assert code == 0


def test_exit_2_when_there_is_nothing_to_check(
    not_a_bank_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "check", "notes")
    assert code == 2
    assert out == ""
    assert "no memory bank found here" in err and "nothing to check" in err
    code, _, err = run_cli(capsys, "check", "missing-folder")
    assert code == 2
    assert "missing-folder: no such file or folder" in err


def test_a_bank_with_only_an_entry_file_exits_0_and_says_what_was_looked_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Claude-style bank holding MEMORY.md and a README only: nothing to check is no error."""
    monkeypatch.chdir(tmp_path)
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "MEMORY.md").write_text("# Memory\n\n- [Auth](auth.md)\n", encoding="utf-8")
    (bank / "README.md").write_text("# About this folder\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "check")
    assert code == 0
    assert out == "No knowledge files found: nothing checked.\n"
    assert "no knowledge files in memory-bank: 2 Markdown files looked at (MEMORY.md, README.md)" in err
    assert "docs/format.md" in err and "ckp init" in err and "`exclude` setting" in err
    code, out, err = run_cli(capsys, "check", "--format", "json", "memory-bank")
    assert code == 0
    assert json.loads(out) == {
        "diagnostics": [],
        "summary": {"files": 0, "errors": 0, "warnings": 0, "information": 0, "hints": 0},
    }
    assert "no knowledge files in memory-bank" in err


def test_an_empty_bank_folder_exits_0_and_says_it_holds_no_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "memory-bank").mkdir()
    code, out, err = run_cli(capsys, "check")
    assert code == 0
    assert out == "No knowledge files found: nothing checked.\n"
    assert "no knowledge files in memory-bank: it holds no Markdown file" in err and "ckp init" in err


def test_a_bank_with_knowledge_files_beside_an_empty_one_checks_them(
    shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (shop_in_cwd.parent / "other" / "memory-bank").mkdir(parents=True)
    code, out, err = run_cli(capsys, "check", "memory-bank", "other")
    assert code == 0
    assert out == "All checks passed (7 files).\n"
    assert "no knowledge files in other/memory-bank" in err


def test_exit_2_on_a_usage_error(faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "--format", "xml"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_checking_one_file_leaves_out_the_others_and_the_index(
    faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "check", "memory-bank/sessions.md")
    assert out == "All checks passed (1 file).\n"
    assert code == 0
    code, out, _ = run_cli(capsys, "check", "memory-bank/auth.md")
    assert [m["code"] for m in map(LINE.match, out.splitlines()[:-1]) if m] == ["CKP041", "CKP046"]
    assert out.splitlines()[-1].startswith("Found 2 finding(s) in 1 file:")


def test_a_file_named_that_is_no_knowledge_file_is_not_checked_and_says_why(
    shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Like ruff given no Python file: a note on stderr, nothing counted as checked, exit 0."""
    (shop_in_cwd / "MEMORY.md").write_text("# Memory\n\n- [Orders](cart.md)\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "check", "memory-bank/MEMORY.md")
    assert code == 0
    assert out == "No knowledge files found: nothing checked.\n"
    assert err == (
        "ckp: memory-bank/MEMORY.md: not a knowledge file (an agent's entry file: the default "
        "`exclude` pattern 'MEMORY.md' matches it); not checked\n"
    )
    code, out, err = run_cli(capsys, "check", "--format", "json", "memory-bank/MEMORY.md")
    assert code == 0
    assert json.loads(out) == {
        "diagnostics": [],
        "summary": {"files": 0, "errors": 0, "warnings": 0, "information": 0, "hints": 0},
    }
    assert "memory-bank/MEMORY.md: not a knowledge file (an agent's entry file" in err
    code, out, err = run_cli(
        capsys, "check", "--format", "json", "memory-bank/MEMORY.md", "memory-bank/cart.md"
    )
    assert code == 0
    assert json.loads(out)["summary"]["files"] == 1
    assert "MEMORY.md: not a knowledge file" in err
    code, out, _ = run_cli(capsys, "check", "memory-bank/MEMORY.md", "memory-bank/cart.md")
    assert out == "All checks passed (1 file).\n"


def test_each_kind_of_file_that_is_no_knowledge_file_is_named_with_its_reason(
    shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (shop_in_cwd.parent / ".ckp.toml").write_text('extend_exclude = ["drafts/*"]\n', encoding="utf-8")
    for rel, text in {
        "README.md": "# About\n",
        "templates/note.md": "# Note\n",
        "drafts/idea.md": "# Idea\n",
        "notes.txt": "plain text\n",
        "blank.md": "# [Project name]\n\n- [Describe the goal]\n- {{date}}\n- [Describe the users]\n",
    }.items():
        (shop_in_cwd / rel).parent.mkdir(exist_ok=True)
        (shop_in_cwd / rel).write_text(text, encoding="utf-8")
    named = ["README.md", "templates/note.md", "drafts/idea.md", "notes.txt", "blank.md"]
    code, out, err = run_cli(capsys, "check", *(f"memory-bank/{n}" for n in named))
    assert code == 0
    assert out == "No knowledge files found: nothing checked.\n"
    assert err.splitlines() == [
        f"ckp: memory-bank/{rel}: not a knowledge file ({why}); not checked"
        for rel, why in [
            ("README.md", "a README: the default `exclude` pattern 'README.md' matches it"),
            ("blank.md", "a template: no header, and its lines are mostly placeholders"),
            (
                "drafts/idea.md",
                "the `exclude` / `extend_exclude` pattern 'drafts/*' of the settings matches it",
            ),
            ("notes.txt", "not a Markdown file"),
            ("templates/note.md", "a template: the default `exclude` pattern 'templates/*' matches it"),
        ]
    ]


def test_the_index_named_alone_is_checked_and_counted(
    shop_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "check", "memory-bank/_index.md")
    assert (code, out, err) == (0, "All checks passed (1 file).\n", "")
    (shop_in_cwd / "_index.md").write_text(
        "# Index\n\n<!-- ckp:index:start -->\n<!-- ckp:index:end -->\n", encoding="utf-8"
    )
    code, out, _ = run_cli(capsys, "check", "--format", "json", "memory-bank/_index.md")
    report = json.loads(out)
    assert code == 0 and report["summary"]["files"] == 1 and report["summary"]["warnings"] >= 1


def test_bank_configuration_applies_and_its_problems_are_reported(
    faulty_in_cwd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (faulty_in_cwd / ".ckp.toml").write_text(
        'staleness = "weekly"\n[diagnostics]\nCKP041 = "warning"\nCKP070 = "off"\n', encoding="utf-8"
    )
    code, out, err = run_cli(capsys, "check")
    assert [m["sev"] + " " + m["code"] for m in map(LINE.match, out.splitlines()) if m] == [
        "warning CKP041",
        "warning CKP046",
    ]
    assert "ckp: configuration: staleness = 'weekly' is not one of validated, git, mtime" in err
    assert code == 0


def test_banks_named_in_the_configuration_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    copy_bank(FAULTY, tmp_path / "notes")  # not named memory-bank, and no _index.md
    (tmp_path / ".ckp.toml").write_text('banks = ["notes"]\n', encoding="utf-8")
    code, out, _ = run_cli(capsys, "check", "--select", "CKP041")
    assert out.splitlines()[0].startswith("notes/auth.md:4:15: error CKP041")
    assert code == 1
    assert main(["index", "notes"]) == 0
    assert (tmp_path / "notes" / "_index.md").is_file()


@pytest.mark.parametrize("entry", ["MEMORY.md", "CLAUDE.md", "AGENTS.md", "GEMINI.md"])
def test_an_agents_entry_file_in_a_bank_is_no_knowledge_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], entry: str
) -> None:
    # Claude Code, Codex and Gemini CLI read these first; they have no CKP header to add.
    monkeypatch.chdir(tmp_path)
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / entry).write_text("# Memory\n\nRead memory-bank/_index.md first.\n", encoding="utf-8")
    (bank / "auth.md").write_text("# Auth\n\nSessions expire after an hour.\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "check", "--format", "json", "--select", "CKP001")
    assert code == 0
    found = json.loads(out)
    assert [d["file"] for d in found["diagnostics"]] == ["memory-bank/auth.md"]
    assert found["summary"]["files"] == 1
    code, out, err = run_cli(capsys, "check", f"memory-bank/{entry}")
    assert code == 0
    assert f"memory-bank/{entry}: not a knowledge file (an agent's entry file" in err


def test_a_folder_of_cursor_rules_is_named_as_such_when_there_is_nothing_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    for name in ("auth-access", "ui-design"):
        (rules / f"{name}.mdc").write_text(
            f"---\ndescription: {name} rules\n---\n# Rules\n", encoding="utf-8"
        )
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "check", ".cursor/rules")
    assert code == 2 and out == ""
    assert "its 2 Cursor rule(s) (*.mdc) are not knowledge files" in err and "nothing to check" in err
    for command in (("compile", "--all"), ("index",)):
        code, _, err = run_cli(capsys, *command, ".cursor/rules")
        assert code != 0 and "its 2 Cursor rule(s) (*.mdc) are not knowledge files" in err, command
    assert [p.name for p in sorted(rules.iterdir())] == [
        "auth-access.mdc",
        "ui-design.mdc",
    ]  # nothing written
