"""Finding banks (SPEC §1) and their knowledge files."""

from __future__ import annotations

import errno
import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .config import AGENT_ENTRY_FILES, CONFIG_NAME, DEFAULT_EXCLUDE, banks_named_in, configured_banks
from .within import escape, inside, never_projects

INDEX_NAME = "_index.md"
BANK_DIR_NAME = "memory-bank"
#: the folders agents keep their memory in, found without configuration: Cline's ``memory-bank/``
#: (also hidden), Claude Code's ``.claude/memory/``, and ``memory/`` at a repository's root
KNOWN_BANK_DIRS = frozenset({BANK_DIR_NAME, ".memory-bank"})
#: hidden folders searched all the same, for the banks agents keep there (``.github/memory-bank``
#: of Copilot, ``.cursor/memory-bank`` of Cursor, ``.claude/memory``)
HIDDEN_SEARCHED = frozenset({".memory-bank", ".claude", ".github", ".cursor"})
INDEX_START = "<!-- ckp:index:start -->"
INDEX_END = "<!-- ckp:index:end -->"
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__"})


def _skipped(name: str) -> bool:
    return name in SKIP_DIRS or (name.startswith(".") and name not in HIDDEN_SEARCHED)


def is_known_bank_dir(folder: Path) -> bool:
    """Whether ``folder`` is where an agent keeps its memory by convention (``KNOWN_BANK_DIRS``,
    ``.claude/memory``, or ``memory/`` beside a repository's ``.git``)."""
    if folder.name in KNOWN_BANK_DIRS:
        return True
    if folder.name != "memory":
        return False
    if folder.parent.name == ".claude":
        return True
    return (folder.parent / ".git").exists() and _holds_markdown(folder)


def _holds_markdown(folder: Path) -> bool:
    try:
        return any(e.name.endswith(".md") and e.is_file() for e in os.scandir(folder))
    except OSError:
        return False


def is_ckp_index(path: Path) -> bool:
    """Whether ``path`` is an ``_index.md`` of CKP (markers or header blocks), not a site generator's."""
    try:
        with path.open("r", encoding="utf-8-sig", errors="replace") as fh:
            head = "\n" + fh.read(65536)  # a header block may open the file
    except OSError:
        return False
    return INDEX_START in head or ("\nCONCEPT:" in head and "\nANSWERS_WHEN:" in head)


def is_bank_root(folder: Path, configured: Iterable[Path] = ()) -> bool:
    """Whether ``folder`` is a bank by its name, its index or the configuration."""
    if is_known_bank_dir(folder):
        return True
    if any(folder == c for c in configured):
        return True
    index = folder / INDEX_NAME
    return index.is_file() and is_ckp_index(index)


def find_banks(
    roots: Iterable[Path], configured: Iterable[Path] = (), problems: list[str] | None = None
) -> list[Path]:
    """Every bank at or below ``roots``; banks never nest, so the search stops at a bank.

    Banks a ``.ckp.toml`` names outside its own folder are ignored (and said so in ``problems``).
    """
    conf = [c.resolve() for c in configured]
    found: list[Path] = []
    for root in roots:
        why = escape(root)
        if why is not None:
            _note(problems, why)
            continue
        root = root.resolve()
        above = [] if (root / ".git").exists() else configured_banks(root.parent, problems)
        found.extend(_walk_banks(root, conf + above, problems))
    seen: set[Path] = set()
    out = []
    for b in found:
        if b not in seen and not any(p in seen for p in b.parents):
            seen.add(b)
            out.append(b)
    return sorted(out)


def _walk_banks(root: Path, configured: list[Path], problems: list[str] | None) -> Iterator[Path]:
    configured = configured + banks_named_in(root, problems)  # `banks = [...]` in a .ckp.toml on the way
    if is_bank_root(root, configured):
        yield root
        return
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        # A hidden folder is entered when the configuration names it (``banks = [".notes"]``).
        if e.is_dir(follow_symlinks=False) and (not _skipped(e.name) or Path(e.path) in configured):
            yield from _walk_banks(Path(e.path), configured, problems)


def project_boundary(start: Path, boundary: Path | None = None) -> Path | None:
    """The highest folder the search for ``start``'s bank may look at: the nearest folder at or
    above ``start`` holding ``.git`` or ``.ckp.toml`` (a project's root), else ``boundary`` (the folder
    the command or server was started on) when ``start`` lies in it, else None (no project).

    A ``boundary`` inside a folder named as agents name their bank (``memory-bank/``…) is that
    folder: a command run on a file in a bank's sub-folder, or in that sub-folder, finds the bank
    without a project root above, while an ``_index.md`` alone above ``boundary`` stays out of reach.
    """
    for folder in (start, *start.parents):
        if (folder / ".git").exists() or (folder / CONFIG_NAME).is_file():
            return folder
    if boundary is not None and (boundary == start or boundary in start.parents):
        return _named_bank_around(boundary) or boundary
    return None


