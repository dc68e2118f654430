"""What reading a bank's files gave, kept on disk so that the next reading skips unchanged files.

One file per bank, in a folder users may delete: ``.ckp-cache/`` at the bank's root (its own
``.gitignore`` says ``*``, so git ignores it), or ``$CKP_CACHE_DIR`` when set. An entry is a
file's path, size and modification time (ns) with the fields the fast scan read from its header
(``brief.brief``); a file the full parser read (one with findings of its own) is read again
each time. The whole is keyed by the tool's version, Python's and the parsing code's: a cache
written by anything else, or that cannot be read, is ignored and written anew, never a crash.

A cache answers only for the bank it was written for (its absolute path, device and inode are
in it) and only when this user wrote it and no one else may write it: in a shared
``CKP_CACHE_DIR`` another user's file is ignored. The folder at the bank's root is read and
written only as a real folder, and the file only as a regular file, never through a symbolic
link (a repository may commit ``.ckp-cache -> /elsewhere``): ``O_NOFOLLOW`` and ``dir_fd``.

``marshal`` holds plain values only (loading never runs code, unlike ``pickle``) and is the
quickest of the standard formats to read: 10,000 entries in about 50 ms. The sizes and mtimes
come first, apart from the fields: a check of a bank where nothing changed reads only them and the
last findings (the fields of 100,000 files are hundreds of megabytes once read).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ckp_lsp import __version__
from ckp_lsp.core.project.within import Folder, inside

if TYPE_CHECKING:
    from ckp_lsp.core.format.brief import Brief
    from ckp_lsp.core.format.knowledge import KnowledgeFile

#: the folder at a bank's root
FOLDER = ".ckp-cache"
#: bump when what an entry holds changes
FORMAT = 3
_MAGIC = "ckp-cache"
_FILE = "bank.marshal"
#: entries written at a time
_PART = 1000
_STAMP: list[tuple[Any, ...]] = []
#: an entry kept as it was, whose fields are read from the old cache only when it is written
_KEPT: Any = object()
#: the types of a ``brief``'s fields: an entry of any other shape is not used
_BRIEF_TYPES = (str, int, str, str, str, str, list, list, str, tuple)


def _stamp() -> tuple[Any, ...]:
    """The tool's version, Python's, and every module of the core, in all its packages (size and
    mtime: a checkout whose reader, checks or any code they use was edited does not trust what
    the code before it wrote)."""
    if not _STAMP:
        core = os.path.dirname(os.path.dirname(__file__))
        stamp: list[Any] = [_MAGIC, FORMAT, __version__, tuple(sys.version_info[:2])]
        try:
            for folder, dirs, files in os.walk(core):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(".py"):
                        st = os.stat(os.path.join(folder, name))
                        stamp.append(
                            (os.path.relpath(os.path.join(folder, name), core), st.st_size, st.st_mtime_ns)
                        )
        except OSError:
            pass
        _STAMP.append(tuple(stamp))
    return _STAMP[0]


def _blake2b(*args: Any, **kwargs: Any) -> Any:
    """``hashlib.blake2b``, imported when first needed: importing hashlib starts OpenSSL, which a
    process answering from the routing snapshot never needs."""
    import hashlib

    return hashlib.blake2b(*args, **kwargs)


def _digest(f: Any, size: int) -> bytes:
    """The digest of the first ``size`` bytes of ``f``, read a megabyte at a time."""
    h = _blake2b(digest_size=16)
    f.seek(0)
    while size > 0:
        chunk = f.read(min(size, 1 << 20))
        if not chunk:
            break
        h.update(chunk)
        size -= len(chunk)
    return h.digest()


def cache_disabled() -> bool:
    """Whether the environment turns the cache off (``CKP_NO_CACHE=1``)."""
    return os.environ.get("CKP_NO_CACHE", "") not in ("", "0")


def may_write(path: Path, within: list[Path] | None) -> bool:
    """Whether a cache file (the bank's cache, the route snapshot, the kept analysis) may be
    written at ``path``: inside one of the folders ``within`` (None: anywhere), or anywhere
    ``$CKP_CACHE_DIR`` says."""
    return within is None or bool(os.environ.get("CKP_CACHE_DIR")) or any(inside(path, w) for w in within)


def cache_path(root: Path) -> Path:
    """Where the cache of the bank at ``root`` is kept."""
    folder = os.environ.get("CKP_CACHE_DIR")
    if folder:
        digest = _blake2b(str(root).encode("utf-8", "surrogateescape"), digest_size=10)
        return Path(folder).expanduser() / f"{digest.hexdigest()}.marshal"
    return root / FOLDER / _FILE


class Place(NamedTuple):
    """Where one of a bank's cache files is kept, and how it may be used."""

    path: Path
    in_bank: bool  # in the bank's own ``.ckp-cache``: never reached through a link
    writable: bool  # ``may_write``


def cache_place(root: Path, within: list[Path] | None, name: str = _FILE) -> Place:
    """The place of the bank's cache file ``name`` (``bank.marshal``; ``route.marshal``, the route
    snapshot beside it): the one rule of where each of them is read and written."""
    base = cache_path(root)
    path = base if name == _FILE else base.with_name(name if base.name == _FILE else f"{base.stem}-{name}")
    return Place(path, base.parent == root / FOLDER, may_write(path, within))


def _me() -> int:
    """The user whose caches are trusted."""
    return os.geteuid() if hasattr(os, "geteuid") else -1


def _trusted(st: os.stat_result) -> bool:
    """Whether a cache file may be believed: a regular file of this user that no one else may write."""
    if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022:
        return False
    return _me() == -1 or st.st_uid == _me()


def bank_identity(root: Path | None) -> tuple[str, int, int] | None:
    """What binds a cache to its bank: the root's absolute path, device and inode (a bank made
    anew at the same path is another bank)."""
    if root is None:
        return None
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (os.fsdecode(os.path.abspath(root)), st.st_dev, st.st_ino)


class FileCache:
    """The cache of one bank: ``get`` what a file's reading gave, ``put`` a new one, ``save``."""

    def __init__(self, path: Path, writable: bool = True, root: Path | None = None) -> None:
        self.path = path
        self.writable = writable
        self.identity = bank_identity(root)
        # in the bank (``.ckp-cache/``): the folder itself is never a link; in ``CKP_CACHE_DIR``
        # the user chose the folder, links and all
        self._in_bank = root is not None and path.parent == root / FOLDER
        # The old cache: each file's size and mtime (and, once saved, what the reading gave), and
        # where its fields are in the file, read only when asked for.
        self._stats: dict[str, tuple[Any, ...]] = {}
        self._briefs: dict[str, Brief | None] | None = None
        self._fields: tuple[tuple[int, int, int, int], int, list[int]] | None = None
        # what this reading gave: an entry of the old cache, or (size, mtime, the file read),
        # whose brief is made only when the cache is written (made while the bank is read, the
        # briefs would be freed between the bank's objects, and their memory kept)
        self._new: dict[str, tuple[int, int, Any]] = {}
        self._changed = False
        # the last check's findings of the whole bank, and what they were of (see ``findings``)
        self._memo: tuple[bytes, Any] | None = None
        self._old_memo: tuple[bytes, Any] | None = None
        self.hits = 0
        self.load()

    @property
    def _old(self) -> dict[str, tuple[int, int, Brief | None]]:
        """The old cache's entries, whole."""
        briefs = self._old_briefs()
        return {rel: (e[0], e[1], briefs[rel]) for rel, e in self._stats.items() if rel in briefs}

    @classmethod
    def for_bank(cls, root: Path, within: list[Path] | None = None) -> FileCache | None:
        """The cache of the bank at ``root``; None when turned off. It is written only inside
        one of the folders ``within`` (None: anywhere) unless ``$CKP_CACHE_DIR`` names its place."""
        if cache_disabled():
            return None
        place = cache_place(root, within)
        return cls(place.path, place.writable, root)

    def load(self) -> None:
        """Read the sizes and mtimes and the last findings; anything unexpected in the file
        leaves the cache empty."""
        try:
            with self._open() as f:
                st = os.fstat(f.fileno())
                f.seek(-4, os.SEEK_END)
                size = int.from_bytes(f.read(4), "little")
                f.seek(-4 - size, os.SEEK_END)
                stamp, digest, parts, identity = marshal.loads(f.read(size))
                if identity != self.identity or stamp != _stamp():
                    return
                if _digest(f, st.st_size - 4 - size) != digest:
                    return
                f.seek(0)
                stats = marshal.loads(f.read(parts[0]))
                f.seek(sum(parts[:-1]))
                memo = marshal.loads(f.read(parts[-1]))
            if not isinstance(stats, dict):
                return
            self._stats, self._old_memo = stats, memo
            self._fields = ((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns), parts[0], parts[1:-1])
        except Exception:  # missing, truncated, foreign or of another Python: start afresh
            self._stats, self._old_memo, self._fields = {}, None, None

    def _old_briefs(self) -> dict[str, Brief | None]:
        """The fields of the old cache's entries, read the first time they are asked for (none
        when the file was replaced since ``load``)."""
        if self._briefs is not None:
            return self._briefs
        from ckp_lsp.core.format.brief import brief
        from ckp_lsp.core.format.knowledge import KnowledgeFile

        briefs: dict[str, Brief | None] = {}
        if self._fields is None:  # the entries saved: what the reading gave
            for rel, entry in self._stats.items():
                if len(entry) > 2:
                    briefs[rel] = brief(entry[2]) if isinstance(entry[2], KnowledgeFile) else entry[2]
        else:
            identity, at, parts = self._fields
            try:
                with self._open() as f:
                    st = os.fstat(f.fileno())
                    if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == identity:
                        f.seek(at)
                        for n in parts:
                            briefs.update(marshal.loads(f.read(n)))
            except Exception:  # gone or unreadable since: every file is read again
                briefs = {}
        self._briefs = briefs
        return briefs

    def get(self, rel: str, st: os.stat_result) -> KnowledgeFile | None:
        """The file ``rel`` as its last reading gave it, when its size and mtime are unchanged."""
        stat = self._stats.get(rel)
        try:
            if stat is None or stat[0] != st.st_size or stat[1] != st.st_mtime_ns:
                return None
            b = self._old_briefs().get(rel)
            if b is None or b[0] != rel:
                return None
            if tuple(map(type, b)) != _BRIEF_TYPES:
                return None
            from ckp_lsp.core.format.brief import from_brief

            kf = from_brief(b)
        except Exception:  # an entry of another shape: read the file
            return None
        if kf is None:  # a date that is no longer valid (a new day): read again
            return None
        self._new[rel] = (stat[0], stat[1], b)
        self.hits += 1
        return kf

    def unchanged(self, rel: str, st: os.stat_result) -> bool:
        """Whether ``rel`` has the size and mtime it had when last read (kept as it was if so)."""
        stat = self._stats.get(rel)
        try:
            if stat is None or stat[0] != st.st_size or stat[1] != st.st_mtime_ns:
                return False
        except Exception:  # an entry of another shape: the file is read
            return False
        self._new[rel] = (stat[0], stat[1], _KEPT)
        return True

    def put(self, rel: str, st: os.stat_result, kf: KnowledgeFile) -> None:
        """Remember how ``rel`` was read (a file with findings of its own is not kept)."""
        self._new[rel] = (st.st_size, st.st_mtime_ns, kf)
        old = self._stats.get(rel)
        if old is None or old[0] != st.st_size or old[1] != st.st_mtime_ns:
            self._changed = True

    def fingerprint(self, *more: Any) -> bytes:
        """A digest of every file read through this cache (path, size, mtime) and ``more``."""
        files = marshal.dumps(sorted((rel, e[0], e[1]) for rel, e in self._new.items()))
        h = _blake2b(files, digest_size=16)
        try:
            h.update(marshal.dumps(more))
        except ValueError:
            h.update(repr(more).encode("utf-8", "surrogateescape"))
        return h.digest()

    def findings(self, key: bytes) -> Any:
        """The findings kept under ``key`` (see ``keep_findings``), or None."""
        memo = self._memo or self._old_memo
        if memo is not None and memo[0] == key:
            self._memo = memo
            return memo[1]
        return None

    def keep_findings(self, key: bytes, value: Any) -> None:
        """Keep ``value`` (plain values only) as the findings of ``key``: a bank with no file
        changed since gives the same findings again, found without checking."""
        try:
            marshal.dumps(value)
        except ValueError:
            return
        self._memo = (key, value)
        self._changed = True

    def _write(self, f: Any) -> None:
        """The sizes and mtimes, the fields in parts of ``_PART`` files, the findings, then what
        says how to read them: a part at a time, writing needs little more memory than the
        entries themselves. Version 2 of marshal: no references between objects, half the memory
        to write and a third of the time to read of the newest version, for a file a tenth larger."""
        from ckp_lsp.core.format.brief import brief
        from ckp_lsp.core.format.knowledge import KnowledgeFile

        h = _blake2b(digest_size=16)
        parts = []
        for rel, (size, mtime, got) in list(self._new.items()):
            if got is _KEPT:  # as the old cache had it (not there any more: read next time)
                old = self._old_briefs()
                if rel in old:
                    self._new[rel] = (size, mtime, old[rel])
                else:
                    del self._new[rel]
        items = [(rel, size, mtime, got) for rel, (size, mtime, got) in self._new.items()]

        def write(part: bytes) -> None:
            h.update(part)
            f.write(part)
            parts.append(len(part))

        write(marshal.dumps({rel: (size, mtime) for rel, size, mtime, _ in items}, 2))
        for start in range(0, len(items), _PART):  # one part in memory at a time
            chunk = items[start : start + _PART]
            write(
                marshal.dumps(
                    {rel: brief(got) if isinstance(got, KnowledgeFile) else got for rel, _, _, got in chunk},
                    2,
                )
            )
        write(marshal.dumps(self._memo, 2))
        trailer = marshal.dumps((_stamp(), h.digest(), parts, self.identity), 2)
        f.write(trailer)
        f.write(len(trailer).to_bytes(4, "little"))

    def _open(self) -> Any:
        """The cache file opened for reading, never through a symbolic link."""
        return open_cache(self.path, self._in_bank)

    def save(self) -> None:
        """Write the cache (atomically) when it changed; a folder that cannot be written is left."""
        if not self.writable or (not self._changed and self._new.keys() == self._stats.keys()):
            return
        if not save_cache(self.path, self._in_bank, self._write):
            return
        self._stats, self._briefs, self._fields = self._new, None, None
        self._old_memo, self._changed = self._memo, False


def _folder(path: Path, in_bank: bool, create: bool = False) -> int:
    """A descriptor of the folder of the cache file ``path`` (made when ``create``), never reached
    through a link when it is a bank's ``.ckp-cache`` (``in_bank``)."""
    folder = path.parent
    if create and not os.path.lexists(folder):
        if in_bank:
            os.mkdir(folder)  # the bank's root is there: nothing above is made
            fd = _bank_folder(folder)
            with contextlib.suppress(OSError):
                _write_new(fd, ".gitignore", b"# written by ckp: delete at will\n*\n", 0o644)
            return fd
        folder.mkdir(parents=True, exist_ok=True)
    if in_bank:
        return _bank_folder(folder)
    return os.open(folder, os.O_RDONLY | os.O_DIRECTORY)


def _bank_folder(folder: Path) -> int:
    """A descriptor of the bank's ``.ckp-cache`` (``folder``), never through a link, and only when
    it lies inside the bank (``within``'s rule, as every reader of the bank asks it)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        Folder(folder.parent).refuse_outside(fd, folder)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_cache(path: Path, in_bank: bool) -> Any:
    """The cache file ``path`` opened for reading, never through a symbolic link, and only when
    this user wrote it and no one else may write it (``OSError`` otherwise)."""
    fd = _folder(path, in_bank)
    try:
        f = os.fdopen(os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd), "rb")
    finally:
        os.close(fd)
    if not _trusted(os.fstat(f.fileno())):
        f.close()
        raise PermissionError(f"{path}: not this user's cache")
    return f


def save_cache(path: Path, in_bank: bool, write: Any) -> bool:
    """Write the cache file ``path`` with ``write(file)`` atomically (0600, never through a link);
    whether it was written."""
    try:
        fd = _folder(path, in_bank, create=True)
        try:
            tmp = f".tmp-{os.urandom(8).hex()}"
            out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
            try:
                with os.fdopen(out, "wb") as f:
                    write(f)
                os.replace(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=fd)
                raise
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def _write_new(folder: int, name: str, data: bytes, mode: int) -> None:
    """Create ``name`` in the folder ``folder`` (a descriptor) with ``data``; never through a link."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=folder)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
