"""Paths as a face shows them: relative to the folder the user (or the agent's host) stands in."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def display_path(path: Path) -> str:
    """``path`` relative to the current folder (the way the user named it)."""
    return _relative(str(path), os.getcwd())


@lru_cache(maxsize=65536)
def _relative(path: str, cwd: str) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:
        return path
