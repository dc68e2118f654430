"""What every command prints with: control characters escaped, optional colour, diffs."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, TextIO

from ckp_lsp.core.format.text import CONTROLS, visible_controls

from ..faces.paths import display_path

#: the escape character as ``paint`` writes it: an unguessable stand-in that only ``Shown`` turns
#: into ESC, so text from a file can never make one
_ESC = f"\ue000{os.urandom(8).hex()}\ue001"
#: C0 and C1 controls but tab and newline, DEL, bidirectional overrides, and a carriage return
#: inside a line (it would let a line overwrite what the terminal shows): the core's, shared by
#: every face
_CONTROL = CONTROLS
escape_controls = visible_controls


class Shown:
    """A text stream that escapes control characters in everything written to it, so no header
    value, file name or model answer can move the cursor, recolour or clear the user's terminal.
    A carriage return opening or closing a write (a progress line) and ``paint``'s colours pass."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if _CONTROL.search(text) is not None:
            lead = len(text) - len(text.lstrip("\r"))
            trail = len(text) - len(text.rstrip("\r")) if text.strip("\r") else 0
            text = text[:lead] + escape_controls(text[lead : len(text) - trail]) + text[len(text) - trail :]
        if _ESC in text:
            text = text.replace(_ESC, "\x1b")
        return self.stream.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def print_diff(path: Path, old: str, new: str) -> None:
    """The unified diff of ``path`` from ``old`` to ``new``, on stdout."""
    import difflib  # (imported here: every command imports this module, the prompt hook too)

    name = display_path(path)
    sys.stdout.writelines(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
        )
    )


def paint(text: str, code: str, on: bool) -> str:
    """``text`` in an ANSI colour when ``on``."""
    return f"{_ESC}[{code}m{text}{_ESC}[0m" if on else text


def refused(path: Path) -> str | None:
    """Why a folder named on the command line is refused (a symbolic link out of its project)."""
    from ckp_lsp.core.project.within import escape

    return escape(path, Path.cwd())


def bank_root(path: Path) -> Path | None:
    """The root of the bank ``path`` names or lies in; None (and a message on stderr) when none."""
    from ckp_lsp.core.project.discovery import named_bank

    why = refused(path)
    if why is not None:
        print(f"ckp: {why}", file=sys.stderr)
        return None
    root = named_bank(path) if path.exists() else None
    if root is None:
        from ckp_lsp.core.project.workspace import cursor_rules_note

        why = "no such file or folder" if not path.exists() else "not a memory bank"
        print(
            f"ckp: {path}: {why}: name a bank folder (memory-bank/, .claude/memory/, a folder of notes) "
            "or list it in `banks = [...]` in .ckp.toml" + (cursor_rules_note(path) if path.is_dir() else ""),
            file=sys.stderr,
        )
    return root


def bank_here(usage: str) -> Path | None:
    """The bank of the working folder, as ``ckp check`` finds it (``banks_here``); None, and a
    message on stderr naming ``usage``, for none or several."""
    from ckp_lsp.core.project.here import banks_here

    banks = banks_here(Path.cwd().resolve(), working=True)
    if len(banks) == 1:
        return banks[0]
    if banks:
        named = ", ".join(display_path(b) for b in banks[:3]) + (
            f" and {len(banks) - 3} more" if len(banks) > 3 else ""
        )
        print(f"ckp: {len(banks)} memory banks here ({named}): name one, as in `{usage}`", file=sys.stderr)
    else:
        print(
            f"ckp: no memory bank in {Path.cwd()}, below it, holding it or in its project: name one, as in `{usage}`",
            file=sys.stderr,
        )
    return None
