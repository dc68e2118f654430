"""Copies of the repository's samples and data banks, as a fresh clone holds them."""

from __future__ import annotations

import shutil
from pathlib import Path

#: what running ckp in the repository leaves there (``make demo`` checks the samples, which writes
#: their ``.ckp-cache/``) and Python's byte code: no copy a test starts from carries them
LEFT_BY_RUNS = shutil.ignore_patterns(".ckp-cache", "__pycache__", "*.pyc")


def copy_tree(source: Path, dest: Path) -> Path:
    """A copy of ``source`` at ``dest`` without what earlier runs left in it (``LEFT_BY_RUNS``)."""
    return Path(shutil.copytree(source, dest, ignore=LEFT_BY_RUNS))
