"""Writing files without ever losing one: a temporary file, then an atomic swap that is checked.

Replacing a file the tool has read and checked is race-free on Linux: the new file is swapped in
with ``renameat2(RENAME_EXCHANGE)``, the file swapped out is compared with what was read, and when
someone saved in between the two are swapped back, so the other edit stays and nothing of ours is
written. Once the swapped-out file has lost its name (no new open reaches it) it is read again:
a writer that opened it before the swap and wrote after the comparison gets its text put back.
Elsewhere the file is read again just before the rename (the window is that rename).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from ckp_lsp.core.format.text import BOM
from ckp_lsp.core.project.within import inside

#: how many bytes of a file's name its temporary file keeps (a name is at most 255 bytes)
_NAME_BYTES = 200
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class WriteRefused(Exception):
    """Nothing was written: the message says why."""


class ChangedOnDisk(WriteRefused):
    """The file changed on disk after it was read: nothing was written."""


class NotUtf8(WriteRefused):
    """The file on disk is not UTF-8 text: rewriting it would lose the bytes that are not."""


class NotRegular(ChangedOnDisk):
    """What is at the path is no longer a regular file (a folder, a link, a pipe took its place)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is no longer a regular file (something else took its place since it was read): "
            "it was left as it is and nothing was written"
        )


class CannotWrite(WriteRefused):
    """The system refused the write (full disk, read-only folder, name too long): nothing changed."""


def write_atomic(
    path: Path,
    text: str,
    *,
    expected: str | None = None,
    bom: bool = False,
    new_file: bool = False,
    within: Path | None = None,
) -> None:
    """Replace ``path`` with ``text`` atomically; refuse when its text is no longer ``expected``.

    ``expected`` is the BOM-less text read before; None skips the comparison, and ``new_file``
    says the file did not exist then (so one that appeared since is not overwritten). A file that
    is not valid UTF-8, is read-only, has several hard links or belongs to someone this process
    cannot give it back to is never rewritten. A symbolic link is written through, to its target,
    unless that target lies outside ``within`` (the bank). Every refusal and every error of the
    system is a ``WriteRefused`` naming the file; the file is then as it was.
    """
    _refuse_leaving(path, within)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        _write(path, ((BOM if bom else "") + text).encode("utf-8"), expected, new_file)
    except OSError as exc:
        raise CannotWrite(f"{path}: cannot be written ({exc.strerror or exc}): nothing was changed") from None


def remove(path: Path, *, within: Path) -> None:
    """Delete the file ``path`` (one a command wrote: a hook it installed), refused as
    ``write_atomic`` refuses a link that leads outside ``within``; ``OSError`` when the system
    refuses."""
    _refuse_leaving(path, within)
    os.unlink(path)


def refusal(path: Path, within: Path | None = None) -> str:
    """Why ``write_atomic`` would refuse to rewrite ``path`` whatever its text ("" if it would not):
    said before a change that depends on the write is made (a link out of the bank, a special,
    read-only or hard-linked file)."""
    try:
        _refuse_leaving(path, within)
        if path.is_symlink():
            path = Path(os.path.realpath(path))
        with contextlib.suppress(FileNotFoundError):
            _refuse_unsafe(path, path.lstat())
    except WriteRefused as exc:
        return str(exc)
    except OSError:
        return ""  # an error of the system: the write itself will say it
    return ""


def _refuse_leaving(path: Path, within: Path | None) -> None:
    """Refuse a symbolic link whose target lies outside the bank."""
    if within is not None and not inside(path, within):
        raise WriteRefused(
            f"{path} is a symbolic link that leads outside the bank (to {os.path.realpath(path)}): "
            "nothing was written; replace the link by a file inside the bank"
        )


def _write(path: Path, data: bytes, expected: str | None, new_file: bool) -> None:
    try:
        st: os.stat_result | None = path.lstat()
    except FileNotFoundError:
        st = None
    if st is not None:
        _refuse_unsafe(path, st)
    original: bytes | None = None
    if expected is not None or new_file:
        original = _read(path)
        if _text_of(path, original) != expected:
            raise ChangedOnDisk(f"{path} changed on disk since it was read; nothing was written, run again")
    folder = path.parent
    tmp = _staged(path, data, st)
    try:
        if original is None and expected is None and not new_file:
            os.replace(tmp, path)  # nothing was read: nothing to compare
        elif original is None:
            _create(tmp, path)
        else:
            _replace_unchanged(tmp, path, original, data)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _sync_folder(folder)


def _staged(path: Path, data: bytes, st: os.stat_result | None) -> str:
    """A new file beside ``path`` that holds ``data`` on disk (fsync), with the owner and mode of
    ``st``: what a rename or a swap then puts in ``path``'s place. Removed again if writing it fails."""
    import tempfile  # here: it imports shutil and the compressors, which a start does not need

    name = os.fsencode(path.name)[:_NAME_BYTES].decode("utf-8", "ignore")
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            _keep_owner_and_mode(fh.fileno(), path, st)
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _refuse_unsafe(path: Path, st: os.stat_result) -> None:
    """Refuse what a rename would break: a special file, a read-only file, a hard link."""
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused(f"{path} is not a regular file: nothing was written")
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise WriteRefused(
            f"{path} is read-only: nothing was written; make it writable (chmod u+w) to let ckp change it"
        )
    if st.st_nlink > 1:
        # A rename would leave the other links on the old text; writing in place could leave a
        # half-written file if the machine stopped. Neither is acceptable: the file is kept.
        raise WriteRefused(
            f"{path} has {st.st_nlink} hard links: rewriting it would separate them, so nothing was "
            "written; apply the change by hand (`ckp fix --diff` shows it)"
        )


