"""Positions in the core's own terms: zero-based lines and UTF-16 columns, as LSP counts them."""

from __future__ import annotations

import os
from typing import NamedTuple

from ckp_lsp.core.format.patterns import lazy

BOM = "\ufeff"


class Span(NamedTuple):
    """A range in a document: zero-based lines, UTF-16 columns, end exclusive.

    A tuple, not a dataclass: a bank of 10,000 files holds hundreds of thousands of them.
    """

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    @classmethod
    def on_line(cls, line: int, start: int, end: int) -> Span:
        return cls(line, start, line, end)

    def contains(self, line: int, col: int) -> bool:
        """Whether (line, col) lies inside the span, both ends included (a cursor at the end counts)."""
        if line < self.start_line or line > self.end_line:
            return False
        if line == self.start_line and col < self.start_col:
            return False
        return not (line == self.end_line and col > self.end_col)


def utf16_len(s: str) -> int:
    """Length of ``s`` in UTF-16 code units."""
    if s.isascii():
        return len(s)
    # An editor may send a lone surrogate (JSON allows "\ud800"): one code unit, not an error.
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def utf16_col(line: str, index: int) -> int:
    """UTF-16 column of the code-point ``index`` in ``line``."""
    return index if line.isascii() else utf16_len(line[:index])


def index_of_utf16(line: str, col: int) -> int:
    """Code-point index in ``line`` of the UTF-16 column ``col`` (clamped to the line)."""
    if line.isascii():
        return min(col, len(line))
    units = 0
    for i, ch in enumerate(line):
        if units >= col:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def span_of(line_no: int, line: str, start: int, end: int) -> Span:
    """Span of code points [start, end) of ``line``."""
    if line.isascii():
        return Span(line_no, start, line_no, end)
    return Span(line_no, utf16_col(line, start), line_no, utf16_col(line, end))


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` without their endings (``\\n``, ``\\r\\n`` or a lone ``\\r``)."""
    if "\r" not in text:
        return text.split("\n")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


_LINE_END = lazy(r"\r\n|\r|\n")


def newline_of(text: str) -> str:
    """The line ending ``text`` uses first (``\\n`` when it has none): a lone CR counts too."""
    m = _LINE_END.search(text)
    return m.group() if m else "\n"


def has_lone_cr(text: str) -> bool:
    """Whether a lone CR ends a line of ``text`` (LSP counts it as a line break too)."""
    return "\r" in text and text.count("\r") != text.count("\r\n")


def line_offsets(text: str) -> list[int]:
    """Offset of the start of every line of ``text`` (LF, CRLF and lone CR endings)."""
    if has_lone_cr(text):
        return [0, *(m.end() for m in _LINE_END.finditer(text))]
    offsets = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        offsets.append(i + 1)
        i = find("\n", i + 1)
    return offsets


def decode(data: bytes) -> tuple[str, bool]:
    """Text of ``data`` without a BOM, and whether it was valid UTF-8 (invalid bytes replaced)."""
    try:
        text = data.decode("utf-8")
        ok = True
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        ok = False
    if text.startswith(BOM):
        text = text[1:]
    return text, ok


#: C0 and C1 controls but tab and newline, DEL, bidirectional overrides and isolates, and a
#: carriage return inside a line: shown as ``\uXXXX`` wherever bank text reaches a person
CONTROLS = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def visible_controls(text: str) -> str:
    """``text`` with every control character written as ``\\uXXXX`` (also valid inside JSON):
    what the CLI prints, and what hovers, completion, code actions and diagnostics show."""
    if text.isprintable():
        return text
    return CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: what one read of a file asks for (most knowledge files are smaller)
_CHUNK = 1 << 16


def read_all(fd: int) -> bytes:
    """Every byte left of the open file ``fd``: one read for a small file, the rest in large ones."""
    data = os.read(fd, _CHUNK)
    if len(data) == _CHUNK:  # a large file: read the rest
        chunks = [data]
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        data = b"".join(chunks)
    return data
