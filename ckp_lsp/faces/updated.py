"""Updated dates read from git and the disk, for the core's ``git`` and ``mtime`` staleness sources.

Git is run so that no setting of the repository can choose a program: a repository may arrive
with its own ``.git/config`` (an archive, a shared folder) naming an fsmonitor, clean and smudge
filters, a ``gpg.program`` for ``log.showSignature``, hooks or a pager. Settings given with
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

from ..core.dates import CkpDate, from_date
from ..core.updated import parse_git_dates

#: given on git's command line, above every configuration file: what could name a program
_SAFE_SETTINGS = (
    "core.quotepath=off",  # non-ASCII names as they are, not "caf\303\251.md"
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "pager.log=false",
    "log.showSignature=false",
    "diff.external=",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
)
#: the environment git gets: no pager, no prompt, no lock taken (ckp only reads)
_ENV = {
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
}
_UNSET = ("GIT_EXTERNAL_DIFF", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS")
#: one entry of ``git ls-files --debug -z``: its name, then its mtime and size in the index
_DEBUG_ENTRY = re.compile(
    rb"([^\0]*)\0  ctime: \d+:\d+\n  mtime: (\d+):(\d+)\n  dev: \d+\tino: \d+\n"
    rb"  uid: \d+\tgid: \d+\n  size: (\d+)\tflags: [0-9a-f]+\n"
)


def git_command(bank_root: Path, *args: str) -> list[str]:
    """The argument list that runs ``git ARGS`` in ``bank_root`` with ``_SAFE_SETTINGS``."""
    safe = [a for setting in _SAFE_SETTINGS for a in ("-c", setting)]
    return ["git", "--no-pager", "-C", str(bank_root), *safe, *args]


def _git(bank_root: Path, *args: str, text: bool = True) -> subprocess.CompletedProcess[str | bytes]:
    env = {k: v for k, v in os.environ.items() if k not in _UNSET} | _ENV
    return subprocess.run(
        git_command(bank_root, *args),
        capture_output=True,
        text=text,
        timeout=30,
        stdin=subprocess.DEVNULL,
        env=env,
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