def _read(path: Path) -> bytes | None:
    """The bytes of the regular file at ``path`` (None: nothing is there). Anything else there
    is ``NotRegular``: a folder or a link is never read as the file, and a named pipe never blocks
    the read (it is opened without waiting for a writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR):
            raise NotRegular(path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegular(path)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _text_of(path: Path, data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError:
        raise NotUtf8(
            f"{path} is not valid UTF-8 text: nothing was written, so that none of its bytes "
            "is lost; save it as UTF-8 first"
        ) from None


def _umask() -> int:
    """The process's umask (read without changing it where the system says it)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _keep_owner_and_mode(fd: int, path: Path, st: os.stat_result | None) -> None:
    """Give the temporary file what the file had: mode bits, owner and group (a new file: the
    mode ``open`` would give it, 0666 less the umask)."""
    if st is None:
        os.fchmod(fd, 0o666 & ~_umask())
        return
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) != (st.st_uid, st.st_gid):
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except PermissionError:
            raise WriteRefused(
                f"{path} belongs to user {st.st_uid}, group {st.st_gid}, which this user cannot give "
                "a rewritten file: nothing was written"
            ) from None
    os.fchmod(fd, stat.S_IMODE(st.st_mode))


def _create(tmp: str, path: Path) -> None:
    """Put ``tmp`` at ``path`` only if nothing is there (a hard link cannot overwrite)."""
    try:
        os.link(tmp, path)
        return
    except FileExistsError:
        raise ChangedOnDisk(
            f"{path} was created on disk since it was read; nothing was written, run again"
        ) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
    if path.exists() or path.is_symlink():  # a file system without hard links: narrow the window
        raise ChangedOnDisk(f"{path} was created on disk since it was read; nothing was written, run again")
    os.replace(tmp, path)


def _replace_unchanged(tmp: str, path: Path, original: bytes, ours: bytes) -> None:
    """Put ``tmp`` at ``path`` if ``path`` still holds ``original``; otherwise keep whatever is there."""
    try:
        swapped = _exchange(tmp, str(path))
    except FileNotFoundError:
        raise ChangedOnDisk(f"{path} was deleted since it was read; nothing was written") from None
    if not swapped:
        _replace_and_detect(tmp, path, original)
        return
    try:
        # the file swapped out, held open (without waiting for a writer, were it a named pipe)
        held: int | None = os.open(tmp, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        held = None
    try:
        try:
            out = _read(Path(tmp))
        except NotRegular:
            # A folder, a link or a pipe took the file's place: it goes back where it was.
            _exchange(tmp, str(path))
            raise NotRegular(path) from None
        if out == original:
            if held is None:
                return  # what we swapped out is what we read (``tmp`` is removed)
            # No new open reaches the swapped-out file once its name is gone; a writer that opened
            # it before the swap may still have written into it since the comparison: look again.
            os.unlink(tmp)
            late = _read_held(held)
            if late == original:
                return
            _put_back(path, late, ours)
            raise ChangedOnDisk(
                f"{path} was written (through a file opened before ckp's swap) while it was being "
                "written: the other edit was put back and nothing was written; run again"
            )
    finally:
        if held is not None:
            os.close(held)
    # Someone saved between our read and the swap: their file is at ``tmp``. Swap back; if they
    # saved again meanwhile (``tmp`` then is not ours), that later save is theirs to keep too.
    _exchange(tmp, str(path))
    if _read(Path(tmp)) != ours:
        _exchange(tmp, str(path))
    raise ChangedOnDisk(
        f"{path} changed on disk while it was being written: the other edit was kept and nothing "
        "was written; run again"
    )


def _read_held(fd: int) -> bytes:
    """The whole of the file open at ``fd``, from its start."""
    chunks = []
    at = 0
    while chunk := os.pread(fd, 1 << 20, at):
        chunks.append(chunk)
        at += len(chunk)
    return b"".join(chunks)


def _put_back(path: Path, theirs: bytes, ours: bytes) -> None:
    """Put ``theirs`` (an edit written into the file ckp swapped out) at ``path``, where ckp's own
    ``ours`` now is: swapped in the same checked way, so a save made meanwhile is kept too."""
    tmp = _staged(path, theirs, path.lstat())
    try:
        if not _exchange(tmp, str(path)):
            os.replace(tmp, path)
            return
        if _read(Path(tmp)) != ours:  # saved again since: that save stays
            _exchange(tmp, str(path))
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _replace_and_detect(tmp: str, path: Path, original: bytes) -> None:
    """Without a swap: read the file again just before the rename, and keep a link to what was
    replaced, so that an edit written into it meanwhile is detected afterwards and put back."""
    kept: str | None = f"{tmp}.old"
    try:
        os.link(path, f"{tmp}.old")
    except OSError:
        kept = None  # no hard links here: the check before the rename is all there is
    try:
        if _read(path) != original:
            raise ChangedOnDisk(f"{path} changed on disk since it was read; nothing was written, run again")
        os.replace(tmp, path)
        if kept is not None and _read(Path(kept)) != original:
            os.replace(kept, path)
            kept = None
            raise ChangedOnDisk(
                f"{path} changed on disk while it was being written: the other edit was put back "
                "and nothing was written; run again"
            )
    finally:
        if kept is not None:
            with contextlib.suppress(OSError):
                os.unlink(kept)


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: a start does not write

    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _exchange(a: str, b: str) -> bool:
    """Swap the files at ``a`` and ``b`` in one step; False where the system cannot."""
    fn = _renameat2()
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes

    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # the file system does not swap
    raise OSError(err, os.strerror(err), b)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (a crash of the machine, not only of the process)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
