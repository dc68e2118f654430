"""What every command prints with: paths relative to where the user stands, optional colour."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: Path) -> str:
    """``path`` relative to the current folder when it lies below it."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def paint(text: str, code: str, on: bool) -> str:
    """``text`` in an ANSI colour when ``on``."""
    return f"\x1b[{code}m{text}\x1b[0m" if on else text
