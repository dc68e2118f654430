"""Banks under the names people give them: the spellings of ``memory-bank``, the folders an agent's
rules file names, and the folders that look like a bank without being one (which ``ckp init``
names instead of starting a bank beside them)."""

from __future__ import annotations

import re
from pathlib import Path

from ckp_lsp.core.format.patterns import lazy
from ckp_lsp.core.format.records import Frozen
from ckp_lsp.core.project.within import Folder, inside, listing, project_root

#: the files that tell an agent how to work in a project (Claude Code, Codex and others, Gemini,
#: Cline, Cursor, Windsurf); ``.clinerules`` may be a folder of Markdown files
RULES_FILES = (
    "CLAUDE.md",
    "AGENTS.md",
    "AGENT.md",
    "GEMINI.md",
    ".clinerules",
    ".cursorrules",
    ".windsurfrules",
)
#: at most this much of a rules file is read: they are a page or two
RULES_READ = 65536
#: words that say a line of a rules file speaks of the agent's memory, in the path or around it
#: (not "docs" or "context" alone: a rules file points at documentation too, which is no bank)
MEMORY_WORDS = lazy(r"memor|\bbank\b|knowledge|\bkb\b", re.IGNORECASE)
#: the names of folders that look like a place for an agent's memory
LOOKALIKE_NAMES = lazy(r"memor|bank|knowledge|\bkb\b|\bcontext\b|\bnotes?\b|\bwiki\b|brain", re.IGNORECASE)
#: a relative folder path as rules files write one: ``docs/memory/``, ``./notes/kb``, `` `kb/` ``
_PATH = lazy(r"(?<![\w.:/@~-])(?:\./)?((?:[\w.-]+/)+[\w.-]*)")
#: the files of Cline's memory bank: two of them in a folder make it look like a bank
CLINE_CORE = frozenset(
    {
        "projectbrief.md",
        "productcontext.md",
        "activecontext.md",
        "systempatterns.md",
        "techcontext.md",
        "progress.md",
    }
)
#: the Markdown files a folder needs to look like a bank
LOOKALIKE_FILES = 2


def is_bank_name(name: str) -> bool:
    """Whether a folder's name is one of the ways agents spell their memory bank: ``memory-bank``,
    ``memory_bank``, ``memoryBank``, ``MemoryBank``, each also hidden (``.memory-bank``)."""
    return re.sub(r"[-_ ]", "", name.removeprefix(".")).lower() == "memorybank"


def _rules_texts(folder: Path, names: set[str]) -> list[str]:
    """The text of each rules file in ``folder`` (``names``: the entries it holds), read only when
    it lies inside ``folder``'s project (a rules file linked to ``../AGENTS.md`` of the repository
    is read, one linked out of it is not)."""
    disk = Folder(project_root(folder) or folder)
    out = []
    for name in RULES_FILES:
        if name not in names:
            continue
        path = folder / name
        try:
            files = sorted(_markdown(disk, path)) if path.is_dir() else [path]
        except OSError:
            continue
        for f in files[:50]:
            try:
                out.append(disk.head(f, RULES_READ).decode("utf-8", "replace"))
            except OSError:
                continue
    return out


def _markdown(disk: Folder, folder: Path) -> list[Path]:
    """The ``*.md`` entries of ``folder`` (a rules folder: ``.clinerules/``)."""
    return [Path(e.path) for e in disk.entries(folder) if e.name.endswith(".md")]


def folders_named_by_agents(folder: Path, names: set[str] | None = None) -> list[Path]:
    """The folders below ``folder`` that a rules file in it names as the agent's memory: a relative
    folder path on a line that speaks of memory, knowledge or a bank (``MEMORY_WORDS``), naming a folder
    inside ``folder`` (a symbolic link out is not followed) that holds Markdown files directly."""
    if names is None:
        try:
            names = {e.name for e in listing(folder)}
        except OSError:
            return []
    if not names.intersection(RULES_FILES):
        return []
    out: list[Path] = []
    for text in _rules_texts(folder, names):
        for line in text.splitlines():
            if not MEMORY_WORDS.search(line):
                continue
            for match in _PATH.finditer(line):
                rel = match[1].rstrip(".")
                parts = Path(rel).parts
                if not parts or ".." in parts or rel.endswith(".md"):
                    continue
                found = folder / rel
                if inside(found, folder) and _markdown_count(found):
                    out.append(found.resolve())
    return list(dict.fromkeys(out))


def _markdown_count(folder: Path) -> int:
    try:
        return sum(1 for e in listing(folder) if e.name.endswith(".md") and e.is_file())
    except OSError:
        return 0


class Lookalike(Frozen):
    """A folder that looks like a memory bank but is none that ckp recognises, and why it looks so."""

    _fields = ("folder", "markdown", "why")
    __slots__ = _fields

    def __init__(self, folder: Path, markdown: int, why: str) -> None:
        self.folder = folder
        self.markdown = markdown
        self.why = why


def lookalike(folder: Path) -> Lookalike | None:
    """Whether ``folder`` looks like a memory bank: Markdown files (at least ``LOOKALIKE_FILES``)
    in a folder named for memory or knowledge, or two of Cline's core files, or CKP headers."""
    try:
        md = sorted(e.name for e in listing(folder) if e.name.endswith(".md") and e.is_file())
    except OSError:
        return None
    if len(md) < LOOKALIKE_FILES:
        return None
    core = [n for n in md if n.lower() in CLINE_CORE]
    if len(core) >= 2:
        return Lookalike(folder, len(md), f"holds {', '.join(core[:3])}, the files of a Cline memory bank")
    if LOOKALIKE_NAMES.search(re.sub(r"[-_.]", " ", folder.name)):
        return Lookalike(folder, len(md), f"{len(md)} Markdown files in a folder named {folder.name!r}")
    headed = [n for n in md[:50] if _has_ckp_header(folder / n)]
    if headed:
        return Lookalike(folder, len(md), f"{len(headed)} of its files have a CKP header")
    return None


def _has_ckp_header(path: Path) -> bool:
    try:
        head = Folder(path.parent).head(path, 4096).decode("utf-8", "replace")
    except OSError:
        return False
    return re.search(r"^CONCEPT:", head, re.MULTILINE) is not None
