"""The YAML front-matter form of a header (SPEC §2), with the position of every key, value and item; an error is recorded on the header, never raised."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from typing import Any

from ckp_lsp.core.format.fields import FIELD_KEY, LIST_FIELDS, Field, Header, Item, _split_items
from ckp_lsp.core.format.text import Span, span_of


@functools.cache
def _yaml() -> tuple[Any, Any]:
    """The front-matter loader and a safe YAML loader class that keeps every scalar but null a
    string (dates stay as written); imported on first use, as most banks have no front matter."""
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    from ckp_lsp.core.format.yaml_load import guarded_loader

    base = guarded_loader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader)

    class StringLoader(base):  # type: ignore[valid-type,misc]
        pass

    StringLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag == "tag:yaml.org,2002:null"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return YAMLHandler(), StringLoader


_MAX_MISSES = 32


def _as_text(value: Any, nested: bool = False) -> str:
    if value is None:
        return ""
    if isinstance(value, list) and not nested:
        return ", ".join(_as_text(v, True) for v in value)
    if isinstance(value, (list, dict)):
        return _short(value)
    return str(value).strip()


def _short(value: Any, depth: int = 0) -> str:
    """A nested list or mapping (not a CKP value) shown briefly: one level, four items.

    Bounded even when YAML aliases nest a list in itself many times over ("billion laughs").
    """
    if isinstance(value, dict):
        if depth >= 1:
            return "{…}"
        shown = [f"{k}: {_short(v, depth + 1)}" for k, v in itertools.islice(value.items(), 4)]
        return "{" + ", ".join(shown) + (", …" if len(value) > 4 else "") + "}"
    if isinstance(value, list):
        if depth >= 1:
            return "[…]"
        shown = [_short(v, depth + 1) for v in value[:4]]
        return "[" + ", ".join(shown) + (", …" if len(value) > 4 else "") + "]"
    return "null" if value is None else str(value)[:80]


class _Marks:
    """Converts a YAML mark to (line, code-point column) in ``lines``, the document's lines.

    YAML also ends lines at U+0085, U+2028 and U+2029, which LSP (and ``split_lines``) treat as
    ordinary characters: a mark's own line and column would then point at the wrong line. Its
    ``index`` into the front-matter text does not depend on what counts as a line break.
    """

    def __init__(self, lines: list[str], close: int) -> None:
        self.starts = list(itertools.accumulate((len(line) + 1 for line in lines[1 : close - 1]), initial=0))

    def at(self, mark: Any) -> tuple[int, int]:
        n = max(bisect.bisect_right(self.starts, mark.index) - 1, 0)
        return n + 1, mark.index - self.starts[n]  # the YAML starts below the opening ---


def _parse_front_matter(lines: list[str]) -> Header:
    header = Header("frontmatter")
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if close is None:
        header.end_line = len(lines)
        header.yaml_error = (
            "the front matter is not closed: add a line '---' after the header",
            Span.on_line(0, 0, 3),
        )
        return header
    header.end_line = close + 1
    surrogate = _lone_surrogate(lines, close)
    if surrogate is not None:
        header.yaml_error = surrogate
        return header
    import yaml

    _handler, loader = _yaml()
    marks = _Marks(lines, close)
    try:
        # Composed, then constructed: the nodes say where each value and item is (never a search).
        reader = loader("\n".join(lines[1:close]))
        try:
            root = reader.get_single_node()
            data = reader.construct_document(root) if root is not None else None
        finally:
            reader.dispose()
    except (yaml.YAMLError, RecursionError) as exc:  # the pure-Python loader recurses
        header.yaml_error = _yaml_problem(exc, lines, close, marks)
        return header
    if data is None:
        data = {}
    if not isinstance(data, dict):
        header.yaml_error = (
            "the front matter is not a mapping of KEY: value lines: rewrite it as one",
            Span.on_line(1, 0, len(lines[1])) if close > 1 else Span.on_line(0, 0, 3),
        )
        return header
    # The keys of the top-level mapping, where YAML found them (a "KEY:" inside a quoted value
    # spanning lines is no key).
    keys = [
        (*marks.at(k.start_mark), k.value, marks.at(k.end_mark), v)
        for k, v in getattr(root, "value", ())
        if isinstance(k, yaml.ScalarNode) and k.start_mark.column == 0 and isinstance(k.value, str)
    ]
    for n, (i, key_col, key, (end_line, key_end), node) in enumerate(keys):
        if not FIELD_KEY.match(key):
            header.user_keys.append(key)
            continue
        next_key = keys[n + 1][0] if n + 1 < len(keys) else close
        if end_line != i:
            key_end = len(lines[i])
        colon_end = lines[i].find(":", key_end) + 1 or len(lines[i])
        region_end = _owned_end(lines, i, next_key)
        header.fields.append(
            _fm_field(lines, i, key_col, colon_end, key, data.get(key), region_end, node, marks)
        )
    return header


#: what YAML was reading when it failed -> what the user left open
_UNCLOSED = {
    "while parsing a flow sequence": "the '[' here is not closed",
    "while parsing a flow mapping": "the '{' here is not closed",
    "while scanning a quoted scalar": "the quote here is not closed",
}


#: a UTF-16 half on its own: an editor buffer can hold one, libyaml cannot encode it
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(lines: list[str], close: int) -> tuple[str, Span] | None:
    """CKP006's message and span for the first lone surrogate of the front matter, if any."""
    for n in range(1, close):
        found = _SURROGATE.search(lines[n])
        if found is not None:
            code = f"U+{ord(found.group()):04X}"
            return (
                f"the front matter is not valid YAML (a lone surrogate {code} is no character): "
                "delete it or write the whole character",
                span_of(n, lines[n], found.start(), found.end()),
            )
    return None


