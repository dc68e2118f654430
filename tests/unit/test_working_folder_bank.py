"""Without a bank named, ``ckp check`` and ``ckp index`` work on the bank of the working folder,
found as ``git`` finds its repository: the bank the folder is in, the banks below it, else the
banks of the project it lies in."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from tests.copies import copy_tree

MENTAT = Path(__file__).resolve().parents[2] / "samples" / "mentat" / "memory-bank"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "shop"
    copy_tree(MENTAT, proj / "memory-bank")
    (proj / ".git").mkdir()
    (proj / "src" / "deep").mkdir(parents=True)
    return proj


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("where", [".", "memory-bank/patterns", "src", "src/deep"])
def test_ckp_check_without_a_path_checks_the_projects_bank_from_any_of_its_folders(
    project: Path, where: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    named = run(capsys, "check", "--format", "json", str(project / "memory-bank"))
    assert named[0] in (0, 1) and '"memory-bank/' not in named[2]
    monkeypatch.chdir(project / where)
    assert run(capsys, "check", "--format", "json") == named


@pytest.mark.parametrize("where", [".", "memory-bank/patterns", "src/deep"])
def test_ckp_index_without_a_bank_regenerates_the_index_of_the_projects_bank(
    project: Path, where: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = project / "memory-bank" / "_index.md"
    index.write_text(index.read_text().replace("<!-- ckp:index:end -->", "| stray |\n<!-- ckp:index:end -->"))
    monkeypatch.chdir(project / where)
    code, _, err = run(capsys, "index")
    assert code == 0, err
    assert "| stray |" not in index.read_text()
    assert run(capsys, "index", "--check")[0] == 0


def test_outside_any_project_and_bank_ckp_index_says_to_name_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    code, out, err = run(capsys, "index")
    assert (code, out) == (2, "")
    assert "no memory bank in" in err and "ckp index BANK" in err
