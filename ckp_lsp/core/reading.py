"""Reading a bank's file from disk: its text (BOM stripped, and whether it was UTF-8) and the knowledge file it holds."""

from __future__ import annotations

import os
from pathlib import Path

from .knowledge import KnowledgeFile, read_knowledge_file
from .text import decode

_CHUNK = 1 << 16


def read_text(path: Path | str) -> tuple[str, bool]:
    """Text of a file on disk (BOM stripped) and whether it was UTF-8; OSError propagates."""
    # os-level calls: a bank is thousands of small files, and each io.open costs more than its read.
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.read(fd, _CHUNK)
        if len(data) == _CHUNK:  # a large file: read the rest
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
    finally:
        os.close(fd)
    return decode(data)


def read_file(base: str, rel: str) -> KnowledgeFile | tuple[str, str]:
    """The knowledge file ``rel`` below ``base``, or (``rel``, why) when it cannot be read."""
    try:
        text, utf8 = read_text(base + rel)
    except OSError as exc:
        return rel, f"cannot be read: {exc.strerror or exc}"
    return read_knowledge_file(rel, text, utf8)