def _yaml_problem(exc: Exception, lines: list[str], close: int, marks: _Marks) -> tuple[str, Span]:
    """CKP006's message and span. An unclosed ``[``, ``{`` or quote is reported where it opens:
    YAML notices it only further down, where the user did nothing wrong."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    opened = _UNCLOSED.get(getattr(exc, "context", None) or "")
    mark = getattr(exc, "context_mark", None) if opened else None
    if mark is None:
        mark = getattr(exc, "problem_mark", None)
    else:
        problem = f"{opened}: {problem}"
    line, col = marks.at(mark) if mark is not None else (1, 0)
    line = min(max(line, 1), close - 1) if close > 1 else 0
    start = min(col, len(lines[line])) if opened and mark is not None else 0
    return (
        f"the front matter is not valid YAML ({problem}): fix the YAML so the header can be read",
        span_of(line, lines[line], start, len(lines[line])),
    )


def _owned_end(lines: list[str], key_line: int, limit: int) -> int:
    """The line after a key's value: its key line, then its indented (or blank) continuation lines."""
    end = key_line + 1
    for j in range(key_line + 1, limit):
        line = lines[j]
        if not line.strip():
            continue
        if line[0] not in " \t":
            break  # a top-level comment: not this value's
        end = j + 1
    return end


def _fm_field(
    lines: list[str],
    line_no: int,
    key_col: int,
    colon_end: int,
    key: str,
    value: Any,
    region_end: int,
    node: Any,
    marks: _Marks,
) -> Field:
    line = lines[line_no]
    key_span = span_of(line_no, line, key_col, min(key_col + len(key), len(line)))
    inline_end = len(line.rstrip())
    inline_start = colon_end
    while inline_start < inline_end and line[inline_start].isspace():
        inline_start += 1
    if line.startswith("#", inline_start):
        inline_end = inline_start  # a comment, not a value
    last = region_end - 1
    if last > line_no:  # a block list, a folded scalar, or a flow list over several lines
        start = inline_start if inline_end > inline_start else min(key_col + len(key) + 1, len(line))
        vspan = Span(line_no, span_of(line_no, line, start, start).start_col, last, len(lines[last]))
    elif inline_end > inline_start:
        vspan = span_of(line_no, line, inline_start, inline_end)
    else:
        vspan = key_span
    if isinstance(value, list):
        texts = [_as_text(v, True) for v in value]
    elif key in LIST_FIELDS:
        texts = [t.strip() for t in _as_text(value).split(",")]
    else:
        texts = [_as_text(value)]
    texts = [t for t in texts if t]
    items = _items_of(lines, key, node, value, vspan, marks) if node is not None else None
    if items is None:
        items = _locate(lines, line_no, inline_start, region_end, texts, vspan)
    return Field(key, key_span, _as_text(value), vspan, items, line_no)


