"""The search for a file's bank looks upward no further than its project, and outside any project
no further than the nearest bank: a CKP ``_index.md`` far above (at ``/``, in ``/tmp``, in the home
folder) never makes everything below it one bank.

A temporary folder stands in for ``/`` (or the home folder, where ``/`` itself would be needed):
nothing is written outside the tests' temporary folders.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START
from ckp_lsp.core.project.discovery import (
    bank_of,
    find_banks,
    named_bank,
    never_banks,
    project_root,
)
from ckp_lsp.core.project.workspace import resolve_targets
from ckp_lsp.faces.banks import loader
from ckp_lsp.faces.clock import today
from ckp_lsp.mcp.banks import ServedBanks
from ckp_lsp.server.state import WorkspaceState
from tests.unit.builders import bare_header, run_cli, run_python, write_files

REPO = Path(__file__).resolve().parents[2]
LOAD = loader(today())
#: a CKP index left where it has no business (a bank of the whole machine, were it taken)
STRAY_INDEX = f"# Index\n\n{INDEX_START}\n{INDEX_END}\n"
#: a header `ckp fix` rewrites (a duplicate keyword) and `ckp check` reports
FIXABLE = bare_header(CONCEPT="mine", ANSWERS_WHEN="secret, secret")
FOREIGN = bare_header(CONCEPT="foreign", ANSWERS_WHEN="elsewhere, elsewhere")


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for ``/`` holding a stray CKP index, another user's notes, and a project (``.git``).

    It is the home folder, which like ``/`` is never a bank found upward."""
    root = write_files(
        tmp_path / "root",
        {
            "_index.md": STRAY_INDEX,
            "elsewhere/notes.md": FOREIGN,
            "project/memory-bank/a.md": FIXABLE,
            "project/docs/readme.md": FOREIGN,
        },
    )
    (root / "project/.git").mkdir()
    monkeypatch.setenv("HOME", str(root))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_boundary_is_the_nearest_folder_with_git_or_ckp_toml(machine: Path) -> None:
    project = machine / "project"
    assert project_root(project / "memory-bank") == project
    write_files(project, {"memory-bank/.ckp.toml": "exclude = []\n"})
    assert project_root(project / "memory-bank") == project / "memory-bank"
    assert project_root(machine / "elsewhere") is None


def test_root_home_and_temporary_folder_are_never_banks(tmp_path: Path) -> None:
    never = never_banks(tmp_path)
    assert Path(tmp_path.anchor) in never and Path.home().resolve() in never
    assert Path(tempfile.gettempdir()).resolve() in never


