"""Writing files without ever losing one: a temporary file, then an atomic rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .text import BOM


class ChangedOnDisk(Exception):
    """The file changed on disk after it was read: nothing was written."""


def write_atomic(path: Path, text: str, *, expected: str | None = None, bom: bool = False) -> None:
    """Replace ``path`` with ``text`` atomically; refuse when its text is no longer ``expected``.

    ``expected`` is the BOM-less text read before; None skips the comparison (a new file).
    """
    if expected is not None:
        try:
            with path.open("rb") as fh:
                current = fh.read().decode("utf-8", errors="replace").removeprefix(BOM)
        except FileNotFoundError:
            current = None
        if current != expected:
            raise ChangedOnDisk(f"{path} changed on disk since it was read; nothing was written, run again")
    data = ((BOM if bom else "") + text).encode("utf-8")
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
