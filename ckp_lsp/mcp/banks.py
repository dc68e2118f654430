"""The banks an MCP server serves: read once, kept current by file stats, and the only way to a file.

The server is long-lived and an agent routes many questions, so each bank stays loaded and is
brought up to date before every call by re-reading only the files that changed. Two checks find
them: before each call, the modification time of each folder of the bank (a file created,
deleted or replaced by rename — how ckp, agents and most editors save — changes its folder at
once); and a thread that stats every file once a second (a file rewritten in place: the faces'
``faces.poller``). The thread only lists paths; the files are read, and the bank changed, by the
call that holds the lock.
"""

from __future__ import annotations

import gc
import itertools
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.stat_scan import Stats, stat_tree
from ckp_lsp.core.project.discovery import (
    INDEX_NAME,
    SKIP_DIRS,
    bank_of,
    can_show_name,
    find_banks,
    is_knowledge_path,
    skip_reason,
)
from ckp_lsp.core.project.within import Folder, Outside, escape, regular_inside

from ..core.routing.ranked import RankedRouter
from ..faces.banks import read_bank, read_dates, read_file, take_from_disk
from ..faces.clock import today
from ..faces.collector import paused_collection
from ..faces.poller import Changes, Poller

#: seconds between two stat scans of every file
POLL_INTERVAL = 1.0


class Refusal(Exception):
    """A call that cannot be done: the message says why and what to do instead."""


def _in_bank(name: str) -> bool:
    """A folder the bank's walk enters (hidden and skipped ones are not)."""
    return name not in SKIP_DIRS and not name.startswith(".")


def _is_markdown(name: str) -> bool:
    return name.endswith(".md")


def scan(root: Path, polite: bool = False) -> tuple[Stats, dict[str, int]]:
    """Stats of every ``*.md`` below ``root`` and the mtime of every folder, as the bank's walk
    sees them (hidden and skipped folders, and symlinked folders, are not entered)."""
    folders: dict[str, int] = {}
    files = stat_tree(str(root), _in_bank, _is_markdown, folders, polite)
    return files, folders


@dataclass
class ServedBank:
    """One bank: its name for the agent, the loaded bank, and what was on disk when it was read."""

    name: str
    bank: Bank
    stats: Stats = field(default_factory=dict)
    folders: dict[str, int] = field(default_factory=dict)
    _router: RankedRouter | None = None
    _router_of: tuple[int, int] = (-1, 0)

    @property
    def root(self) -> Path:
        return self.bank.root

    def router(self) -> RankedRouter:
        """The routing table of the bank as it is now, built again only after a change."""
        key = (self.bank.revision, id(self.bank.index_text))
        if self._router is None or key != self._router_of:
            from ..core.routing.snapshot import ranked_router

            with paused_collection():
                self._router, self._router_of = ranked_router(self.root, bank=self.bank), key
            # The router lives until the bank changes and holds no cycles: out of the collector's
            # sight, a full collection during a later call no longer walks its postings (a call's
            # p99 was such a pause).
            gc.freeze()
        return self._router

    def changed_folders(self) -> set[str]:
        """The files of the folders whose modification time moved since they were last listed."""
        changed: set[str] = set()
        root = os.path.join(self.root, "")
        for folder, mtime in list(self.folders.items()):
            try:
                now = os.stat(folder).st_mtime_ns
            except OSError:
                now = -1
            if now == mtime:
                continue
            prefix = (
                "" if folder == str(self.root) else os.path.relpath(folder, root).replace(os.sep, "/") + "/"
            )
            if now < 0:  # gone: everything known below it
                del self.folders[folder]
                changed.update(p for p in self.stats if p.startswith(prefix))
                continue
            self.folders[folder] = now
            # The files known in the folder itself, what it holds now, and any new folder in full.
            changed.update(p for p in self.stats if p.startswith(prefix) and "/" not in p[len(prefix) :])
            try:
                entries = Folder(self.root).entries(folder)
            except OSError:
                continue
            for e in entries:
                if not can_show_name(e.name):
                    continue  # never read: the bank skips it (and says so)
                if e.name.endswith(".md") and not e.is_dir(follow_symlinks=False):
                    changed.add(prefix + e.name)
                elif (
                    e.is_dir(follow_symlinks=False)
                    and e.path not in self.folders
                    and e.name not in SKIP_DIRS
                    and not e.name.startswith(".")
                ):
                    files, folders = scan(Path(e.path))
                    changed.update(prefix + e.name + "/" + p for p in files)
                    self.folders.update(folders)
        return changed

    def apply(self, paths: Iterable[str]) -> None:
        """Read again each of ``paths`` whose stats moved; forget those that are gone."""
        moved = False
        for rel in paths:
            path = self.root / rel
            try:
                st = path.stat()
                now: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
            except OSError:
                now = None
            if now is not None and now == self.stats.get(rel):
                continue
            moved = True
            if now is None:
                self.stats.pop(rel, None)
            else:
                self.stats[rel] = now
            if rel == INDEX_NAME or is_knowledge_path(rel, self.bank.config.exclude):
                take_from_disk(self.bank, rel)
        if moved:
            read_dates(self.bank)  # git mode: what git reports moves with the disk (a call's thread)

    def wrote(self, rel: str) -> None:
        """Take a file the server itself has just written (the bank service gave the bank its text)."""
        if rel != INDEX_NAME:
            read_dates(self.bank)
        try:
            st = (self.root / rel).stat()
            self.stats[rel] = (st.st_mtime_ns, st.st_size)
        except OSError:
            self.stats.pop(rel, None)