def _items_of(
    lines: list[str], key: str, node: Any, value: Any, fallback: Span, marks: _Marks
) -> list[Item] | None:
    """Items at the positions YAML gives. An item whose text is not where its value is written
    (an escape, a folded line, a nested list or mapping) gets ``fallback`` and ``placed=False``:
    no fix edits it. None: not a node this function knows (the search is used)."""
    import yaml

    if isinstance(node, yaml.SequenceNode):
        items = []
        for child, v in zip(node.value, value if isinstance(value, list) else [], strict=False):
            text = _as_text(v, True)
            if not text:
                continue
            got = _scalar_span(lines, child, marks)
            if got is None:
                items.append(Item(text, fallback, placed=False))
            else:
                span, quoted, raw = got
                items.append(Item(text, span, quoted, placed=raw == text))
        return items
    if isinstance(node, yaml.ScalarNode):
        text = _as_text(value)
        if not text:
            return []
        got = _scalar_span(lines, node, marks)
        if got is None or got[2] != (value if isinstance(value, str) else text):
            texts = [t.strip() for t in text.split(",")] if key in LIST_FIELDS else [text]
            return [Item(t, fallback, placed=False) for t in texts if t]
        span, quoted, _raw = got
        line_no = span.start_line
        line = lines[line_no]
        start = marks.at(node.start_mark)[1] + (quoted is not None)
        end = marks.at(node.end_mark)[1] - (quoted is not None)
        if key in LIST_FIELDS:
            return _split_items(line_no, line, start, end)
        lead = len(line[start:end]) - len(line[start:end].lstrip())
        trail = len(line[start:end]) - len(line[start:end].rstrip())
        return [Item(text, span_of(line_no, line, start + lead, end - trail), quoted)]
    if isinstance(node, yaml.MappingNode):
        return [Item(_as_text(value), fallback, placed=False)]  # the user's own mapping: never edited
    return None


def _scalar_span(lines: list[str], node: Any, marks: _Marks) -> tuple[Span, Span | None, str] | None:
    """(span of the value, span with its quotes, the text written there) of a one-line scalar."""
    import yaml

    if not isinstance(node, yaml.ScalarNode) or node.style not in (None, "", '"', "'"):
        return None  # a block scalar (| or >): its text is not written as it reads
    line_no, a = marks.at(node.start_mark)
    end_line, b = marks.at(node.end_mark)
    if end_line != line_no or line_no >= len(lines):
        return None
    line = lines[line_no]
    if not node.style:  # plain (the C loader says "", the Python one None)
        return span_of(line_no, line, a, b), None, line[a:b]
    return span_of(line_no, line, a + 1, b - 1), span_of(line_no, line, a, b), line[a + 1 : b - 1]


def _locate(
    lines: list[str], line_no: int, col: int, region_end: int, texts: list[str], fallback: Span
) -> list[Item]:
    """Items with spans found by searching their text forward through the field's lines."""
    items = []
    cur_line, cur_col = line_no, col
    misses = 0
    for t in texts:
        found = None
        probe = t.split("\n", 1)[0]
        # A text YAML rewrote (escapes, folding) is not in the lines: each miss reads the rest of
        # the field, so after a few the rest get the fallback span (a hostile file stays linear).
        for i in range(cur_line, region_end if misses < _MAX_MISSES else cur_line):
            start = cur_col if i == cur_line else 0
            j = lines[i].find(probe, start)
            if j >= 0:
                found = (i, j)
                break
        if found is None:
            misses += 1
            items.append(Item(t, fallback))
            continue
        i, j = found
        line, k = lines[i], j + len(probe)
        quoted = None
        if j > 0 and k < len(line) and line[j - 1] == line[k] and line[k] in "'\"":
            quoted = span_of(i, line, j - 1, k + 1)
        items.append(Item(t, span_of(i, line, j, k), quoted))
        cur_line, cur_col = i, k + (quoted is not None)
    return items
