"""Whether a path belongs to a folder: the one rule every face applies before reading or writing.

A path belongs to a folder when, every symbolic link on the way followed (a dangling one to where
it points) and every ``..`` taken, it is the folder or lies below it, compared as the system
compares names (``os.path.normcase``: without case on Windows). ``below`` is that rule, and
everything else asks it: ``inside`` for a path, ``spelled_inside`` for a relative path a setting
writes; ``Folder`` for every file opened of a bank or a project (``read``, ``bytes_of``, ``head``:
the file a reader actually opened is judged, a pipe is refused), for every folder listed
(``entries``, ``walk``) and for why a file is left out of a bank (``why_not_read``);
``config_text`` for a ``.ckp.toml``; ``core.edit.writes`` for every write and removal;
``core.bank.cache`` for where a cache may be kept and the ``.ckp-cache`` it opens; and ``escape``
for a bank folder named on the command line, a workspace folder or the folder ``ckp mcp`` serves.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import sys
from collections.abc import Iterator
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

    def refuse_outside(self, fd: int, path: Path | str) -> None:
        """``Outside`` when the file or folder open as ``fd`` (opened as ``path``) really lies
        outside the folder: how every opening here, and the cache's, is judged."""
        if not below(_opened(fd, path), self.real):
            raise Outside(
                errno.EACCES,
                f"it leads outside {self.root} (to {os.path.realpath(path)})",
                os.fspath(path),
            )

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

        fd = self._open(path)
        try:
            return read_all(fd)
        finally:
            os.close(fd)

    def head(self, path: Path | str, size: int) -> bytes:
        """The first ``size`` bytes of the file ``path`` (all of a shorter one), refused as ``read``
        refuses: what a glance at a file (is it CKP's ``_index.md``, a rules file) reads."""
        fd = self._open(path)
        try:
            return os.read(fd, size)
        finally:
            os.close(fd)

    def _open(self, path: Path | str) -> int:
        """A descriptor of the file ``path``, opened only to be judged: ``Outside`` (and closed)
        when the opened file lies outside the folder or is a pipe or a device."""
        # os-level calls: a bank is thousands of small files, and each io.open costs more than its
        # read. O_NONBLOCK: a named pipe opens at once (and is refused below) instead of hanging.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self.refuse_outside(fd, path)
            mode = os.fstat(fd).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder: the read says so
                raise Outside(errno.EINVAL, "not a regular file", os.fspath(path))
        except BaseException:
            os.close(fd)
            raise
        return fd

    def entries(self, path: Path | str) -> list[os.DirEntry[str]]:
        """The entries of the folder ``path`` (a link among them is listed, not followed: each
        reader judges what it opens); ``Outside`` when the folder itself lies outside, ``OSError``
        when it cannot be listed. The one lister of a bank's or a project's folders."""
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK)
        try:
            self.refuse_outside(fd, path)
        finally:
            os.close(fd)
        with os.scandir(path) as listing:
            return list(listing)

    def walk(self) -> Iterator[tuple[str, list[str], list[str]]]:
        """(folder, the names of its folders, of its other entries) for the root and every folder
        below it, top down as ``os.walk`` gives them: each listed by ``entries``, a link to a
        folder named among the folders but never entered; the caller may prune the folders."""
        stack = [os.fspath(self.root)]
        while stack:
            top = stack.pop()
            try:
                entries = self.entries(top)
            except OSError:
                continue
            dirs: list[str] = []
            files: list[str] = []
            links: set[str] = set()
            for e in entries:
                try:
                    is_dir = e.is_dir()
                except OSError:
                    is_dir = False
                (dirs if is_dir else files).append(e.name)
                if is_dir and e.is_symlink():
                    links.add(e.name)
            yield top, dirs, files
            stack.extend(os.path.join(top, d) for d in reversed(dirs) if d not in links)

    def why_not_read(self, path: Path) -> str | None:
        """Why the file ``path`` is not read as one of the folder's, in words, or None when it is:
        only regular files are read (a named pipe would block a reader forever), and a symbolic
        link only when it resolves to a file inside the folder. A file that is gone is None (the
        reader finds out)."""
        try:
            st = path.lstat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"cannot be read: {exc.strerror or exc}"
        if stat.S_ISLNK(st.st_mode):
            try:
                target = path.resolve(strict=True)
            except FileNotFoundError:
                return "a symbolic link to a file that does not exist"
            except RuntimeError:  # Python < 3.13 reports a loop this way
                return "a symbolic link loop"
            except OSError as exc:
                return (
                    "a symbolic link loop"
                    if exc.errno == errno.ELOOP
                    else f"cannot be read: {exc.strerror or exc}"
                )
            if not below(os.fspath(target), self.real):
                return "a symbolic link that leads outside the bank"
            try:
                st = target.stat()
            except OSError as exc:
                return f"cannot be read: {exc.strerror or exc}"
        if stat.S_ISREG(st.st_mode):
            return None
        if stat.S_ISDIR(st.st_mode):
            return "a folder, not a file"
        if stat.S_ISFIFO(st.st_mode):
            return "a named pipe, not a file"
        return "not a regular file"


