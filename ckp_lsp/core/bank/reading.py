"""Reading a bank's file from disk: the knowledge file it holds, or why it cannot be read (its text is
read by ``within.Folder.read``, which never reads outside the bank)."""

from __future__ import annotations

from ckp_lsp.core.format.knowledge import KnowledgeFile, read_knowledge_file
from ckp_lsp.core.project.discovery import INDEX_NAME, skip_reason
from ckp_lsp.core.project.within import Folder


def read_file(folder: Folder, rel: str) -> KnowledgeFile | tuple[str, str]:
    """The knowledge file ``rel`` of the bank ``folder``, or (``rel``, why) when it cannot be read."""
    try:
        text, utf8, _ = folder.read(folder.base + rel)
    except OSError as exc:
        return rel, f"cannot be read: {exc.strerror or exc}"
    return read_knowledge_file(rel, text, utf8)


def read_index(folder: Folder) -> tuple[str | None, str | None]:
    """The text of the bank's ``_index.md`` (None when it does not exist or is skipped), and why it
    is skipped (None when it is not)."""
    path = folder.root / INDEX_NAME
    why = skip_reason(path, folder.root)
    if why is not None:
        return None, why
    try:
        return folder.read(path).text, None
    except OSError:
        return None, None
