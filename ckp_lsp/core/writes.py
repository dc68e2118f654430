"""Writing files without ever losing one: a temporary file, then an atomic rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .text import BOM


def _umask() -> int:
    """The process's umask (read once: setting it to read it is not safe once threads run)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _umask()


class WriteRefused(Exception):
    """Nothing was written: the message says why."""


class ChangedOnDisk(WriteRefused):
    """The file changed on disk after it was read: nothing was written."""


class NotUtf8(WriteRefused):
    """The file on disk is not UTF-8 text: rewriting it would lose the bytes that are not."""


def write_atomic(
    path: Path, text: str, *, expected: str | None = None, bom: bool = False, new_file: bool = False
) -> None:
    """Replace ``path`` with ``text`` atomically; refuse when its text is no longer ``expected``.

    ``expected`` is the BOM-less text read before; None skips the comparison, and ``new_file``
    says the file did not exist then (so one that appeared since is not overwritten). A file that
    is not valid UTF-8 is never rewritten. A symbolic link is written through, to its target.
    """
    if path.is_symlink():
        path = path.resolve()
    if expected is not None or new_file:
        try:
            with path.open("rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            current = None
        else:
            try:
                current = data.decode("utf-8").removeprefix(BOM)
            except UnicodeDecodeError:
                raise NotUtf8(
                    f"{path} is not valid UTF-8 text: nothing was written, so that none of its bytes "
                    "is lost; save it as UTF-8 first"
                ) from None
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
        else:  # a new file gets the permissions any program would give it (mkstemp's are 0600)
            os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (a crash of the machine, not only of the process)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
