"""Whether a path belongs to a folder: the one rule every face applies before reading or writing.

A path belongs to a folder when, every symbolic link on the way followed (a dangling one to where
it points), it is the folder or lies below it. The bank's files, the project's README, a
``.ckp.toml``'s ``banks``, the cache and every write go through ``inside``; a bank folder named on
the command line, a workspace folder or the folder ``ckp mcp`` serves goes through ``escape``.
"""

from __future__ import annotations

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


def project_root(path: Path, top: Path | None = None) -> Path | None:
    """The project ``path`` lies in, read from how it is spelled: the nearest folder at or above it
    that holds ``.git`` or ``.ckp.toml`` and is not itself a symbolic link (a link named
    ``memory-bank`` that leads into another repository is no project of its own), else ``top``
    (the folder the command or server was started on) when ``path`` is spelled inside it."""
    path = Path(os.path.abspath(path))  # lexical: the links are what is being judged
    for folder in (path, *path.parents):
        if _is_link(folder):
            continue
        if any(os.path.lexists(folder / m) for m in PROJECT_MARKERS):
            return folder
    if top is not None:
        top = Path(os.path.abspath(top))
        if top == path or top in path.parents:
            return top
    return None


def escape(path: Path, top: Path | None = None) -> str | None:
    """Why the folder ``path`` is refused as a bank or a project's folder: a symbolic link on its
    way leads outside its project (see ``project_root``); None when it is not refused."""
    project = project_root(path, top)
    if project is None or inside(path, project):
        return None
    return (
        f"{path} leads outside its project {project} through a symbolic link "
        f"(to {os.path.realpath(path)}): refused, nothing there is read or written"
    )
