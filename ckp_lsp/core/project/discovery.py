"""Finding banks (SPEC §1) and their knowledge files."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ckp_lsp.core.format.index_format import INDEX_START
from ckp_lsp.core.project.bank_names import (
    Lookalike,
    folders_named_by_agents,
    is_bank_name,
    lookalike,
)
from ckp_lsp.core.project.config import (
    AGENT_ENTRY_FILES,
    DEFAULT_EXCLUDE,
    banks_named_in,
    configured_banks,
)
from ckp_lsp.core.project.within import Folder, escape, listing, never_projects, temp_folder
from ckp_lsp.core.project.within import project_root as within_project_root

INDEX_NAME = "_index.md"
BANK_DIR_NAME = "memory-bank"
#: hidden folders searched all the same, for the banks agents keep there (``.github/memory-bank``
#: of Copilot, ``.cursor/memory-bank`` of Cursor, ``.claude/memory``)
HIDDEN_SEARCHED = frozenset({".memory-bank", ".claude", ".github", ".cursor"})
#: how a file's bank is found, in the words the README and the messages use
BANK_RULE = (
    "a file belongs to the outermost bank among the folders above it, up to its project's root "
    "(the nearest folder holding .git or .ckp.toml), never /, the home folder or the temporary folder"
)
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__"})


def _skipped(name: str) -> bool:
    return name in SKIP_DIRS or (
        name.startswith(".") and name not in HIDDEN_SEARCHED and not is_bank_name(name)
    )


def is_known_bank_dir(folder: Path) -> bool:
    """Whether ``folder`` is where an agent keeps its memory by convention: Cline's ``memory-bank/``
    however it is spelt (``memory_bank``, ``memoryBank``, hidden; ``is_bank_name``), Claude Code's
    ``.claude/memory/``, or ``memory/`` beside a repository's ``.git``."""
    if is_bank_name(folder.name):
        return True
    if folder.name != "memory":
        return False
    if folder.parent.name == ".claude":
        return True
    return (folder.parent / ".git").exists() and _holds_markdown(folder)


def _holds_markdown(folder: Path) -> bool:
    try:
        return any(e.name.endswith(".md") and e.is_file() for e in listing(folder))
    except OSError:
        return False


def is_ckp_index(path: Path) -> bool:
    """Whether ``path`` is an ``_index.md`` of CKP (markers or header blocks), not a site generator's."""
    try:
        data = Folder(path.parent).head(path, 65536)
    except OSError:
        return False
    head = "\n" + data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")  # a header block may open it
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


#: how deep below a folder banks are searched for, and a bank's files are read: deeper folders
#: are left out, with a message (no bank or agent nests folders this far)
MAX_DEPTH = 64


def _walk_banks(root: Path, configured: list[Path], problems: list[str] | None) -> Iterator[Path]:
    """The banks at or below ``root``, depth first in name order, without recursion."""
    disk = Folder(root)
    stack = [(root, configured, 0)]
    while stack:
        folder, conf, depth = stack.pop()
        conf = conf + banks_named_in(folder, problems)  # `banks = [...]` in a .ckp.toml on the way
        if is_bank_root(folder, conf):
            yield folder
            continue
        try:
            entries = sorted(disk.entries(folder), key=lambda e: e.name)
        except OSError:
            continue
        # A folder an agent's rules file here names as its memory (CLAUDE.md: "memory in docs/memory/").
        conf = conf + folders_named_by_agents(folder, {e.name for e in entries})
        below = []
        for e in entries:
            # A hidden folder is entered when the configuration names it (``banks = [".notes"]``).
            if not e.is_dir(follow_symlinks=False) or not can_show_name(e.name):
                continue
            if _skipped(e.name) and Path(e.path) not in conf:
                continue
            if depth >= MAX_DEPTH:
                if problems is not None:
                    problems.append(
                        f"{shown_name(str(folder))}: folders nested more than {MAX_DEPTH} levels deep "
                        "are not searched for banks"
                    )
                break
            below.append((Path(e.path), conf, depth + 1))
        stack.extend(reversed(below))


