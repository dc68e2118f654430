"""Whether a path belongs to a folder: the one rule every face applies before reading or writing.

A path belongs to a folder when, every symbolic link on the way followed (a dangling one to where
it points) and every ``..`` taken, it is the folder or lies below it, compared as the system
compares names (``os.path.normcase``: without case on Windows). ``below`` is that rule, and
everything else asks it: ``inside`` for a path, ``Folder.read`` for the file a reader actually
opened (the bank's files, its ``_index.md``, the project's files), ``core.writes.write_atomic`` for
every write, ``core.bank.cache`` for where a cache may be kept, and ``escape`` for a bank folder named on
the command line, a workspace folder or the folder ``ckp mcp`` serves.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from pathlib import Path
from typing import NamedTuple

#: what makes a folder a project's root (see ``project_root``)
PROJECT_MARKERS = (".git", ".ckp.toml")


def below(real: str, real_root: str) -> bool:
    """Whether the real path ``real`` is the real path ``real_root`` or lies below it: the rule."""
    real, real_root = os.path.normcase(real), os.path.normcase(real_root)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether ``path``, every symbolic link followed, is ``root`` or lies below it (``root``'s
    links followed too)."""
    return below(os.path.realpath(path), os.path.realpath(root))


class Outside(PermissionError):
    """A file that leads outside the folder it was read from, or is no regular file: not read."""


class FileText(NamedTuple):
    """A file's text as read: BOM stripped, whether it was UTF-8, whether it began with a BOM."""

    text: str
    utf8: bool
    bom: bool


_BOM = b"\xef\xbb\xbf"


class Folder:
    """A folder whose files are read only when they lie inside it: its real path is found once, and
    each file opened is judged by where the opened file really is (no race with a link swapped in
    between a check and the read)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.base = os.path.join(root, "")  # a file's path is ``base + rel``
        self.real = os.path.realpath(root)

    def holds(self, path: Path | str) -> bool:
        """Whether ``path`` (every link followed) lies inside the folder."""
        return below(os.path.realpath(path), self.real)

    def read(self, path: Path | str) -> FileText:
        """The text of the file ``path``; ``Outside`` when it leads out of the folder or is a pipe or
        a device, ``OSError`` when it cannot be read."""
        from ckp_lsp.core.format.text import decode

        data = self.bytes_of(path)
        text, utf8 = decode(data)
        return FileText(text, utf8, data.startswith(_BOM))

    def bytes_of(self, path: Path | str) -> bytes:
        """The bytes of the file ``path``, refused as ``read`` refuses."""
        from ckp_lsp.core.format.text import read_all

        # os-level calls: a bank is thousands of small files, and each io.open costs more than its
        # read. O_NONBLOCK: a named pipe opens at once (and is refused below) instead of hanging.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not below(_opened(fd, path), self.real):
                raise Outside(
                    errno.EACCES,
                    f"it leads outside {self.root} (to {os.path.realpath(path)})",
                    os.fspath(path),
                )
            mode = os.fstat(fd).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder: the read says so
                raise Outside(errno.EINVAL, "not a regular file", os.fspath(path))
            return read_all(fd)
        finally:
            os.close(fd)


def _opened(fd: int, path: Path | str) -> str:
    """Where the file open as ``fd`` really is: what the system says of the descriptor (Linux),
    else ``path`` with its links followed."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)")
    except OSError:
        return os.path.realpath(path)


def read_inside(path: Path | str, root: Path | str) -> FileText:
    """The text of the file ``path``, read only when it lies inside ``root`` (see ``Folder.read``)."""
    return Folder(root).read(path)


def regular_inside(path: Path | str, root: Path | str) -> bool:
    """Whether ``path`` is a regular file (a link to one included) that lies inside ``root``: what
    may be read of a project or a bank (never ``/proc/self/environ`` through a link, nor a pipe)."""
    if not inside(path, root):
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def never_projects(path: Path) -> frozenset[Path]:
    """Folders never taken for the project (or the bank) of ``path``: its file system's root and
    the home folder, which hold everything of a user (a dotfiles repository makes ``~`` hold
    ``.git``)."""
    out = {Path(path.anchor)}
    with contextlib.suppress(RuntimeError, KeyError):  # no home folder known
        out.add(Path.home().resolve())
        out.add(Path(os.path.abspath(Path.home())))
    return frozenset(out)


#: how ``tempfile`` opens the file it tries a folder with
_TRIAL_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def temp_folder() -> str:
    """``tempfile.gettempdir()``, found as it finds it without importing ``tempfile`` (which
    imports shutil's archive modules and ``random``: a twentieth of a ``ckp route``): the first of
    ``TMPDIR``, ``TEMP``, ``TMP``, ``/tmp``, ``/var/tmp``, ``/usr/tmp`` and the working folder in
    which a file can be created and written. ``tempfile``'s own answer on Windows, or once it is
    imported (a process may have set ``tempfile.tempdir``)."""
    if os.name == "nt" or "tempfile" in sys.modules:
        import tempfile

        return tempfile.gettempdir()
    tried = [d for d in (os.getenv(n) for n in ("TMPDIR", "TEMP", "TMP")) if d]
    tried += ["/tmp", "/var/tmp", "/usr/tmp"]
    try:
        tried.append(os.getcwd())
    except OSError:
        tried.append(os.curdir)
    for folder in tried:
        if folder != os.curdir:
            folder = os.path.abspath(folder)
        for _ in range(100):
            name = os.path.join(folder, f"tmp{os.urandom(6).hex()}")
            try:
                fd = os.open(name, _TRIAL_FLAGS, 0o600)
                try:
                    try:
                        os.write(fd, b"blat")
                    finally:
                        os.close(fd)
                finally:
                    os.unlink(name)
                return os.fsdecode(folder)
            except FileExistsError:
                continue
            except OSError:
                break
    raise FileNotFoundError(errno.ENOENT, f"No usable temporary directory found in {tried}")


def project_root(path: Path, top: Path | None = None) -> Path | None:
    """The project ``path`` lies in, read from how it is spelled: the nearest folder at or above it
    that holds ``.git`` or ``.ckp.toml`` and is not itself a symbolic link, else ``top`` (the folder
    the command or server was started on) when ``path`` is spelled inside it; never ``/`` or the
    home folder."""
    path = Path(os.path.abspath(path))  # lexical: the links are what is being judged
    never = never_projects(path)
    for folder in (path, *path.parents):
        if folder in never:
            break
        if not _is_link(folder) and any(os.path.lexists(folder / m) for m in PROJECT_MARKERS):
            return folder
    if top is not None:
        top = Path(os.path.abspath(top))
        if top not in never and (top == path or top in path.parents):
            return top
    return None


def escape(path: Path, top: Path | None = None) -> str | None:
    """Why the folder ``path`` is refused as a bank or a project's folder: a symbolic link on its
    way leads outside the project that holds the link (see ``project_root``); None when none does.

    Every link on the way is judged, not only the last: ``clone/memory-bank -> ..`` makes
    ``clone/memory-bank/sibling`` a repository of its own, reached from ``clone`` all the same.
    """
    spelled = Path(os.path.abspath(path))
    for folder in reversed((spelled, *spelled.parents)):
        if not _is_link(folder):
            continue
        project = project_root(folder.parent, top)
        if project is not None and not inside(folder, project):
            return (
                f"{path} leads outside its project {project} through the symbolic link {folder} "
                f"(to {os.path.realpath(folder)}): refused, nothing there is read or written"
            )
    return None
