"""Folding ranges: the CKP header, Markdown sections and fenced code blocks."""

from __future__ import annotations

from lsprotocol import types

from ckp_lsp.core.format.fields import Header
from ckp_lsp.core.format.text import split_lines
from ckp_lsp.core.navigation.outline import outline

from ..state import Doc


def header_fold(header: Header | None) -> tuple[int, int] | None:
    """First and last line of the header: bare, its KEY lines; front matter, fence to fence."""
    if header is None or header.end_line < 2:
        return None
    return 0, header.end_line - 1


def folding_ranges(doc: Doc, text: str) -> list[types.FoldingRange]:
    """The header's range first, then every section and code fence of the body."""
    kf = doc.file
    header = kf.header if kf is not None else None
    out = []
    fold = header_fold(header)
    if fold is not None:
        out.append(
            types.FoldingRange(
                start_line=fold[0],
                end_line=fold[1],
                kind=types.FoldingRangeKind.Region,
                collapsed_text=f"CKP header: {kf.concept}" if kf is not None and kf.concept else "CKP header",
            )
        )
    lines = split_lines(text)
    body = outline(lines, header.end_line if header is not None else 0)
    for h in body.flat():
        if h.end_line > h.line:
            out.append(types.FoldingRange(start_line=h.line, end_line=h.end_line))
    for first, last in body.fences:
        if last > first:
            out.append(types.FoldingRange(start_line=first, end_line=last))
    return out