def project_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` or ``.ckp.toml``: its project's
    root, where the search for its bank stops; None outside any project (``within.project_root``)."""
    return within_project_root(start)


def never_banks(path: Path) -> frozenset[Path]:
    """Folders never taken for a bank found upward from ``path``: its file system's root, the home
    folder (``never_projects``) and the temporary folder. A stray ``_index.md`` there would make
    every file below it one bank, and a fix run anywhere would rewrite them all."""
    return never_projects(path) | {Path(temp_folder()).resolve()}


def bank_of(path: Path, configured: Iterable[Path] = (), problems: list[str] | None = None) -> Path | None:
    """The bank that holds ``path``, by where it is alone (``BANK_RULE``): the outermost bank among
    its folders up to its project's root (``project_root``), as ``find_banks`` sees it from there
    (banks never nest); never ``/``, the home or the temporary folder, nor anything above them;
    none when ``path`` is reached through a symbolic link that leads out of its project (``escape``)."""
    why = escape(path)
    if why is not None:
        _note(problems, why)
        return None
    path = path.resolve()
    start = path if path.is_dir() else path.parent
    top = project_root(start)
    never = never_banks(start)
    conf = [c.resolve() for c in configured] + configured_banks(start, problems)
    for folder in (start, *start.parents):  # the folders agents' rules files name, up to the project's root
        if folder in never:
            break
        conf += folders_named_by_agents(folder)
        if folder == top:
            break
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


def named_bank(path: Path, configured: Iterable[Path] = ()) -> Path | None:
    """The bank a user names on the command line: the bank ``path`` lies in, the one bank below it
    (``ckp compile --all .cursor`` for ``.cursor/memory-bank``, as ``ckp check .cursor`` finds it),
    or else a folder that holds Markdown files directly and no bank below it (``ckp index notes/``);
    None otherwise (several banks below, or ``path`` reached through a symbolic link that leads out
    of its project)."""
    if escape(path) is not None:
        return None
    found = bank_of(path, configured)
    if found is not None or not path.is_dir():
        return found
    below = find_banks([path], configured)
    if len(below) == 1:
        return below[0]
    if not below and _holds_markdown(path):
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


#: characters a name must not hold to be shown: C0/C1 controls, DEL, the line and paragraph
#: separators and the bidirectional overrides (in a path they would forge a line of the output,
#: of the agent's declaration or of a quote's attribute, or reorder what is read)
_UNSHOWN = frozenset(
    [
        *map(chr, range(0x20)),
        *map(chr, range(0x7F, 0xA0)),
        "\u2028",
        "\u2029",
        *map(chr, range(0x202A, 0x202F)),
        *map(chr, range(0x2066, 0x206A)),
    ]
)


def name_problem(name: str) -> str | None:
    """Why a name read from the disk is one ckp cannot show, None when it can: bytes that are not
    UTF-8 (Linux allows any bytes in a name: they come as lone surrogates, which no URI, JSON or
    UTF-8 text can hold), or a control character (a line break, U+2028, a direction override)."""
    if name.isascii():
        if name.isprintable():
            return None
    else:
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            return "that is not valid UTF-8"
    if _UNSHOWN.isdisjoint(name):
        return None
    return "with a control character"


def can_show_name(name: str) -> bool:
    """Whether ckp can show a name read from the disk (``name_problem``): a name it cannot is
    left out of every bank, and said so."""
    return name_problem(name) is None


def shown_name(name: str) -> str:
    """``name`` as a message shows it: each byte that is not UTF-8 as ``\\xNN``, each control
    character as its escape (``\\n``, ``\\u2028``)."""
    if name_problem(name) is None:
        return name
    text = os.fsencode(name).decode("utf-8", "backslashreplace")
    return "".join(c.encode("unicode_escape").decode("ascii") if c in _UNSHOWN else c for c in text)


def markdown_entries(
    bank: Path, skipped: dict[str, str] | None = None
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(bank-relative POSIX path, directory entry) of every ``*.md`` below ``bank``; skipped and
    symlinked folders are not entered. A file or folder whose name ckp cannot show (not UTF-8, or
    holding a control character) is left out (and goes to ``skipped``, under its name as shown,
    with the reason)."""
    disk = Folder(bank)
    stack = [(str(bank), "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            entries = disk.entries(folder)
        except OSError:
            continue
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if not _skipped(e.name):
                    why = None
                    if not can_show_name(e.name):
                        why = f"a folder name {name_problem(e.name)}"
                    elif depth >= MAX_DEPTH:
                        why = f"a folder nested more than {MAX_DEPTH} levels deep"
                    if why is None:
                        stack.append((e.path, prefix + e.name + "/", depth + 1))
                    elif skipped is not None:
                        skipped[shown_name(prefix + e.name)] = why
            elif e.name.endswith(".md"):
                if not can_show_name(e.name):
                    if skipped is not None:
                        skipped[shown_name(prefix + e.name)] = f"a file name {name_problem(e.name)}"
                    continue
                yield prefix + e.name, e


def knowledge_files(
    bank: Path, exclude: Iterable[str] = (), skipped: dict[str, str] | None = None
) -> list[str]:
    """Bank-relative POSIX paths of the bank's knowledge files, sorted; symlinked folders are not followed.

    A ``*.md`` that is not a file of the bank (see ``skip_reason``) goes to ``skipped`` with the reason.
    """
    exclude = tuple(exclude)
    out: list[str] = []
    for rel, e in markdown_entries(bank, skipped):
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
    """Why ``path`` below ``bank`` is not read as a knowledge file, or None when it is read
    (``within.Folder.why_not_read``: regular files only, a symbolic link only when it resolves to
    a file inside the bank; a bank never leads outside itself)."""
    return Folder(bank).why_not_read(path)


def lookalike_folders(root: Path, depth: int = 4) -> list[Lookalike]:
    """Folders below ``root`` (``depth`` levels at most) that look like a memory bank
    (``bank_names.lookalike``) and that are no bank: what ``ckp init`` names instead of starting
    a bank beside them."""
    out: list[Lookalike] = []
    disk = Folder(root)
    stack = [(root.resolve(), 0)]
    while stack:
        folder, level = stack.pop()
        if level > 0 and (found := lookalike(folder)) is not None:
            out.append(found)
            continue
        if level == depth:
            continue
        try:
            entries = disk.entries(folder)
        except OSError:
            continue
        stack += [
            (Path(e.path), level + 1)
            for e in entries
            if e.is_dir(follow_symlinks=False) and not _skipped(e.name)
        ]
    return sorted(out, key=lambda f: f.folder)