def _opened(fd: int, path: Path | str) -> str:
    """Where the file open as ``fd`` really is: what the system says of the descriptor (Linux),
    else ``path`` with its links followed."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)")
    except OSError:
        return os.path.realpath(path)


def spelled_inside(rel: str) -> bool:
    """Whether ``rel``, a path written relative to a folder (``/`` or ``\\`` between its parts),
    stays inside it by its spelling alone: not absolute (``/``, ``\\``, ``~``, a drive ``C:``), no
    ``..`` part. What a setting or a bank-relative name must be before any link is looked at."""
    return not (
        rel.startswith(("/", "\\", "~")) or (len(rel) > 1 and rel[1] == ":") or climbs(rel.replace("\\", "/"))
    )


def climbs(rel: str) -> bool:
    """Whether the relative POSIX path ``rel`` has a ``..`` part: it may lead out of its folder
    whatever the folder holds (a bank-relative name, ``spelled_inside``'s last test)."""
    return ".." in rel.split("/")


def listing(folder: Path | str) -> list[os.DirEntry[str]]:
    """The entries of ``folder``, a folder listed as itself: its own files are what is listed,
    wherever it is, so there is nothing to judge (``Folder.entries`` judges a folder against the
    bank or project it lies in; each reader judges what it opens)."""
    with os.scandir(folder) as found:
        return list(found)


def config_text(path: Path | str, root: Path | str | None) -> str:
    """The UTF-8 text of a configuration file (``.ckp.toml``), read only when it lies inside
    ``root`` (as ``Folder.read`` judges it); ``root`` None: the user's own file
    (``~/.config/ckp/config.toml``), read where it leads, a link into their dotfiles included.
    ``UnicodeDecodeError`` when it is not UTF-8."""
    if root is None:
        return Path(path).read_text(encoding="utf-8")
    return Folder(root).bytes_of(path).decode("utf-8")


def repository_of(folder: Path) -> Path:
    """The folder a ``.ckp.toml`` of ``folder`` is read inside: its repository (the nearest folder
    at or above it holding ``.git``), else ``folder`` itself. A link to the repository's shared file
    is read, one leading out of it is not."""
    return next((f for f in (folder, *folder.parents) if (f / ".git").exists()), folder)


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
    imported (a process may have set ``tempfile.tempdir``). Found once, as ``tempfile`` keeps its
    answer: every bank looked for asks it."""
    if os.name == "nt" or "tempfile" in sys.modules:
        import tempfile

        return tempfile.gettempdir()
    return _found_temp_folder()


@functools.cache
def _found_temp_folder() -> str:
    """The first folder of ``temp_folder``'s list in which a file can be created and written."""
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
