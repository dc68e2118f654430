"""Whether a path is a document of a bank: its bank-relative name, or None."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ckp_lsp.core.project.discovery import INDEX_NAME, is_knowledge_path
from ckp_lsp.core.project.within import climbs, inside


def bank_rel(path: Path, root: Path, exclude: Iterable[str], index: bool = True) -> str | None:
    """``path``'s name relative to the bank at ``root`` when it is one of its knowledge files (or,
    with ``index``, its ``_index.md``); None otherwise. A path that spells its way out of the bank
    (``memory-bank/../../x.md``, a folder linked in from elsewhere) is never a document: nothing
    outside the bank is read, checked or edited. (A linked file is never read either: see
    ``skip_reason``.)"""
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return None
    if not (index if rel == INDEX_NAME else is_knowledge_path(rel, exclude)):
        return None
    if climbs(rel) or not inside(path.parent, root):
        return None
    return rel
