"""Updated dates read from git and the disk, for the core's ``git`` and ``mtime`` staleness sources."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
from pathlib import Path

from ..core.dates import CkpDate, from_date
from ..core.updated import parse_git_dates


def _git(bank_root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # core.quotepath=off: non-ASCII names as they are, not "caf\303\251.md"
        ["git", "-C", str(bank_root), "-c", "core.quotepath=off", *args],
        capture_output=True,
        text=True,
        timeout=30,
    )


class DiskDates:
    """Commit days from ``git log``, modification days from the file system."""

    def committed(self, bank_root: Path) -> dict[str, CkpDate] | None:
        try:
            log = _git(bank_root, "log", "--format=%x00%cs", "--name-only", "--relative", "--", ".")
            if log.returncode != 0:
                return None
            dirty = _git(bank_root, "ls-files", "-m", "-o", "--exclude-standard")
        except (OSError, subprocess.SubprocessError):
            return None
        return parse_git_dates(log.stdout, dirty.stdout)

    def modified(self, path: Path) -> CkpDate | None:
        try:
            return from_date(_dt.date.fromtimestamp(os.stat(path).st_mtime))
        except OSError:
            return None


DISK = DiskDates()
