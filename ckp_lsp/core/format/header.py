"""The CKP header of SPEC §2: ``parse_header`` reads either form, the bare one here and front
matter in ``front_matter``, with the position of every key, value and item.

Parsing never raises: a YAML error or an unclosed front matter is recorded on the header.
"""

from __future__ import annotations

from ckp_lsp.core.format.fields import BARE_KEY, LIST_FIELDS, Field, Header, Item, _span, _split_items
from ckp_lsp.core.format.text import span_of, split_lines


def parse_header(text: str) -> Header | None:
    """The header of a knowledge file (BOM already stripped), or None when it has none."""
    if text.startswith("---"):
        lines = split_lines(text)
        if lines[0].rstrip() == "---":
            from ckp_lsp.core.format.front_matter import (
                _parse_front_matter,  # on first use: most banks have none
            )

            return _parse_front_matter(lines)
        return None
    if not BARE_KEY.match(text):
        return None
    return _parse_bare(text)


def _bare_field(line_no: int, line: str, colon: int) -> Field:
    key = line[:colon]
    rest = line[colon + 1 :]
    value = rest.strip()
    start = colon + 1 + len(rest) - len(rest.lstrip())
    end = start + len(value)
    if line.isascii():
        key_span = _span((line_no, 0, line_no, colon))
        vspan = _span((line_no, start, line_no, end) if value else (line_no, colon + 1, line_no, colon + 1))
    else:
        key_span = span_of(line_no, line, 0, colon)
        vspan = span_of(line_no, line, start, end) if value else span_of(line_no, line, colon + 1, colon + 1)
    if key in LIST_FIELDS:
        items = _split_items(line_no, line, start, end)
    else:
        items = [Item(value, vspan)] if value else []
    return Field(key, key_span, value, vspan, items, line_no)


def _parse_bare(text: str) -> Header:
    header = Header("bare")
    # Only the header lines are split: bodies can be large and are never needed here.
    pos, line_no, n = 0, 0, len(text)
    match = BARE_KEY.match
    while pos < n:
        nl = text.find("\n", pos)
        stop = n if nl < 0 else nl
        line = text[pos:stop]
        cr = line.find("\r")
        if 0 <= cr < len(line) - 1:  # a lone CR ends a line too, as editors count lines
            line, nl = line[:cr], pos + cr
        elif cr >= 0:
            line = line[:-1]
        m = match(line)
        if not m:
            break
        header.fields.append(_bare_field(line_no, line, m.end() - 1))
        line_no += 1
        if nl < 0:
            break
        pos = nl + 1
    header.end_line = line_no
    return header