class ServedBanks:
    """Every bank under a folder, as one owner: a call takes ``lock`` and then ``current()``."""

    def __init__(self, folder: Path, poll_interval: float | None = None) -> None:
        # A folder reached through a link out of its project serves nothing (``ckp mcp`` says so).
        self.refused = escape(folder, Path.cwd())
        self.folder = folder.resolve()
        self.lock = threading.RLock()
        self.banks: list[ServedBank] = []
        self._pending: dict[Path, set[str]] = {}
        self._pending_lock = threading.Lock()
        self._interval = POLL_INTERVAL if poll_interval is None else poll_interval
        self._poller: Poller[tuple[Path, str]] = Poller(
            self._scan, self._moved, self._interval, "ckp-mcp-poller"
        )
        self._discover()

    def _discover(self) -> None:
        if self.refused is not None:
            return
        inside = bank_of(self.folder) if self.folder.exists() else None
        roots = [inside] if inside is not None else find_banks([self.folder])
        for root in roots:
            if any(b.root == root for b in self.banks):
                continue
            files, folders = scan(root)
            bank = read_bank(root)
            known = {p: s for p, s in files.items() if p in bank.files or p == INDEX_NAME}
            self.banks.append(ServedBank(self._name(root), bank, known, folders))
            self._poller.take({(root, p): s for p, s in files.items()})

    def _name(self, root: Path) -> str:
        """How the agent names a bank: its path below the served folder (its folder name when it
        is the served folder or holds it)."""
        if root != self.folder and root.is_relative_to(self.folder):
            return root.relative_to(self.folder).as_posix()
        return root.name

    # --- keeping current -----------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread that notices files rewritten in place."""
        if self._interval > 0:
            self._poller.start()

    def stop(self) -> None:
        self._poller.stop()

    def poll_once(self) -> None:
        """One stat scan of every bank: the paths whose stats moved wait for the next call."""
        self._poller.poll_once()

    def _scan(self) -> dict[tuple[Path, str], tuple[int, int]]:
        """The stats of every bank's files, by bank and path (a background scan: polite)."""
        return {(sb.root, p): s for sb in list(self.banks) for p, s in scan(sb.root, polite=True)[0].items()}

    def _moved(self, changes: Changes[tuple[Path, str]]) -> None:
        with self._pending_lock:
            for root, rel in itertools.chain(*changes):
                self._pending.setdefault(root, set()).add(rel)

    def current(self) -> list[ServedBank]:
        """The banks, brought up to date with the disk and the day (call with ``lock`` held)."""
        if not self.banks:
            self._discover()
        with self._pending_lock:
            pending, self._pending = self._pending, {}
        day = today()
        for sb in self.banks:
            sb.bank.today = day  # a server that runs past midnight checks against the new day
            changed = sb.changed_folders() | pending.get(sb.root, set())
            if changed:
                sb.apply(sorted(changed))
        return self.banks

    # --- finding what a call names ---------------------------------------------------------------

    def bank(self, name: str | None) -> ServedBank:
        """The bank a call names (by its name or its path), or the only one."""
        banks = self.current()
        if not banks:
            raise Refusal(f"no memory bank under {self.folder}: create one with `ckp init`")
        if name is None or not name.strip():
            if len(banks) == 1:
                return banks[0]
            raise Refusal(f"this server serves {len(banks)} banks: name one of {self._names()} as 'bank'")
        for sb in banks:
            if name in (sb.name, sb.root.name):
                return sb
        if "\0" not in name:
            p = Path(name)
            p = p if p.is_absolute() else self.folder / p
            for sb in banks:
                if os.path.normpath(p) == str(sb.root):
                    return sb
        raise Refusal(f"no bank '{name}': this server serves {self._names()}")

    def _names(self) -> str:
        return ", ".join(repr(sb.name) for sb in self.banks)

    def in_scope(self, name: str | None) -> list[ServedBank]:
        return [self.bank(name)] if name is not None and name.strip() else self.current()

    def concept(self, concept: str, bank: str | None = None) -> tuple[ServedBank, str]:
        """The bank and file of a concept."""
        found = [(sb, kf.path) for sb in self.in_scope(bank) if (kf := sb.bank.file_of(concept.strip()))]
        if len(found) == 1:
            return found[0]
        if found:
            names = ", ".join(repr(sb.name) for sb, _ in found)
            raise Refusal(f"concept '{concept}' is declared in several banks ({names}): name one as 'bank'")
        guesses = [g for sb in self.in_scope(bank) if (g := sb.bank.suggest(concept.strip()))]
        hint = (
            f": did you mean '{guesses[0]}'?"
            if guesses
            else ": ckp_route lists the concepts a question needs"
        )
        raise Refusal(f"no concept '{concept}' in {self._scope(bank)}{hint}")

    def _scope(self, bank: str | None) -> str:
        return f"bank '{bank}'" if bank else "the banks served"

    def file(self, file: str, bank: str | None = None, index: bool = False) -> tuple[ServedBank, str]:
        """The bank and bank-relative path of a knowledge file (``_index.md`` too when ``index``).

        ``file`` is relative to its bank or to the served folder, or absolute; whatever it is,
        it must name a knowledge file of a bank: ``..``, a path outside every bank, or a
        symbolic link that leads out of its bank is refused, and nothing is opened.
        """
        if not file.strip() or "\0" in file:
            raise Refusal("'file' is empty: give a path relative to the bank, such as 'auth/jwt.md'")
        given = Path(file)
        if ".." in PurePosixPath(file.replace("\\", "/")).parts:
            raise Refusal(
                f"'{file}' leads outside the bank ('..'): give a path inside it, relative to the bank"
            )
        banks = self.in_scope(bank)
        if given.is_absolute():
            # The banks' roots are resolved: so is the folder of a path given through a link (/tmp).
            candidates = [given, Path(os.path.realpath(given.parent)) / given.name]
        else:
            candidates = [sb.root / given for sb in banks] + [self.folder / given]
        for path in candidates:
            for sb in banks:
                if not path.is_relative_to(sb.root):
                    continue
                rel = path.relative_to(sb.root).as_posix()
                if not os.path.lexists(path):
                    continue
                if not regular_inside(path, sb.root):
                    raise Refusal(f"'{file}' is a symbolic link that leads outside the bank: it is not read")
                if rel in sb.bank.files or (index and rel == INDEX_NAME and sb.bank.index_text is not None):
                    return sb, rel
        if given.is_absolute() and not any(c.is_relative_to(sb.root) for c in candidates for sb in banks):
            raise Refusal(
                f"'{file}' is outside the memory bank ({self._names()}): nothing outside a bank is read"
            )
        raise Refusal(
            f"no knowledge file '{file}' in {self._scope(bank)}: ckp_route lists the files a question needs"
        )

    def read(self, sb: ServedBank, rel: str) -> str:
        """The text of a file of ``sb`` (checked again: it may have become a link since)."""
        return self.read_with_bom(sb, rel)[0]

    def read_with_bom(self, sb: ServedBank, rel: str) -> tuple[str, bool]:
        """The text of a file of ``sb`` and whether it began with a BOM (checked again: it may have
        become a link since)."""
        path = sb.root / rel
        why = skip_reason(path, sb.root)
        if why is not None:
            raise Refusal(f"'{rel}' is not read: {why}")
        try:
            text, bom = read_file(sb.bank, rel)
        except Outside:
            raise Refusal(f"'{rel}' is not read: it leads outside the bank") from None
        except OSError as exc:
            raise Refusal(f"'{rel}' cannot be read: {exc.strerror or exc}") from None
        return text, bom
