"""The edits that turn one text into another, one per run of changed lines: an editor shows each
as a readable change (VS Code's Refactor Preview, a diff), and keeps its marks on the lines the
two texts share."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from ckp_lsp.core.edit.fixes import Edit, apply_edits
from ckp_lsp.core.format.text import Span, utf16_len

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # a line with its ending, as LSP counts lines


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def line_edits(old: str, new: str) -> list[Edit]:
    """Edits of the text ``old`` (at the top of a document: positions from its line 0) that make it
    ``new``: each replaces, inserts or deletes whole lines, and lines both share stay untouched.

    ``old`` may end inside a line (the document goes on after it): an edit reaching its end stops
    there. The edits are checked to give ``new``; if they ever did not, one edit replaces it all.
    """
    a, b = _lines(old), _lines(new)

    def start_of(k: int) -> tuple[int, int]:
        """Where line ``k`` of ``old`` starts; for ``k == len(a)``, where ``old`` ends."""
        if k < len(a) or not a:
            return (k, 0)
        last = a[-1]
        return (k, 0) if last.endswith(("\n", "\r")) else (k - 1, utf16_len(last))

    edits: list[Edit] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        (sl, sc), (el, ec) = start_of(i1), start_of(i2)
        edits.append(Edit(Span(sl, sc, el, ec), "".join(b[j1:j2])))
    if apply_edits(old, edits) != new:
        end = start_of(len(a))
        return [Edit(Span(0, 0, end[0], end[1]), new)]
    return edits
