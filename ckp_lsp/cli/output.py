"""What every command prints with: paths relative to where the user stands, optional colour."""

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


def paint(text: str, code: str, on: bool) -> str:
    """``text`` in an ANSI colour when ``on``."""
    return f"\x1b[{code}m{text}\x1b[0m" if on else text
