"""Replacing a file's header and nothing else: the body stays byte-for-byte identical.

The header keeps its form (bare or front matter), its line endings, the user's own front-matter
keys and any unknown upper-case fields.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ckp_lsp.core.format.fields import CKP_FIELDS, LIST_FIELDS, Header
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.text import line_offsets, newline_of, split_lines

#: a value YAML reads back as written without quotes (a quote inside a word, "service's", is plain)
_PLAIN_YAML = re.compile(r"^[A-Za-z0-9_(][^\n\r{}\[\]`]*$")
_YAML_WORDS = frozenset({"null", "~", "true", "false", "yes", "no", "on", "off"})
#: a character YAML will not read raw (outside its printable set: C0/C1 controls, DEL, U+FFFE,
#: U+FFFF, lone surrogates), a line break of YAML's own (U+0085, U+2028, U+2029) or a BOM
_YAML_ESCAPED = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]"
)


@dataclass(frozen=True)
class HeaderRegion:
    """Where the header ends: the offset and line the body starts at."""

    header: Header | None
    body_offset: int
    body_line: int


def header_region(text: str) -> HeaderRegion:
    """The header of ``text`` (BOM stripped) and where its body begins."""
    header = parse_header(text)
    if header is None:
        return HeaderRegion(None, 0, 0)
    starts = line_offsets(text)
    if header.end_line < len(starts):
        return HeaderRegion(header, starts[header.end_line], header.end_line)
    return HeaderRegion(header, len(text), header.end_line)


def body_of(text: str) -> str:
    """Everything after the header."""
    return text[header_region(text).body_offset :]


def _yaml_scalar(value: str, flow: bool = False) -> str:
    """``value`` as YAML writes it: plain when YAML reads it back unchanged, else double-quoted
    (``flow``: as an item of a ``[a, b]`` list, where a comma would end it), or escaped."""
    if not value:
        return '""'
    if _YAML_ESCAPED.search(value):
        return _escaped(value)
    plain = (
        _PLAIN_YAML.match(value)
        and not value.endswith((" ", ":"))
        and ": " not in value
        and " #" not in value
        and value.lower() not in _YAML_WORDS
        and not (flow and "," in value)
    )
    if plain:
        return value
    return json.dumps(value, ensure_ascii=False)


def _escaped(value: str) -> str:
    """``value`` double-quoted on one line, with YAML's escapes for what YAML will not read raw.

    Control characters are written, escaped (``"a\\x9Bb"``): refusing them is the compiler's rule
    for a model's answer (``compile.answer``); a value kept from the file is the user's and goes
    back as it was read. A lone surrogate becomes ``\\uD800`` as PyYAML writes it; libyaml refuses
    that escape (CKP006), so a compile's check then refuses the header instead of writing it.
    """
    import yaml  # only for the rare value that needs it: most rewrites never load YAML

    dumped: str = yaml.safe_dump(value, default_style='"', allow_unicode=True, width=1 << 30)
    return dumped.rstrip("\n")


def render_header(
    values: dict[str, str | list[str]],
    form: str,
    nl: str,
    header: Header | None = None,
    lines: list[str] | None = None,
) -> str:
    """Header text for ``values`` (CKP fields in SPEC order), ending with a newline.

    With an existing front matter, the user's keys are kept verbatim in their order.
    """
    ordered = [(k, values[k]) for k in CKP_FIELDS if k in values and values[k] not in ("", [])]
    if form == "bare":
        width = max(len(k) for k, _ in ordered) + 2 if ordered else 0
        out = [f"{(k + ':').ljust(width)}{', '.join(v) if isinstance(v, list) else v}" for k, v in ordered]
        out += _kept_bare_fields(header, lines)
        return nl.join(out) + nl
    body = []
    block_style = _block_list_keys(header)
    flow_style = _flow_list_keys(header, lines)
    for k, v in ordered:
        if isinstance(v, list) and k in block_style:
            body.append(f"{k}:")
            body.extend(f"  - {_yaml_scalar(item)}" for item in v)
        elif k in flow_style:  # written ``[a, b]``: kept that way
            items = v if isinstance(v, list) else [i.strip() for i in v.split(",") if i.strip()]
            body.append(f"{k}: [{', '.join(_yaml_scalar(item, flow=True) for item in items)}]")
        else:
            text = ", ".join(v) if isinstance(v, list) else v
            body.append(f"{k}: {_yaml_scalar(text)}")
    before, after = _user_lines(header, lines)
    close = lines[header.end_line - 1] if header is not None and lines and header.end_line > 0 else "---"
    return nl.join(["---", *before, *body, *after, close]) + nl


def _kept_bare_fields(header: Header | None, lines: list[str] | None) -> list[str]:
    """Upper-case fields that are not CKP's: the user's, kept as written."""
    if header is None or lines is None or header.form != "bare":
        return []
    return [lines[f.line] for f in header.fields if f.key not in CKP_FIELDS]


def _flow_list_keys(header: Header | None, lines: list[str] | None) -> set[str]:
    """The list fields of a front matter written as a flow list on their key's line, ``KEY: [a, b]``."""
    if header is None or lines is None or header.form != "frontmatter":
        return set()
    return {
        f.key
        for f in header.fields
        if f.key in LIST_FIELDS and lines[f.line].partition(":")[2].lstrip().startswith("[")
    }


def _block_list_keys(header: Header | None) -> set[str]:
    if header is None or header.form != "frontmatter":
        return set()
    return {f.key for f in header.fields if f.key in LIST_FIELDS and f.value_span.end_line > f.line}


def _user_lines(header: Header | None, lines: list[str] | None) -> tuple[list[str], list[str]]:
    """The front matter's lines that are not a CKP field's (user keys, comments): before and after them."""
    if header is None or lines is None or header.form != "frontmatter":
        return [], []
    owned: set[int] = set()
    for f in header.fields:
        if f.key in CKP_FIELDS:
            owned.update(range(f.line, max(f.line, f.value_span.end_line) + 1))
    first = min(owned) if owned else header.end_line
    kept = [i for i in range(1, header.end_line - 1) if i not in owned]
    return [lines[i] for i in kept if i < first], [lines[i] for i in kept if i > first]


def replace_header(
    text: str, values: dict[str, str | list[str]], default_form: str = "bare"
) -> tuple[str, str]:
    """``(new header text, the text it replaces)``: ``text`` = old + body, new + body is the result."""
    region = header_region(text)
    nl = newline_of(text)
    header = region.header
    form = header.form if header is not None else default_form
    lines = split_lines(text[: region.body_offset]) if header is not None else None
    new = render_header(values, form, nl, header, lines)
    old = text[: region.body_offset]
    if header is None or (region.body_offset == len(text) and not text.endswith(("\n", "\r"))):
        # No header before (or nothing after it): keep a blank line between header and body.
        if header is None:
            new += nl if text and not text.startswith(("\n", "\r\n")) else ""
        else:
            new = new[: -len(nl)]
    return new, old
