"""Reading a bank's file from disk: the knowledge file it holds, or why it cannot be read (its text is
read by ``text.read_text``)."""

from __future__ import annotations

from .knowledge import KnowledgeFile, read_knowledge_file
from .text import read_text


def read_file(base: str, rel: str) -> KnowledgeFile | tuple[str, str]:
    """The knowledge file ``rel`` below ``base``, or (``rel``, why) when it cannot be read."""
    try:
        text, utf8 = read_text(base + rel)
    except OSError as exc:
        return rel, f"cannot be read: {exc.strerror or exc}"
    return read_knowledge_file(rel, text, utf8)
