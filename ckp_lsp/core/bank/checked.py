"""The findings of a bank read through its cache: those of the last check when no file changed."""

from __future__ import annotations

import os
from pathlib import Path

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.cache import FileCache
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.findings import Finding, Severity
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.text import Span
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.project.discovery import INDEX_NAME, knowledge_files, skip_reason

Found = list[tuple[str, list[Finding]]]


def findings_of(bank: Bank, rels: list[str], with_index: bool) -> Found:
    """The findings of ``rels`` (with the index's last when ``with_index``), per file."""
    out = [(rel, check_file(bank, rel)) for rel in rels]
    if with_index:
        out.append((INDEX_NAME, check_index(bank)))
    return out


def _key(
    cache: FileCache,
    root: Path,
    config: Config,
    unreadable: dict[str, str],
    with_index: bool,
    today: CkpDate | None,
) -> bytes:
    """What the findings of a whole bank depend on: every file read through ``cache`` (path, size,
    mtime), the index's, the files skipped, the configuration and the day (CKP052)."""
    try:
        st = os.stat(root / INDEX_NAME)
        index: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
    except OSError:
        index = None
    return cache.fingerprint(with_index, index, sorted(unreadable.items()), repr(config), str(today))


def _plain(found: Found) -> list[tuple[str, list[tuple[str, tuple[int, ...], str, int]]]]:
    return [(rel, [(f.code, tuple(f.span), f.message, int(f.severity)) for f in fs]) for rel, fs in found]


def _found(kept: list[tuple[str, list[tuple[str, tuple[int, ...], str, int]]]]) -> Found:
    return [
        (rel, [Finding(code, Span(*span), message, Severity(sev)) for code, span, message, sev in found])
        for rel, found in kept
    ]


def unchanged_findings(
    root: Path, config: Config, cache: FileCache, with_index: bool, today: CkpDate | None
) -> tuple[list[str], dict[str, str], Found] | None:
    """When no file of the bank changed since its findings were kept (``cached_findings``) on the
    day ``today``: its files, those skipped and why, and the findings, without reading the bank.
    None otherwise."""
    if config.staleness == "git":  # depends on commits, which no file's mtime tells
        return None
    unreadable: dict[str, str] = {}
    rels = knowledge_files(root, config.exclude, unreadable)
    base = os.path.join(root, "")
    for rel in rels:
        try:
            if not cache.unchanged(rel, os.stat(base + rel)):
                return None
        except OSError:
            return None
    why = skip_reason(root / INDEX_NAME, root)
    if why is not None:
        unreadable[INDEX_NAME] = why
    kept = cache.findings(_key(cache, root, config, unreadable, with_index, today))
    return None if kept is None else (rels, unreadable, _found(kept))


def cached_findings(bank: Bank, cache: FileCache, with_index: bool) -> Found:
    """The findings of every file of ``bank`` (read through ``cache``), or those the cache kept
    when nothing they depend on changed since: the same files (paths, sizes, mtimes), the same
    index, configuration and day (``bank.today``). Kept anew (and the cache saved) otherwise."""
    rels = sorted(bank.files)
    if bank.config.staleness == "git":
        return findings_of(bank, rels, with_index)
    key = _key(cache, bank.root, bank.config, bank.unreadable, with_index, bank.today)
    kept = cache.findings(key)
    if kept is not None:
        return _found(kept)
    found = findings_of(bank, rels, with_index)
    cache.keep_findings(key, _plain(found))
    cache.save()
    return found
