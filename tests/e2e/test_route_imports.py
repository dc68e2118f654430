"""``ckp route`` (the ranked router, a whole process) imports only what routing needs: what the
prompt hook leaves out, and also the temporary files module (the temporary folder is found
without it), ``threading`` and, for a clear typo, RapidFuzz."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.test_hook_imports import EXACT, NOT_IMPORTED, TYPO, run_listed
from tests.e2e.test_hooks import mentat_project

#: besides what the hook leaves out
ALSO_NOT_IMPORTED = ("threading", "shutil", "random", "rapidfuzz", "tempfile")


def imported(project: Path, *argv: str) -> tuple[set[str], str]:
    """The modules one ``ckp route`` imports (run as the console script runs it), and its output."""
    listing = project.parent / "modules.txt"
    # (the bank's own .ckp-cache, as a user has it: the tests' CKP_CACHE_DIR names a cache by a digest)
    env = {k: v for k, v in os.environ.items() if k != "CKP_CACHE_DIR"}
    env.update(HOME=str(project.parent / "home"), MODULES=str(listing))
    modules, out = run_listed(["route", *argv], project, env)
    assert "ckp_lsp.cli.route_cmd" in modules  # the listing is read
    return modules, out


@pytest.mark.parametrize("question", [EXACT, TYPO], ids=["exact", "typo"])
def test_ckp_route_from_the_snapshot_imports_only_what_routing_needs(tmp_path: Path, question: str) -> None:
    project = mentat_project(tmp_path)
    for f in (project / "memory-bank").rglob("*.md"):  # written an hour ago, not just now (a file
        os.utime(f, (f.stat().st_atime - 3600, f.stat().st_mtime - 3600))  # this new is read again)
    imported(project, "memory-bank", EXACT)  # the first run builds the snapshot
    modules, out = imported(project, "memory-bank", question)
    assert out.startswith("[CKP: loaded ")
    assert ("projects/prescient.md via Prophet" in out) == (question == TYPO)
    needless = sorted(
        m
        for m in modules
        if any(m == n or m.startswith(n + ".") for n in (*NOT_IMPORTED, *ALSO_NOT_IMPORTED))
    )
    assert needless == [], needless
