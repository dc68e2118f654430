"""The outline of a Markdown body: ATX headings with their sections, and fenced code blocks."""

from __future__ import annotations

import re

from ckp_lsp.core.format.records import Record
from ckp_lsp.core.format.text import Span, span_of

_ATX = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|$)")
_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


class Heading(Record):
    """An ATX heading and its section, which runs to the line before the next heading of its level or above."""

    _fields = ("level", "text", "line", "span", "end_line", "children")
    __slots__ = _fields

    def __init__(
        self,
        level: int,
        text: str,
        line: int,
        span: Span,  # of the heading's text (the ``#`` marks when it has none)
        end_line: int = 0,  # last non-blank line of the section
        children: list[Heading] | None = None,
    ) -> None:
        self.level = level
        self.text = text
        self.line = line
        self.span = span
        self.end_line = end_line
        self.children: list[Heading] = [] if children is None else children


class Outline(Record):
    """Headings (top level, children nested) and fenced code blocks as (first, last) lines."""

    _fields = ("headings", "fences")
    __slots__ = _fields

    def __init__(
        self, headings: list[Heading] | None = None, fences: list[tuple[int, int]] | None = None
    ) -> None:
        self.headings: list[Heading] = [] if headings is None else headings
        self.fences: list[tuple[int, int]] = [] if fences is None else fences

    def flat(self) -> list[Heading]:
        out: list[Heading] = []
        stack = list(reversed(self.headings))
        while stack:
            h = stack.pop()
            out.append(h)
            stack.extend(reversed(h.children))
        return out


def outline(lines: list[str], start: int = 0) -> Outline:
    """The outline of ``lines[start:]``; a ``#`` inside a fenced code block is not a heading."""
    found: list[Heading] = []
    fences: list[tuple[int, int]] = []
    fence: tuple[str, int, int] | None = None  # marker char, length, opening line
    for n in range(start, len(lines)):
        line = lines[n]
        m = _FENCE.match(line)
        if fence is not None:
            char, length, opened = fence
            if m and m.group(1)[0] == char and len(m.group(1)) >= length and not m.group(2).strip():
                fences.append((opened, n))
                fence = None
            continue
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = (m.group(1)[0], len(m.group(1)), n)
            continue
        h = _heading(n, line)
        if h is not None:
            found.append(h)
    if fence is not None:
        fences.append((fence[2], len(lines) - 1))
    _close_sections(found, lines)
    return Outline(_nest(found), fences)


def _heading(n: int, line: str) -> Heading | None:
    m = _ATX.match(line)
    if m is None:
        return None
    rest_start = m.end()
    rest = _CLOSING.sub("", line[rest_start:])
    a = rest_start + len(rest) - len(rest.lstrip())
    b = rest_start + len(rest.rstrip())
    if b <= a:
        return Heading(len(m.group(1)), m.group(1), n, span_of(n, line, m.start(1), m.end(1)))
    return Heading(len(m.group(1)), line[a:b], n, span_of(n, line, a, b))


def _close_sections(found: list[Heading], lines: list[str]) -> None:
    """Ends each heading's section before the next heading of its level or above (blank lines
    left out). One backward pass: ``later`` holds the headings after ``h`` that can still end a
    section before it (a deeper one behind a shallower one never can), so this is linear."""
    later: list[Heading] = []
    for h in reversed(found):
        while later and later[-1].level > h.level:
            later.pop()
        nxt = later[-1].line if later else len(lines)
        later.append(h)
        end = nxt - 1
        while end > h.line and not lines[end].strip():
            end -= 1
        h.end_line = end


def _nest(found: list[Heading]) -> list[Heading]:
    top: list[Heading] = []
    stack: list[Heading] = []
    for h in found:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        (stack[-1].children if stack else top).append(h)
        stack.append(h)
    return top
