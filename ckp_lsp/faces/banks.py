"""The bank service every face uses: a bank loaded as the faces load it (its configuration, cache,
dates from git or the disk, the day from the clock, the collector kept out of the way while
millions of objects are made), its files read and written (the BOM kept, a write refused rather
than a change lost, the bank told), its index written, and ``compile --all`` offline.

The bank itself does no I/O of its own here: this module says what is on disk, then tells it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.cache import FileCache
from ckp_lsp.core.bank.reading import read_file as read_knowledge
from ckp_lsp.core.bank.reading import read_index
from ckp_lsp.core.bank.updated import UpdatedDates
from ckp_lsp.core.edit.writes import WriteRefused, refusal, write_atomic
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.project.config import Config, config_for_bank
from ckp_lsp.core.project.discovery import INDEX_NAME, knowledge_files, skip_reason

from .clock import today as clock_today
from .collector import paused_collection
from .updated import DISK

if TYPE_CHECKING:  # the compiler is imported when a bank is compiled, not when one is read
    from ckp_lsp.core.compile.compile_all import Outcome
    from ckp_lsp.core.compile.offline.bank import Progress


def load_bank(
    root: Path,
    config: Config | None = None,
    cache: FileCache | None = None,
    dates: UpdatedDates | None = None,
    today: CkpDate | None = None,
) -> Bank:
    """The bank at ``root`` read from disk, the one place a bank is read: with a ``cache``,
    unchanged files are taken from it (and the cache is saved with what was read); ``dates`` serves
    the git and mtime staleness sources (in git mode the commit dates are read here too: a check
    never asks for them), ``today`` is the day (see ``Bank``)."""
    bank = Bank(root, config, dates, today)
    disk = bank.disk
    rels = knowledge_files(root, bank.config.exclude, bank.unreadable)
    if cache is None:
        for rel in rels:
            bank.take_read(read_knowledge(disk, rel))
    else:
        for rel in rels:
            try:
                st = os.stat(disk.base + rel)
            except OSError:
                bank.take_read(read_knowledge(disk, rel))  # says why it cannot be read
                continue
            kept = cache.get(rel, st)
            if kept is not None:
                bank.take_read(kept)
                continue
            got = read_knowledge(disk, rel)
            if not isinstance(got, tuple):
                cache.put(rel, st, got)
            bank.take_read(got)
    bank.index_text, why = read_index(disk)
    if why is not None:
        bank.unreadable[INDEX_NAME] = why
    else:
        bank.unreadable.pop(INDEX_NAME, None)
    if cache is not None:
        cache.save()
    read_dates(bank)
    return bank


def read_bank(
    root: Path, config: Config | None = None, cache: FileCache | None = None, today: CkpDate | None = None
) -> Bank:
    """The bank at ``root`` (its own ``.ckp.toml`` unless ``config`` is given), through ``cache``,
    dated by the disk (or git) on ``today`` (the clock's day unless given)."""
    with paused_collection():
        return load_bank(
            root,
            config if config is not None else config_for_bank(root),
            cache,
            DISK,
            today if today is not None else clock_today(),
        )


def loader(today: CkpDate) -> Callable[[Path, Config, FileCache | None], Bank]:
    """``read_bank`` on the day ``today``, as ``core.project.workspace`` asks a face to load a bank."""
    return lambda root, config, cache: read_bank(root, config, cache, today)


def read_headers(root: Path, config: Config, cache: FileCache | None = None) -> Bank:
    """The bank at ``root`` as routing reads it (``core.routing.route_table``, the hook's summary):
    its files and index through ``cache``, undated and on no day (routing asks neither, and git is
    not run for it)."""
    with paused_collection():
        return load_bank(root, config, cache)


def read_file(bank: Bank, rel: str) -> tuple[str, bool]:
    """The text of the bank's file ``rel`` (without its BOM), and whether it starts with one
    (``OSError`` when it cannot be read; never a file outside the bank)."""
    text, _, bom = bank.disk.read(bank.root / rel)
    return text, bom


def read_dates(bank: Bank) -> None:
    """Git mode: the bank's commit dates read from its dates source, now (git runs: the language
    server reads them again on a worker thread and hands them to ``Bank.take_dates`` instead)."""
    if bank.config.staleness == "git":
        bank.take_dates(bank.dates.committed(bank.root) if bank.dates is not None else None)


@dataclass(frozen=True)
class OnDisk:
    """A bank's file as the disk has it now: its text, or None when it is gone or not read (``why``)."""

    text: str | None
    utf8: bool = True
    why: str | None = None


def on_disk(bank: Bank, rel: str) -> OnDisk:
    """The bank's file ``rel`` as it is on disk now, for a face applying a change made there: its
    text, or why it is not read (a link out of the bank, not a regular file, an error), or gone."""
    path = bank.root / rel
    why = skip_reason(path, bank.root)
    if why is not None:
        return OnDisk(None, why=why)
    try:
        text, utf8, _ = bank.disk.read(path)
    except FileNotFoundError:
        return OnDisk(None)
    except OSError as exc:
        return OnDisk(None, why=f"cannot be read: {exc.strerror or exc}")
    return OnDisk(text, utf8)


def take_from_disk(bank: Bank, rel: str) -> tuple[set[str] | None, OnDisk]:
    """Bring the bank's file ``rel`` (or its ``_index.md``) to what the disk holds now, for a face
    told of a change made there (the server's watchers and poller, ``ckp mcp``'s scans): its text
    taken, or the file forgotten when it is gone or not read (the bank then says why). The files
    whose findings may have changed (None: the index changed), and what the disk held."""
    now = on_disk(bank, rel)
    if now.why is None:
        bank.unreadable.pop(rel, None)
    if rel == INDEX_NAME:
        bank.index_text = now.text
        affected = None
    elif now.text is None:
        affected = bank.remove_file(rel)
    else:
        affected = bank.set_file(rel, now.text, now.utf8, on_disk=True)
    if now.why is not None:
        bank.unreadable[rel] = now.why  # like a deleted file (its old text must not linger), and why
    return affected, now


@dataclass(frozen=True)
class Written:
    """What became of one write: done, or refused with the reason (nothing was changed then)."""

    rel: str
    text: str
    refused: str = ""

    @property
    def ok(self) -> bool:
        return not self.refused


def write_file(
    bank: Bank, rel: str, new: str, *, expected: str | None, bom: bool = False, take: bool = True
) -> Written:
    """Write ``new`` as the bank's file ``rel`` (``expected``: the text read before, None for a new
    file), atomically, its BOM kept, never outside the bank and never over a change made on disk
    meanwhile; the bank takes the new text unless ``take`` is false (others read it meanwhile)."""
    try:
        write_atomic(
            bank.root / rel, new, expected=expected, bom=bom, new_file=expected is None, within=bank.root
        )
    except WriteRefused as exc:
        return Written(rel, new, str(exc))
    if take:
        bank.set_file(rel, new, on_disk=True)
    return Written(rel, new)


def write_index(bank: Bank, new: str | None = None) -> Written | None:
    """Bring the bank's ``_index.md`` up to date (to ``new`` when given); None when it is already."""
    new = new if new is not None else update_index_text(bank.index_text, bank)
    if new == bank.index_text:
        return None
    try:
        write_atomic(
            bank.index_path, new, expected=bank.index_text, new_file=bank.index_text is None, within=bank.root
        )
    except WriteRefused as exc:
        return Written(INDEX_NAME, new, str(exc))
    bank.index_text = new
    return Written(INDEX_NAME, new)


@dataclass
class Compiled:
    """What ``compile_offline`` did: each file's outcome (in path order), the files it could not
    read, and the changed files whose write was refused (by path, with the reason)."""

    outcomes: list[Outcome]
    unread: list[tuple[str, str]]  # (file, why)
    refused: dict[str, str]
    unwritable: dict[str, str]  # refused before compiling: the reason names the file
    dry_run: bool = False

    @property
    def written(self) -> list[str]:
        """The files whose new header was written."""
        if self.dry_run:
            return []
        return [o.rel for o in self.outcomes if o.changed and not o.error and o.rel not in self.refused]

    @property
    def failed(self) -> list[tuple[str, str]]:
        """(file, why) of every file that did not get its header."""
        return [
            *self.unread,
            *((o.rel, o.error) for o in self.outcomes if o.error),
            *self.refused.items(),
        ]


def compilable(bank: Bank) -> list[str]:
    """The files ``compile --all`` compiles: every knowledge file but a template to copy (no header,
    no finding, full of placeholders)."""
    return [
        rel
        for rel, kf in sorted(bank.files.items())
        if kf.concept or kf.local or (kf.header and kf.header.fields)
    ]


def compile_offline(
    bank: Bank,
    rels: Iterable[str] | None = None,
    *,
    force: bool = False,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> Compiled:
    """``compile --all`` offline, as ``ckp compile --all`` and ``ckp init`` run it: the files
    ``rels`` (default: ``compilable``) compiled in one phased run over the whole bank (bodies
    untouched, VALIDATED this month), then each changed header written unless ``dry_run``."""
    from ckp_lsp.core.compile.compile_all import compile_all

    texts: dict[str, str] = {}
    boms: dict[str, bool] = {}
    unread: list[tuple[str, str]] = []
    for rel in rels if rels is not None else compilable(bank):
        try:
            texts[rel], boms[rel] = read_file(bank, rel)
        except OSError as exc:
            unread.append((rel, str(exc)))
    unwritable = {rel: why for rel in texts if (why := refusal(bank.root / rel, bank.root))}
    outcomes = compile_all(
        bank, texts, bank.this_month(), force=force, progress=progress, unwritable=unwritable
    )
    refused: dict[str, str] = {}
    for out in outcomes:
        if dry_run or out.error or not out.changed:
            continue
        done = write_file(bank, out.rel, out.new, expected=out.old, bom=boms[out.rel])
        if not done.ok:
            refused[out.rel] = done.refused
    return Compiled(outcomes, unread, refused, unwritable, dry_run)
