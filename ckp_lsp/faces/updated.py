"""Updated dates read from git and the disk, for the core's ``git`` and ``mtime`` staleness sources.

Git is run with ``faces.git``'s hardened options and environment, so that no setting of the
repository can choose a program: a repository may arrive with its own ``.git/config`` (an
archive, a shared folder) naming an fsmonitor, clean and smudge filters, a ``gpg.program`` for
``log.showSignature``, hooks, a pager or a promisor remote's transport (lazy fetch is off). Settings given with
``-c`` win over every configuration file, and only commands that run none of them are used:
``git log`` for the commit dates, ``git ls-files`` (which never hashes the work tree, so never
filters it) for the files added since, and the index's own sizes and modification times,
compared here, for the files changed since.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import subprocess
from pathlib import Path

from ckp_lsp.core.bank.updated import parse_git_dates
from ckp_lsp.core.format.dates import CkpDate, from_date

from .git import git_command, git_env

#: one entry of ``git ls-files --debug -z``: its name, then its mtime and size in the index
_DEBUG_ENTRY = re.compile(
    rb"([^\0]*)\0  ctime: \d+:\d+\n  mtime: (\d+):(\d+)\n  dev: \d+\tino: \d+\n"
    rb"  uid: \d+\tgid: \d+\n  size: (\d+)\tflags: [0-9a-f]+\n"
)


def _git(bank_root: Path, *args: str, text: bool = True) -> subprocess.CompletedProcess[str | bytes]:
    return subprocess.run(
        git_command(bank_root, *args),
        capture_output=True,
        text=text,
        timeout=30,
        stdin=subprocess.DEVNULL,
        env=git_env(),
    )


def changed_since_indexed(bank_root: Path, debug: bytes) -> list[str]:
    """The files of ``git ls-files --debug -z`` whose size or modification time on disk is not
    what the index holds (or that are gone): what ``git ls-files -m`` would list, found without
    hashing a file through the repository's filters. (A file rewritten with the same size within
    the second the index was written is the one change missed.)"""
    out = []
    for m in _DEBUG_ENTRY.finditer(debug):
        name = os.fsdecode(m.group(1))
        try:
            st = os.lstat(bank_root / name)
        except OSError:
            out.append(name)
            continue
        sec, nsec, size = int(m.group(2)), int(m.group(3)), int(m.group(4))
        same_time = (int(st.st_mtime) & 0xFFFFFFFF) == sec and (nsec == 0 or st.st_mtime_ns % 10**9 == nsec)
        if not same_time or (st.st_size & 0xFFFFFFFF) != size:
            out.append(name)
    return out


class DiskDates:
    """Commit days from ``git log``, modification days from the file system."""

    def committed(self, bank_root: Path) -> dict[str, CkpDate] | None:
        try:
            log = _git(
                bank_root,
                "log",
                "--no-show-signature",
                "--no-ext-diff",
                "--no-textconv",
                "--format=%x00%cs",
                "--name-only",
                "--relative",
                "--",
                ".",
            )
            if log.returncode != 0:
                return None
            added = _git(bank_root, "ls-files", "-o", "--exclude-standard")
            indexed = _git(bank_root, "ls-files", "--debug", "-z", text=False)
        except (OSError, subprocess.SubprocessError):
            return None
        debug = indexed.stdout if isinstance(indexed.stdout, bytes) else b""
        changed = changed_since_indexed(bank_root, debug) if indexed.returncode == 0 else []
        dirty = str(added.stdout) + "".join(f"{name}\n" for name in changed)
        return parse_git_dates(str(log.stdout), dirty)

    def modified(self, path: Path) -> CkpDate | None:
        try:
            return from_date(_dt.date.fromtimestamp(os.stat(path).st_mtime))
        except OSError:
            return None


DISK = DiskDates()
