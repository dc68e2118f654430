"""Whether a path belongs to a folder: the one rule every face applies before reading or writing.

A path belongs to a folder when, every symbolic link on the way followed (a dangling one to where
it points), it is the folder or lies below it. The bank's files, the project's README, a
``.ckp.toml``'s ``banks``, the cache and every write go through ``inside``; a bank folder named on
the command line, a workspace folder or the folder ``ckp mcp`` serves goes through ``escape``.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

#: what makes a folder a project's root (see ``project_root``)
PROJECT_MARKERS = (".git", ".ckp.toml")


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether ``path``, every symbolic link followed, is ``root`` or lies below it (``root``'s
    links followed too)."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


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
