"""Stats of the files below a folder, for the faces that notice changes on disk by polling."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from ckp_lsp.core.project.discovery import MAX_DEPTH, can_show_name
from ckp_lsp.core.project.within import Folder

#: path -> (mtime_ns, size): two scans differ where a file was created, changed or deleted
Stats = dict[str, tuple[int, int]]

_POLITE_EVERY = 32


def stat_tree(
    root: str,
    enter: Callable[[str], bool],
    keep: Callable[[str], bool],
    folders: dict[str, int] | None = None,
    polite: bool = False,
) -> Stats:
    """Stats of every file below ``root`` whose name ``keep`` accepts, by its path relative to
    ``root`` written with ``/``; only folders whose name ``enter`` accepts are entered, never a
    symlinked one. ``folders``, when given, receives the mtime of every folder read (a file
    created, deleted or renamed changes its folder's).

    ``polite`` (a background scan) lets other threads run every few dozen files, so that a call
    arriving meanwhile does not wait for the whole scan of a large tree.
    """
    disk = Folder(root)
    files: Stats = {}
    stack = [(root, "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            if folders is not None:
                folders[folder] = os.stat(folder).st_mtime_ns
            entries = disk.entries(folder)
        except OSError:
            continue
        for e in entries:
            try:
                if not can_show_name(e.name):
                    continue  # never read: the bank skips it (and says so)
                if e.is_dir(follow_symlinks=False):
                    if enter(e.name) and depth < MAX_DEPTH:  # deeper: the bank skips it (and says so)
                        stack.append((e.path, prefix + e.name + "/", depth + 1))
                elif keep(e.name):
                    st = e.stat()
                    files[prefix + e.name] = (st.st_mtime_ns, st.st_size)
                    if polite and len(files) % _POLITE_EVERY == 0:
                        time.sleep(0)  # gives the GIL away
            except OSError:
                continue
    return files
