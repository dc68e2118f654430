"""From paths a user names to the banks (and files within them) to work on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ckp_lsp.core.bank.bank import Bank, Loader
from ckp_lsp.core.bank.cache import FileCache
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.project.config import Config, config_for_bank
from ckp_lsp.core.project.discovery import BANK_RULE, INDEX_NAME, bank_of
from ckp_lsp.core.project.here import banks_here
from ckp_lsp.core.project.within import escape, listing


@dataclass
class Target:
    """A bank, and the files of it that were asked for (None: all of them)."""

    root: Path
    config: Config
    #: how the face loads a bank (its bank service: root, configuration, cache)
    load: Loader
    files: set[str] | None = None
    with_index: bool = True
    #: the cache the bank is read through (None: none)
    cache: FileCache | None = None
    #: the day the face reads the bank on (``Bank.today``)
    today: CkpDate | None = None
    _bank: Bank | None = None

    @property
    def bank(self) -> Bank:
        """The bank, read when first asked for (``ckp check`` may not need to)."""
        if self._bank is None:
            self._bank = self.load(self.root, self.config, self.cache)
        return self._bank


@dataclass
class Targets:
    targets: list[Target] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def resolve_targets(
    paths: Iterable[Path],
    base: Config | None = None,
    cached: bool = False,
    today: CkpDate | None = None,
    *,
    load: Loader,
) -> Targets:
    """Banks for ``paths``: a bank, a folder holding banks, or files inside banks, each loaded by
    ``load`` (the face's bank service) on ``today``. ``cached``: banks are read through their cache
    (``core.bank.cache``), written only inside a folder named.

    The bank a path lies in follows from the path alone (``BANK_RULE``), not from the folder the
    command runs in."""
    out = Targets()
    by_root: dict[Path, Target] = {}
    paths = list(paths)
    folders = [p.resolve() for p in paths if p.is_dir()]

    def target(root: Path) -> Target:
        if root not in by_root:
            cache = FileCache.for_bank(root, folders) if cached else None
            by_root[root] = Target(root, config_for_bank(root, base), load, set(), False, cache, today)
            out.targets.append(by_root[root])
        return by_root[root]

    configured = [Path(b) for b in (base.banks if base else ())]
    for path in paths:
        if not path.exists():
            out.problems.append(f"{path}: no such file or folder")
            continue
        why = escape(path, Path.cwd())
        if why is not None:
            out.problems.append(why)
            continue
        path = path.resolve()
        if not path.is_file() and not path.is_dir():
            out.problems.append(f"{path}: not a regular file or a folder: left alone")
            continue
        if path.is_file():
            root = bank_of(path, configured, out.problems)
            if root is None:
                out.problems.append(f"{path}: not inside a memory bank ({BANK_RULE}; none found)")
                continue
            t = target(root)
            rel = path.relative_to(root).as_posix()
            if rel == INDEX_NAME:
                t.with_index = True
            elif t.files is not None:
                t.files.add(rel)
            continue
        roots = banks_here(path, configured, out.problems, working=path == Path.cwd().resolve())
        if not roots:
            out.problems.append(
                f"{path}: no memory bank found here (no memory-bank folder, no _index.md with CKP markers, "
                "no Markdown files, and no `banks = [...]` in .ckp.toml)" + cursor_rules_note(path)
            )
        for r in roots:
            t = target(r)
            t.files, t.with_index = None, True
    out.problems = list(dict.fromkeys(out.problems))
    return out


def cursor_rules_note(folder: Path) -> str:
    """Why a folder of Cursor rules (``*.mdc``) is no bank: Cursor applies them itself."""
    try:
        rules = sum(1 for e in listing(folder) if e.name.endswith(".mdc") and e.is_file())
    except OSError:
        return ""
    if not rules:
        return ""
    return (
        f"; its {rules} Cursor rule(s) (*.mdc) are not knowledge files: Cursor applies them itself by "
        "their description, globs and alwaysApply. Notes an agent should load on demand go in *.md files "
        "(.cursor/memory-bank/ in a Cursor project)"
    )
