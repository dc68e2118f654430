"""The updated date of a knowledge file (SPEC §3): its VALIDATED, its last commit, or its mtime.

The core reads neither git nor the file system for these: a face hands the bank an
``UpdatedDates`` (``ckp_lsp.faces.updated.DISK`` asks git and the disk), so the checks are
functions of what they are given.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from ckp_lsp.core.format.dates import CkpDate, parse_date


class UpdatedDates(Protocol):
    """Where the ``git`` and ``mtime`` staleness sources read their dates."""

    def committed(self, bank_root: Path) -> Mapping[str, CkpDate] | None:
        """Last-commit day of every file under ``bank_root`` that has no uncommitted change (the
        bank dates the others, and files never committed, with its ``today``); None outside git."""

    def modified(self, path: Path) -> CkpDate | None:
        """The modification day of ``path``, or None when it cannot be read."""


class GivenDates:
    """Dates known in advance (tests, callers that read them elsewhere): no git, no disk."""

    def __init__(
        self, committed: Mapping[str, CkpDate] | None = None, modified: Mapping[Path, CkpDate] | None = None
    ) -> None:
        self._committed = committed  # None: not in a git repository
        self._modified = dict(modified or {})

    def committed(self, bank_root: Path) -> Mapping[str, CkpDate] | None:
        return self._committed

    def modified(self, path: Path) -> CkpDate | None:
        return self._modified.get(path)


def parse_git_dates(log: str, dirty: str) -> dict[str, CkpDate]:
    """The dates in ``git log --format=%x00%cs --name-only`` output, without the files ``git
    ls-files -m -o`` lists (uncommitted changes: the bank dates them with its day)."""
    dates: dict[str, CkpDate] = {}
    current: CkpDate | None = None
    for line in log.splitlines():
        if line.startswith("\0"):
            current = parse_date(line[1:])
        elif line and current is not None and line not in dates:
            dates[line] = current
    for line in dirty.splitlines():
        dates.pop(line, None)
    return dates
