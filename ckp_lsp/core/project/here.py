"""The banks a command works on when none is named: those of the folder it runs in."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ckp_lsp.core.project.discovery import bank_of, find_banks, named_bank
from ckp_lsp.core.project.within import project_root


def banks_here(
    folder: Path, configured: Iterable[Path] = (), problems: list[str] | None = None, working: bool = False
) -> list[Path]:
    """The banks of ``folder``: the bank it is in, else the banks below it, else a folder of notes
    the settings name; for the ``working`` folder a command runs in, else the banks of the project
    it lies in (from the project's root: ``project_root``), as ``git`` finds its repository from
    any folder of it."""
    root = bank_of(folder, configured, problems)
    roots = [root] if root is not None else find_banks([folder], configured, problems)
    if not roots and (named := named_bank(folder, configured)) is not None:
        roots = [named]  # a folder of notes the user names is a bank
    if not roots and working and (project := project_root(folder)) is not None and project != folder:
        roots = find_banks([project], configured, problems)
    return roots
