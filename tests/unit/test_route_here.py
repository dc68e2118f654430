"""``ckp route QUERY`` inside a project routes with the bank of the working folder, as ``ckp check``
finds it; ``ckp route BANK QUERY`` names the bank; the options go anywhere among the two."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from tests.copies import copy_tree

MENTAT = Path(__file__).resolve().parents[2] / "samples" / "mentat" / "memory-bank"
QUESTION = "How does mentat fetch ISTAT data via SDMX?"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with the mentat sample as its memory bank."""
    proj = tmp_path / "shop"
    copy_tree(MENTAT, proj / "memory-bank")
    (proj / ".git").mkdir()
    (proj / "src").mkdir()
    return proj


def route(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["route", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_question_alone_is_routed_with_the_bank_of_the_working_folder(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    named = route(capsys, "memory-bank", QUESTION)
    assert named[0] == 0 and named[1].startswith("[CKP: loaded ") and "mentat/istat.md" in named[1]
    assert route(capsys, QUESTION) == named  # from the project: the one bank below it
    monkeypatch.chdir(project / "memory-bank" / "patterns")
    assert route(capsys, QUESTION) == named  # from inside the bank: the bank it is in


def test_the_options_go_before_between_or_after_the_bank_and_the_question(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    options = [["--max-tokens", "300"], ["--format=json"], ["--mode", "ranked"]]
    expected = route(capsys, "memory-bank", QUESTION, *itertools.chain(*options))
    assert expected[0] == 0 and '"budget"' in expected[1] and "mentat/istat.md" in expected[1]
    for order in itertools.permutations(options):
        # the bank and the question at every place among the options, the bank first
        for bank_at, question_at in itertools.combinations_with_replacement(range(len(order) + 1), 2):
            for bank in (["memory-bank"], []):
                groups: list[list[str]] = [list(o) for o in order]
                groups.insert(question_at, [QUESTION])
                groups.insert(bank_at, bank)
                argv = list(itertools.chain(*groups))
                assert route(capsys, *argv) == expected, argv


def test_argparse_reads_the_question_after_an_option_too(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An abbreviated option is argparse's to read, and it reads the words as the plain form does."""
    monkeypatch.chdir(project)
    expected = route(capsys, "memory-bank", QUESTION, "--max-tokens", "300")
    assert route(capsys, "memory-bank", "--max-tok=300", QUESTION) == expected
    assert route(capsys, "--max-tok", "300", QUESTION) == expected


def test_from_any_folder_of_the_project_the_question_alone_is_routed_with_the_projects_bank(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``git`` finds its repository: a folder beside the bank, or below such a folder."""
    monkeypatch.chdir(project)
    named = route(capsys, "memory-bank", QUESTION)
    (project / "src" / "deep").mkdir()
    for where in (project / "src", project / "src" / "deep"):
        monkeypatch.chdir(where)
        assert route(capsys, QUESTION) == named, where


def test_without_a_bank_here_the_question_alone_says_to_name_one(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"  # in no project, no bank in it or below it
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, err = route(capsys, QUESTION)
    assert (code, out) == (2, "")
    assert "no memory bank in" in err and "ckp route BANK QUERY" in err
    monkeypatch.chdir(project / "src")
    copy_tree(MENTAT, project / "src" / "docs" / "memory-bank")
    copy_tree(MENTAT, project / "src" / "more" / "memory-bank")
    code, out, err = route(capsys, QUESTION)
    assert (code, out) == (2, "")
    assert "2 memory banks here (docs/memory-bank, more/memory-bank): name one" in err
    (project / "tools").mkdir()
    monkeypatch.chdir(project / "tools")  # the project holds three: none is the one
    code, out, err = route(capsys, QUESTION)
    assert (code, out) == (2, "")
    assert "3 memory banks here" in err and "name one" in err