def _named_bank_around(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` that is a bank by its name (``is_known_bank_dir``),
    never the file system's root or the home folder."""
    never = never_banks(folder)
    for above in (folder, *folder.parents):
        if above in never:
            return None
        if is_known_bank_dir(above):
            return above
    return None


def never_banks(path: Path) -> frozenset[Path]:
    """Folders never taken for a bank found upward from ``path``: its file system's root and the
    home folder. A stray ``_index.md`` there would make every file below it one bank, and a fix
    run anywhere would rewrite them all."""
    return never_projects(path)


def bank_of(
    path: Path,
    configured: Iterable[Path] = (),
    problems: list[str] | None = None,
    boundary: Path | None = None,
) -> Path | None:
    """The bank that holds ``path``: the outermost bank among its ancestors up to the project's
    boundary (see ``project_boundary``), never ``/``, the home folder or anything above them; none
    when ``path`` is reached through a symbolic link that leads out of its project (``escape``)."""
    why = escape(path, boundary)
    if why is not None:
        _note(problems, why)
        return None
    path = path.resolve()
    start = path if path.is_dir() else path.parent
    top = project_boundary(start, boundary.resolve() if boundary is not None else None)
    never = never_banks(start)
    conf = [c.resolve() for c in configured] + configured_banks(start, problems)
    best = None
    for folder in (start, *start.parents):
        if folder in never:
            break
        if is_bank_root(folder, conf):
            best = folder
        if folder == top:
            break
    return best


def _note(problems: list[str] | None, why: str) -> None:
    if problems is not None and why not in problems:
        problems.append(why)


def started_on(path: Path, cwd: Path | None = None) -> Path:
    """The folder a command run on ``path`` was started on, where the search for its bank stops
    when no project root (``.git``, ``.ckp.toml``) is found first: the working folder when ``path``
    lies in it, else ``path`` itself (its folder, for a file)."""
    path = path.resolve()
    cwd = (Path.cwd() if cwd is None else cwd).resolve()
    if path == cwd or cwd in path.parents:
        return cwd
    return path if path.is_dir() else path.parent


def named_bank(path: Path, configured: Iterable[Path] = (), boundary: Path | None = None) -> Path | None:
    """The bank a user names on the command line: the bank ``path`` lies in, or else a folder that
    holds Markdown files directly and no bank below it (``ckp index notes/``); None otherwise.

    The search upward stops at ``boundary`` (default: the folder the command was started on)."""
    if escape(path, started_on(path) if boundary is None else boundary) is not None:
        return None
    found = bank_of(path, configured, boundary=started_on(path) if boundary is None else boundary)
    if found is not None or not path.is_dir():
        return found
    if not find_banks([path], configured) and _holds_markdown(path):
        return path.resolve()
    return None


def is_excluded(relpath: str, exclude: Iterable[str]) -> bool:
    """Whether a bank-relative path (or its file name) matches one of the ``exclude`` globs."""
    if not exclude:
        return False
    match = _globs(exclude if isinstance(exclude, tuple) else tuple(exclude))
    relpath = os.path.normcase(relpath)
    return match(relpath) is not None or match(relpath.rsplit("/", 1)[-1]) is not None


@functools.lru_cache(maxsize=64)
def _globs(exclude: tuple[str, ...]) -> Callable[[str], re.Match[str] | None]:
    """One regex for all the globs (as ``fnmatch`` has them): a bank's files are tested against
    the configured excludes one by one, and a glob at a time was a fifth of reading a bank."""
    return re.compile("|".join(fnmatch.translate(os.path.normcase(g)) for g in exclude)).match


#: what the default ``exclude`` patterns leave out, in words
_EXCLUDED_KINDS = {
    "README.md": "a README",
    **dict.fromkeys(AGENT_ENTRY_FILES, "an agent's entry file"),
    "index.md": "a folder's index",
    "_index.md": "a folder's index",
}


def why_not_knowledge(relpath: str, exclude: Iterable[str]) -> str | None:
    """Why a bank-relative path names no knowledge file (SPEC §1), in words; None when it names one."""
    if not relpath.endswith(".md"):
        return "not a Markdown file"
    if relpath == INDEX_NAME:
        return "the bank's index"
    exclude = tuple(exclude)
    glob = next((g for g in exclude if is_excluded(relpath, (g,))), None)
    if glob is None:
        return None
    if glob in DEFAULT_EXCLUDE:
        kind = _EXCLUDED_KINDS.get(glob, "a template")
        return f"{kind}: the default `exclude` pattern '{glob}' matches it"
    return f"the `exclude` / `extend_exclude` pattern '{glob}' of the settings matches it"


def is_knowledge_path(relpath: str, exclude: Iterable[str]) -> bool:
    """Whether a bank-relative path names a knowledge file (SPEC §1)."""
    return relpath.endswith(".md") and relpath != INDEX_NAME and not is_excluded(relpath, exclude)


def markdown_entries(bank: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(bank-relative POSIX path, directory entry) of every ``*.md`` below ``bank``; skipped and
    symlinked folders are not entered."""
    stack = [(str(bank), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if not _skipped(e.name):
                    stack.append((e.path, prefix + e.name + "/"))
            elif e.name.endswith(".md"):
                yield prefix + e.name, e


def knowledge_files(
    bank: Path, exclude: Iterable[str] = (), skipped: dict[str, str] | None = None
) -> list[str]:
    """Bank-relative POSIX paths of the bank's knowledge files, sorted; symlinked folders are not followed.

    A ``*.md`` that is not a file of the bank (see ``skip_reason``) goes to ``skipped`` with the reason.
    """
    exclude = tuple(exclude)
    out: list[str] = []
    for rel, e in markdown_entries(bank):
        if is_knowledge_path(rel, exclude):
            # A plain file needs no system call; anything else is looked at closely.
            why = None if not e.is_symlink() and e.is_file() else skip_reason(Path(e.path), bank)
            if why is None:
                out.append(rel)
            elif skipped is not None:
                skipped[rel] = why
    out.sort()
    return out


def skip_reason(path: Path, bank: Path) -> str | None:
    """Why ``path`` below ``bank`` is not read as a knowledge file, or None when it is read.

    Only regular files are read (a named pipe would block a reader forever), and a symbolic link
    only when it resolves to a file inside the bank: a bank never leads outside itself.
    """
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None  # gone: the reader finds out and treats it as deleted
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
        if not inside(target, bank):
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
