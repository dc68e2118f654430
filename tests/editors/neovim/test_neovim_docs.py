"""docs/neovim.md's recommended settings (extras.lua) in a real headless Neovim 0.11: the code
lens lists references, a rename leaves no unsaved buffer and a whole bank on disk, fix-all runs on
save; and both setup snippets start no server for a file outside any project (0.11 and 0.7).

Missing editors skip the tests, or fail them when CI=true (see test_neovim.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_neovim import DOCS, EDITORS, HERE, SAMPLES, TIMEOUT, Unavailable, find_nvim, in_ci, server_command

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Severity
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.faces.banks import load_bank
from tests.copies import copy_tree
from tests.mentat import MENTAT_REFERRERS

EXTRAS = HERE / "extras.lua"


def errors(root: Path) -> set[tuple[str, str]]:
    bank = load_bank(root.resolve())
    found = {
        (rel, f.code) for rel in bank.files for f in check_file(bank, rel) if f.severity == Severity.ERROR
    }
    return found | {("_index.md", f.code) for f in check_index(bank) if f.severity == Severity.ERROR}


def run_neovim(label: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One headless run of docs_driver.lua with the setup snippet of ``label`` (and extras.lua)."""
    try:
        binary = find_nvim(label)
    except Unavailable as exc:
        if in_ci():
            pytest.fail(f"Neovim editor test cannot run (CI=true): {exc}", pytrace=False)
        pytest.skip(str(exc))
    tmp = tmp_path_factory.mktemp(f"nvim-docs-{label}")
    samples = tmp / "samples"
    copy_tree(SAMPLES, samples)
    home = tmp / "home"  # a folder with no bank and no marker, as a user's home folder
    home.mkdir()
    (home / "notes.md").write_text("# Notes\n\nNot a knowledge file.\n")
    result_file = tmp / "result.json"
    env = {
        **os.environ,
        **{f"XDG_{k}_HOME": str(tmp / "xdg" / k.lower()) for k in ("CONFIG", "DATA", "STATE", "CACHE")},
        "CKP_SETUP": str(HERE / EDITORS[label][2]),
        "CKP_EXTRAS": str(EXTRAS),
        "CKP_SAVE_EDITS": str(HERE / "save_edits.lua"),
        "CKP_CMD": json.dumps(server_command()),
        "CKP_SAMPLES": str(samples),
        "CKP_HOME": str(home),
        "CKP_RESULT": str(result_file),
    }
    cmd = [binary, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {HERE / 'docs_driver.lua'}"]
    before = errors(samples / "mentat" / "memory-bank")
    proc = subprocess.run(
        cmd, cwd=tmp, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert result_file.exists(), (
        f"Neovim {label} wrote no result (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    )
    result: dict[str, Any] = json.loads(result_file.read_text(encoding="utf-8"))
    assert result.get("ok"), f"Neovim {label}: {result.get('error')}\n{proc.stderr[-3000:]}"
    result.update(label=label, samples=samples, before=before)
    return result


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Neovim 0.11 with both snippets (extras.lua needs 0.8 or later)."""
    return run_neovim("0.11", tmp_path_factory)


@pytest.fixture(scope="module", params=list(EDITORS), ids=[f"nvim-{v}" for v in EDITORS])
def any_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each version with its setup snippet."""
    if request.param == "0.11":
        return request.getfixturevalue("run")  # the same run: one Neovim start less
    return run_neovim(request.param, tmp_path_factory)


def step(run: dict[str, Any], name: str) -> dict[str, Any]:
    data: dict[str, Any] = run["steps"].get(name) or {}
    assert data.get("ok"), f"Neovim {run['label']}: the {name} step failed: {data.get('error')}"
    return data


@pytest.mark.editor
def test_messages_are_shown_inline(run: dict[str, Any]) -> None:
    data = step(run, "settings")
    assert data["virtual_text"] and data["float_source"] is True


@pytest.mark.editor
def test_the_code_lens_lists_the_references_and_is_a_command_neovim_runs(run: dict[str, Any]) -> None:
    data = step(run, "code_lens")
    assert data["lens"].startswith("1 HIGH · 3 MID backlinks")
    files = sorted({f.rsplit("memory-bank/", 1)[-1] for f in data["files"]})
    assert files == MENTAT_REFERRERS
    assert not [n for n in run["notes"] if "does not support command" in n["msg"]], run["notes"]


@pytest.mark.editor
def test_a_rename_is_saved_whole_and_leaves_the_bank_consistent(run: dict[str, Any]) -> None:
    data = step(run, "rename")
    assert data["moved"] and data["modified"] == [], data
    root = run["samples"] / "mentat" / "memory-bank"
    assert not (root / "patterns" / "jwt.md").exists()
    assert (root / "patterns" / "json-web-token.md").read_text().startswith("CONCEPT:      json-web-token")
    assert "json-web-token:" in (root / "patterns" / "auth.md").read_text()
    assert errors(root) == run["before"]  # no dangling entry, no index drift as an error


@pytest.mark.editor
def test_saving_applies_the_safe_fixes(run: dict[str, Any]) -> None:
    step(run, "fix_all_on_save")
    text = (run["samples"] / "broken" / "memory-bank" / "http-headers.md").read_text()
    header = text.split("\n\n", 1)[0]
    assert "CONFIDENCE:" in header and "CONFIDENSE" not in header  # CKP003 fixed
    assert header.count("CSP") + header.count("csp") == 1  # CKP030: the duplicate keyword removed


@pytest.mark.editor
def test_a_file_outside_any_project_starts_no_server(any_run: dict[str, Any]) -> None:
    data = step(any_run, "no_bank")
    assert data["clients"] == 0, (
        f"Neovim {any_run['label']}: a server was started for a file in a folder without a bank"
    )


def test_docs_reproduce_the_extras() -> None:
    assert EXTRAS.read_text(encoding="utf-8").strip() in DOCS.read_text(encoding="utf-8"), (
        "docs/neovim.md must reproduce tests/editors/neovim/extras.lua verbatim (the tests run that file)"
    )
