"""``ckp init`` reads only the project's own regular files: a README or a manifest that links
out of the project (to ``/proc/self/environ``, to ``../secret``) is not copied into the bank."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main

REPO = Path(__file__).resolve().parents[2]
SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI-secret-of-the-user"


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def every_text_below(folder: Path) -> str:
    return "\n".join(
        p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
    )


@pytest.mark.parametrize("name", ["README.md", "package.json", "pyproject.toml"])
def test_init_copies_nothing_a_project_file_links_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    secret = tmp_path / "secret" / "credentials"
    secret.parent.mkdir()
    payload = {
        "README.md": f"# Creds\n\n{SECRET} is the first paragraph.\n",
        "package.json": f'{{"name": "leak", "description": "{SECRET}"}}',
        "pyproject.toml": f'[project]\nname = "leak"\ndescription = "{SECRET}"\n',
    }[name]
    secret.write_text(payload)
    project = git_repo(tmp_path / "clone")
    (project / "app.py").write_text("print(1)\n")
    (project / name).symlink_to("../secret/credentials")
    monkeypatch.chdir(project)
    assert main(["init"]) == 0
    assert "wJalrXUtnFEMI" not in every_text_below(project / "memory-bank")
    assert "wJalrXUtnFEMI" not in capsys.readouterr().out


def test_init_reads_no_special_file_through_a_readme_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = git_repo(tmp_path / "clone")
    (project / "README.md").symlink_to("/proc/self/environ")
    env = {**os.environ, "CKP_TEST_SECRET": "hunter2-from-the-environment", "PYTHONPATH": str(REPO)}
    run = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "init"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "hunter2" not in every_text_below(project / "memory-bank") + run.stdout


def test_init_still_reads_a_readme_linked_inside_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = git_repo(tmp_path / "shop")
    (project / "docs").mkdir()
    (project / "docs" / "README.md").write_text("# Shop\n\nThe shop sells teapots to collectors.\n")
    (project / "README.md").symlink_to("docs/README.md")
    monkeypatch.chdir(project)
    assert main(["init"]) == 0
    assert "teapots" in every_text_below(project / "memory-bank")
