"""What every command prints with: paths relative to where the user stands, optional colour."""

from __future__ import annotations

import os
import sys
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


def bank_root(path: Path) -> Path | None:
    """The root of the bank ``path`` names or lies in; None (and a message on stderr) when none."""
    from ..core.discovery import named_bank

    root = named_bank(path) if path.exists() else None
    if root is None:
        why = "no such file or folder" if not path.exists() else "not a memory bank"
        print(
            f"ckp: {path}: {why}: name a bank folder (memory-bank/, .claude/memory/, a folder of notes) "
            "or list it in `banks = [...]` in .ckp.toml",
            file=sys.stderr,
        )
    return root
