"""The README's two commands in a row in one clone: ``make demo`` leaves the caches ckp writes in
the samples it checks, and ``make test`` (whose copies of the samples leave them out) passes after it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.copies import copy_tree

REPO = Path(__file__).resolve().parents[2]


def make_targets(text: str) -> list[str]:
    """The ``make`` targets a shell text runs, in order."""
    return re.findall(r"^\s*make (\w+)", text, flags=re.MULTILINE)


def test_ci_runs_the_readme_commands_in_the_readme_order() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    assert make_targets(quick) == ["demo", "test"]
    assert make_targets((REPO / ".ci/run").read_text(encoding="utf-8")) == ["demo", "test"]


def test_a_copy_of_a_sample_the_demo_checked_holds_no_cache(tmp_path: Path) -> None:
    clone = copy_tree(REPO / "samples" / "mentat", tmp_path / "clone" / "mentat")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("CKP_NO_CACHE", None)
    env.pop("CKP_CACHE_DIR", None)
    demo = subprocess.run(
        [sys.executable, "-m", "ckp_lsp.cli.main", "check", "mentat/memory-bank"],
        cwd=clone.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert demo.returncode == 0, demo.stderr
    assert (clone / "memory-bank/.ckp-cache").is_dir()  # what the demo leaves, as ckp does anywhere
    copy = copy_tree(clone, tmp_path / "test" / "mentat")
    assert not (copy / "memory-bank/.ckp-cache").exists()
    assert sorted(p.relative_to(copy) for p in copy.rglob("*.md")) == sorted(
        p.relative_to(clone) for p in clone.rglob("*.md")
    )