@pytest.mark.parametrize("tmpdir", [None, "given", "missing", "a file"])
def test_the_temporary_folder_is_tempfiles_without_importing_it(tmp_path: Path, tmpdir: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
    (tmp_path / "a file").write_text("x", encoding="utf-8")
    if tmpdir is not None:
        env["TMPDIR"] = str(tmp_path if tmpdir == "given" else tmp_path / tmpdir)
    code = (
        "import sys\n"
        "from ckp_lsp.core.project.within import temp_folder\n"
        "found = temp_folder()\n"
        "imported = 'tempfile' in sys.modules\n"
        "import tempfile\n"
        "print(imported, found == tempfile.gettempdir(), found)\n"
    )
    imported, same, found = run_python(code, env).split(maxsplit=2)
    assert (imported, same) == ("False", "True"), found
    assert (found.strip() == str(tmp_path)) == (tmpdir == "given")
    assert os.listdir(tmp_path) == ["a file"]  # the file it tried the folder with is gone


def test_a_bank_far_above_a_project_with_git_is_not_taken(machine: Path) -> None:
    project = machine / "project"
    assert find_banks([machine]) == [machine]  # it is a bank, when named
    assert bank_of(machine / "_index.md") is None  # never one found upward
    assert bank_of(project / "memory-bank/a.md") == project / "memory-bank"
    assert bank_of(project / "docs/readme.md") is None
    assert bank_of(project) is None
    assert resolve_targets([project / "docs/readme.md"], load=LOAD).targets == []


def test_a_bank_far_above_a_project_with_ckp_toml_is_not_taken(machine: Path) -> None:
    (machine / "project/.git").rmdir()
    write_files(machine / "project", {".ckp.toml": "exclude = ['README.md']\n"})
    assert bank_of(machine / "project/docs/readme.md") is None
    assert bank_of(machine / "project/memory-bank/a.md") == machine / "project/memory-bank"


def test_without_a_project_root_the_search_stops_below_root_home_and_temporary_folder(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (machine / "project/.git").rmdir()
    project = machine / "project"
    assert bank_of(project / "memory-bank/a.md") == project / "memory-bank"
    assert bank_of(project / "docs/readme.md") is None
    monkeypatch.setenv("HOME", str(machine.parent))  # the stray index in an ordinary folder
    assert bank_of(project / "docs/readme.md") == machine  # what any bank above is to a file in it
    assert bank_of(project / "memory-bank/a.md") == machine  # banks never nest: the outermost


def test_a_command_started_in_a_project_without_git_keeps_to_it(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (machine / "project/.git").rmdir()
    monkeypatch.chdir(machine / "project")
    targets = resolve_targets([Path("."), Path("docs/readme.md")], load=LOAD)
    assert [t.bank.root for t in targets.targets] == [machine / "project/memory-bank"]
    assert any("readme.md: not inside a memory bank" in p for p in targets.problems)
    assert named_bank(Path("docs")) == machine / "project/docs"  # a folder of notes named as a bank


def test_the_home_folder_is_never_a_bank_found_upward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = write_files(
        tmp_path / "home",
        {"_index.md": STRAY_INDEX, "notes/memory-bank/a.md": FIXABLE, "drafts/loose.md": FOREIGN},
    )
    monkeypatch.setenv("HOME", str(home))
    assert bank_of(home / "drafts/loose.md") is None
    assert bank_of(home / "notes/memory-bank/a.md") == home / "notes/memory-bank"
    # A bank named on the command line still is one (``ckp check ~/notes/memory-bank``).
    assert named_bank(home / "notes/memory-bank") == home / "notes/memory-bank"
    (home / ".git").mkdir()  # a home folder kept in git (dotfiles): its root is still no bank
    assert bank_of(home / "drafts/loose.md") is None


def test_the_language_server_and_mcp_server_see_only_the_projects_bank(machine: Path) -> None:
    project = machine / "project"
    state = WorkspaceState()
    state.folders = [project]
    assert state.discover() == [project / "memory-bank"]
    assert [sb.root for sb in ServedBanks(project).banks] == [project / "memory-bank"]
    assert [sb.root for sb in ServedBanks(project / "docs").banks] == []
    assert find_banks([project]) == [project / "memory-bank"]


def test_ckp_check_and_fix_in_a_project_leave_a_bank_far_above_alone(machine: Path) -> None:
    """The commands themselves, run as a user runs them, in the project's folder."""
    project = machine / "project"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}

    def ckp(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ckp_lsp.cli.main", *argv],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    before = snapshot(machine)
    check = ckp("check")
    assert check.returncode == 0, check.stderr  # warnings only
    assert "memory-bank/a.md:3:" in check.stdout and "'secret' appears twice" in check.stdout
    assert "memory-bank/_index.md" in check.stdout  # the project's bank has no index yet
    assert "../_index.md" not in check.stdout  # the stray index is no index of this bank
    assert "readme.md" not in check.stdout and "notes.md" not in check.stdout
    assert "elsewhere" not in check.stdout + check.stderr

    fix = ckp("fix")
    assert fix.returncode in (0, 1), fix.stderr
    after = snapshot(machine)
    changed = {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)}
    assert changed <= {"project/memory-bank/a.md", "project/memory-bank/_index.md"}
    assert "project/memory-bank/a.md" in changed
    assert "secret, secret" not in (project / "memory-bank/a.md").read_text()

    refused = ckp("fix", "docs/readme.md")
    assert refused.returncode != 0 and "not inside a memory bank" in refused.stderr
    assert snapshot(machine) == after


def test_ckp_index_and_compile_in_a_project_leave_a_bank_far_above_alone(
    machine: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(machine / "project")
    code, _, err = run_cli(
        capsys, "compile", "--provider", "offline", str(machine / "project/docs/readme.md")
    )
    assert code == 2 and "not inside a memory bank" in err
    assert (machine / "project/docs/readme.md").read_text() == FOREIGN
    code, _, err = run_cli(capsys, "index", "docs")
    assert code == 0, err
    assert (machine / "project/docs/_index.md").exists()  # the folder named, not the bank above
    assert (machine / "_index.md").read_text() == STRAY_INDEX


@pytest.fixture
def loose(machine: Path) -> Path:
    """A bank with a sub-folder in a folder with no project root (no ``.git``, no ``.ckp.toml``),
    below the stray index of ``machine``; the current folder is elsewhere."""
    write_files(machine / "loose/notes/memory-bank", {"top.md": FOREIGN, "patterns/deep.md": FIXABLE})
    return machine / "loose/notes/memory-bank"


def test_a_file_in_a_banks_sub_folder_named_from_outside_is_found_in_its_bank(
    loose: Path, machine: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(machine / "project")
    deep = loose / "patterns/deep.md"
    assert project_root(deep.parent) is None
    targets = resolve_targets([deep], load=LOAD)
    assert [(t.root, t.files) for t in targets.targets] == [(loose, {"patterns/deep.md"})]
    code, out, err = run_cli(capsys, "check", str(deep))
    assert code == 0, err
    assert "patterns/deep.md:3:" in out and "'secret' appears twice" in out
    assert out.splitlines()[-1].endswith("in 1 file: 0 error(s), 1 warning(s), 0 info.")
    # The sub-folder named is its bank, not a bank of its own (where `mine` would relate to nothing).
    assert [t.root for t in resolve_targets([deep.parent], load=LOAD).targets] == [loose]


def test_a_command_run_in_a_banks_sub_folder_without_a_project_finds_the_bank(
    loose: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(loose / "patterns")
    code, out, err = run_cli(capsys, "check", "deep.md")
    assert code == 0, err
    assert "'secret' appears twice" in out
    assert [t.root for t in resolve_targets([Path(".")], load=LOAD).targets] == [loose]


def test_a_bank_by_its_index_alone_is_found_from_any_working_folder(
    machine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``_index.md`` of CKP makes its folder a bank for the files below it wherever ckp runs; the
    stray one of ``machine``, standing at ``/``, is never taken."""
    kb = write_files(machine / "loose/kb", {"_index.md": STRAY_INDEX, "sub/a.md": FIXABLE})
    for cwd in (machine / "project", kb / "sub", machine / "elsewhere"):
        monkeypatch.chdir(cwd)
        assert [(t.root, t.files) for t in resolve_targets([kb / "sub/a.md"], load=LOAD).targets] == [
            (kb, {"sub/a.md"})
        ]
    assert bank_of(machine / "elsewhere/notes.md") is None
    assert [t.root for t in resolve_targets([kb], load=LOAD).targets] == [kb]


def test_a_folder_holding_one_bank_names_it_for_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Cursor project keeps its bank in .cursor/memory-bank: `ckp check .cursor` finds it, and
    # so do `ckp compile --all .cursor` and `ckp index .cursor`.
    project = write_files(
        tmp_path / "project", {".cursor/memory-bank/a.md": FIXABLE, ".cursor/rules/x.txt": ""}
    )
    (project / ".git").mkdir()
    assert named_bank(project / ".cursor") == project / ".cursor/memory-bank"
    code, _, err = run_cli(capsys, "compile", "--all", str(project / ".cursor"))
    assert code == 0, err
    assert "CONCEPT:" in (project / ".cursor/memory-bank/a.md").read_text()
    code, _, err = run_cli(capsys, "index", str(project / ".cursor"))
    assert code == 0, err
    assert (project / ".cursor/memory-bank/_index.md").is_file()
    # Two banks below: which one is meant is the user's to say.
    write_files(project, {"docs/memory-bank/b.md": FOREIGN})
    assert named_bank(project) is None
    code, _, err = run_cli(capsys, "compile", "--all", str(project))
    assert code == 2 and "not a memory bank" in err
