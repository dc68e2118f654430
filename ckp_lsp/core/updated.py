"""The updated date of a knowledge file (SPEC §3): its VALIDATED, its last commit, or its mtime."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
from pathlib import Path

from .dates import CkpDate, from_date, parse_date, today


def git_dates(bank_root: Path) -> dict[str, CkpDate] | None:
    """Last-commit day of every file under ``bank_root``, uncommitted changes as today; None outside git."""
    try:
        log = subprocess.run(
            [
                "git",
                "-C",
                str(bank_root),
                "-c",
                "core.quotepath=off",  # non-ASCII names as they are, not "caf\303\251.md"
                "log",
                "--format=%x00%cs",
                "--name-only",
                "--relative",
                "--",
                ".",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if log.returncode != 0:
            return None
        dirty = subprocess.run(
            [
                "git",
                "-C",
                str(bank_root),
                "-c",
                "core.quotepath=off",
                "ls-files",
                "-m",
                "-o",
                "--exclude-standard",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    dates: dict[str, CkpDate] = {}
    current: CkpDate | None = None
    for line in log.stdout.splitlines():
        if line.startswith("\0"):
            current = parse_date(line[1:])
        elif line and current is not None and line not in dates:
            dates[line] = current
    now = today()
    for line in dirty.stdout.splitlines():
        if line:
            dates[line] = now
    return dates


def mtime_date(path: Path) -> CkpDate | None:
    """The modification day of ``path``, or None when it cannot be read."""
    try:
        return from_date(_dt.date.fromtimestamp(os.stat(path).st_mtime))
    except OSError:
        return None
