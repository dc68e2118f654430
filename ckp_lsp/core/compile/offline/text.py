"""Reading a Markdown body: clean-up, blocks (a small CommonMark subset) and plain text.

Forgiving by design: any text is read into blocks, never an error. Code keeps its lines; other
blocks also carry their plain text (inline Markdown removed).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ckp_lsp.core.format.fields import bare_header_end

#: a character of Chinese or Japanese (kana and ideographs), written without spaces between words
CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")

# Text clean-up
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\u200b-\u200d\u2060]")
_LINE_BREAKS = re.compile(r"\r\n?|[\x85\u2028\u2029]")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
WS = re.compile(r"\s+")

# Block structure
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_ATX_CLOSE = re.compile(r"(?<![ \t])[ \t]+#+[ \t]*$")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
#: the patterns below start where a run of blanks starts: searched, they stay linear
_ITEM = re.compile(r"(?<![ \t])[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_TASK = re.compile(r"\[[ xX]\][ \t]+")
_QUOTE = re.compile(r"(?<![ \t])(?:[ \t]*>)+[ \t]?")
_CALLOUT = re.compile(r"\[![A-Za-z]+\][+-]?")
_TABLE_SEP = re.compile(r"(?<![ \t])[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+(?:\|[ \t]*)?$")
_HTML_LINE = re.compile(r"(?<![ \t])[ \t]*<[A-Za-z/!?][^\n]*>[ \t]*$")
_REF_DEF = re.compile(r" {0,3}\[[^\]\n]{1,200}\]:[ \t]*\S")
_YAML_KEY = re.compile(r"(?<![\w.-])[\w.-]+[ \t]*:(?:[ \t]|$)")
_YAML_LINE = re.compile(r"(?<![ \t\w.-])[ \t]*(?:[\w.-]+[ \t]*:|-[ \t]|#)|[ \t]")

# Inline Markdown
#: the longest code span read (its content, in characters): as before a regular expression did
MAX_CODE_SPAN = 300
IMAGE = re.compile(r"!\[[^\[\]\n]{0,300}\]\([^()\n]{0,500}\)")
LINK = re.compile(r"\[([^\[\]\n]{0,300})\]\(([^()\s]{0,500})(?:[ \t]+\"[^\"\n]{0,300}\")?\)")
_REF_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\[[^\[\]\n]{0,300}\]")
WIKI_LINK = re.compile(r"\[\[([^\[\]|\n]{1,200})(?:\|([^\[\]\n]{1,200}))?\]\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]{1,500})>")
URL = re.compile(
    r"\b(?:https?|ftp)://\S{1,500}|\bwww\.\S{1,500}"
    r"|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+"
)
_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,500}>")
_FOOTNOTE = re.compile(r"\[\^[^\[\]\n]{0,100}\]")
STRONG = re.compile(r"\*\*(?=\S)([^*\n]{1,300}?)(?<=\S)\*\*|__(?=\S)([^_\n]{1,300}?)(?<=\S)__")
_EMPH = re.compile(
    r"(?<![\w*])\*(?=\S)([^*\n]{1,300}?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_\n]{1,300}?)(?<=\S)_(?!\w)"
)
_STRIKE = re.compile(r"~~([^~\n]{1,300})~~")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")


@dataclass(frozen=True)
class Block:
    """One block of the body: its kind and its Markdown text (code keeps its lines)."""

    kind: str  # heading | paragraph | quote | item | table | code
    text: str
    plain: str = ""  # plain text; without code spans except in headings; '' for code
    level: int = 0  # a heading's level (1 for `#`); a list item's indent (0 at the margin)


@dataclass(frozen=True)
class Segment:
    """A run of body text in which concept names are looked for."""

    text: str
    emphatic: bool  # a heading or a code span: a name here is named on purpose


def clean(text: str) -> str:
    """Normalise line breaks and drop control characters, BOMs and HTML comments."""
    text = _LINE_BREAKS.sub("\n", text)
    text = _CONTROL.sub("", text)
    return _COMMENT.sub(lambda m: "\n" if "\n" in m.group() else " ", text)


def preamble_end(lines: list[str]) -> int:
    """Index of the first line after a front-matter or bare-header remnant at the top."""
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and (lines[i].strip() == "---" or _YAML_KEY.match(lines[i])):
        first = i + 1 if lines[i].strip() == "---" else i  # a remnant may have lost its opening
        for j in range(first, min(len(lines), i + 200)):
            if lines[j].strip() in ("---", "..."):
                if all(not s.strip() or _YAML_LINE.match(s) for s in lines[first:j]):
                    i = j + 1
                break
    return bare_header_end(lines, i)


def parse(lines: list[str]) -> list[Block]:
    """Split Markdown lines into blocks (a small CommonMark subset, forgiving by design)."""
    parser = _Parser()
    for line in lines:
        parser.feed(line)
    parser.flush()
    return parser.blocks


class _Parser:
    """Line-by-line block reader: the open block's kind and lines, and any open code fence."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.pending: list[str] = []
        self.kind = "paragraph"
        self.fence = ""
        self.indent = 0  # the open list item's indent

    def flush(self, next_kind: str = "paragraph") -> None:
        """Close the open block and start one of `next_kind`."""
        if self.pending:
            if self.kind == "code":
                self.blocks.append(Block("code", "\n".join(self.pending)))
            elif any(line.strip() for line in self.pending):
                text = " ".join(self.pending)
                level = self.indent if self.kind == "item" else 0
                self.blocks.append(Block(self.kind, text, plain(text, code=self.kind == "heading"), level))
            self.pending = []
        self.kind = next_kind

    def feed(self, line: str) -> None:
        """Read one line."""
        if self.fence:
            stripped = line.strip()
            if stripped.startswith(self.fence) and not stripped.strip(self.fence[0]):
                self.flush()
                self.fence = ""
            else:
                self.pending.append(line)
        elif fence := _FENCE.match(line):
            self.flush("code")
            self.fence = fence.group(1)
        elif not line.strip():
            self.flush()
        elif not self._structure(line):
            self._text(line)

    def _structure(self, line: str) -> bool:
        """Handle a heading, rule, table, HTML or link-definition line; False for other lines."""
        if self.kind == "code" and self.pending and _indented(line):
            self.pending.append(line)
        elif heading := _ATX.match(line):
            self.flush()
            title = _ATX_CLOSE.sub("", heading.group(2) or "").strip()
            self.blocks.append(Block("heading", title, plain(title), len(heading.group(1))))
        elif _SETEXT.match(line) and self.kind == "paragraph" and self.pending:
            self.kind = "heading"
            self.flush()
        elif _BREAK.match(line) or _HTML_LINE.match(line) or _REF_DEF.match(line):
            self.flush()
        elif _TABLE_SEP.match(line):
            if self.kind == "paragraph" and self.pending and "|" in self.pending[-1]:
                self.kind = "table"
            elif self.kind != "table":
                self.flush("table")
        elif line.lstrip().startswith("|") or (self.kind == "table" and "|" in line):
            if self.kind != "table":
                self.flush("table")
            self.pending.append(line.replace("|", " "))
        else:
            return False
        return True

    def _text(self, line: str) -> None:
        """Handle a list item, quote, indented code or paragraph line."""
        if item := _ITEM.match(line):
            self.flush("item")
            self.indent = len(line) - len(line.lstrip(" \t"))
            self.pending.append(_TASK.sub("", item.group(1) or "", count=1))
        elif _QUOTE.match(line):
            if self.kind != "quote":
                self.flush("quote")
            self.pending.append(_CALLOUT.sub("", _QUOTE.sub("", line, count=1)))
        elif not self.pending and _indented(line) and self._after_blank_not_item():
            self.flush("code")
            self.pending.append(line)
        else:
            if self.kind in ("table", "code"):
                self.flush()
            self.pending.append(line)

    def _after_blank_not_item(self) -> bool:
        """Whether an indented line here starts code rather than continuing a list item."""
        return not (self.blocks and self.blocks[-1].kind == "item")


def _indented(line: str) -> bool:
    """Whether a line is indented enough to be code."""
    return line.startswith(("    ", "\t"))


def plain(md: str, *, code: bool = True, local_links: bool = True) -> str:
    """Markdown inline text to plain text; code spans and local link texts can be dropped."""
    spans: list[str] = []

    text = _replace_code_spans(md, spans) if "`" in md else md
    if "[" in text:
        text = IMAGE.sub(" ", text)
        text = WIKI_LINK.sub(lambda m: (m.group(2) or m.group(1)) if local_links else " ", text)
        text = LINK.sub(lambda m: _link_text(m, local_links), text)
        text = _REF_LINK.sub(r"\1", text)
        text = _FOOTNOTE.sub("", text)
    if "<" in text:
        text = _TAG.sub(" ", _AUTOLINK.sub(r"\1", text))
    if "*" in text or "_" in text:
        text = STRONG.sub(emphasised, text)
        text = _EMPH.sub(emphasised, text).replace("**", "")
    if "~~" in text:
        text = _STRIKE.sub(r"\1", text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    if "&" in text:
        text = html.unescape(text)
    if spans:
        text = _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))] if code else " · ", text)
    return WS.sub(" ", text).strip()


def emphasised(m: re.Match[str]) -> str:
    """The text inside an emphasis match (one of its two alternatives)."""
    return m.group(1) or m.group(2) or ""


def _link_text(m: re.Match[str], local_links: bool) -> str:
    """A link's text, or a blank for a link to a local Markdown file when those are dropped."""
    if not local_links and link_stem(m.group(2)):
        return " "
    return m.group(1)


def link_stem(target: str) -> str:
    """The case-folded file stem of a link to a local Markdown file, or ''."""
    if "://" in target or target.startswith(("mailto:", "#")):
        return ""
    path = re.split(r"[#?]", target, maxsplit=1)[0]
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    for ext in (".md", ".markdown"):
        if name.casefold().endswith(ext):
            return name[: -len(ext)].casefold()
    return ""


def local_links(texts: Iterable[str]) -> Counter[str]:
    """Count links to local Markdown files and wiki links, by case-folded target stem."""
    found: Counter[str] = Counter()
    for text in texts:
        for m in LINK.finditer(text):
            stem = link_stem(m.group(2))
            if stem:
                found[stem] += 1
        for m in WIKI_LINK.finditer(text):
            target = m.group(1).split("#", 1)[0].strip().replace("\\", "/").rsplit("/", 1)[-1]
            stem = target[:-3] if target.casefold().endswith(".md") else target
            if stem:
                found[stem.casefold()] += 1
    return found


def inline_code(md: str) -> list[str]:
    """The contents of the inline code spans of a Markdown text."""
    return [md[a:b].strip() for _start, a, b, _end in code_spans(md)]


def code_spans(md: str) -> Iterator[tuple[int, int, int, int]]:
    """(start, content start, content end, end) of each inline code span, left to right.

    A span opens with a run of k backticks, holds 1 to ``MAX_CODE_SPAN`` characters that are no
    backtick nor line break, and closes with k backticks (k: the shorter of the two runs, the
    opening one taken from its end). One pass over the text, each character looked at a bounded
    number of times: a regular expression backtracked over every length of a long backtick run,
    quadratic in it (20 KB of backticks took 20 s).
    """
    n = len(md)
    i = md.find("`")
    while 0 <= i < n:
        run_end = i
        while run_end < n and md[run_end] == "`":
            run_end += 1
        close = md.find("`", run_end)
        if close < 0:
            return
        content = md[run_end:close]
        if not 0 < len(content) <= MAX_CODE_SPAN or "\n" in content:
            i = close  # no span opens with this run: the next run may open one
            continue
        close_end = close
        while close_end < n and md[close_end] == "`" and close_end - close < run_end - i:
            close_end += 1
        k = close_end - close
        yield run_end - k, run_end, close, close_end
        i = close_end if close_end < n and md[close_end] == "`" else md.find("`", close_end)


def _replace_code_spans(md: str, spans: list[str]) -> str:
    """``md`` with each code span replaced by a placeholder; its content goes to ``spans``."""
    out: list[str] = []
    at = 0
    for start, a, b, end in code_spans(md):
        spans.append(md[a:b].strip())
        out.append(md[at:start])
        out.append(f"\x00{len(spans) - 1}\x00")
        at = end
    out.append(md[at:])
    return "".join(out)


# ---------------------------------------------------------------- TLDR


def segments(blocks: list[Block]) -> list[Segment]:
    """The body's text for finding concept names: headings and code spans are emphatic."""
    found: list[Segment] = []
    for block in blocks:
        if block.kind == "code":
            continue
        has_local = "[[" in block.text or ".md" in block.text or ".markdown" in block.text
        text = plain(block.text, code=False, local_links=False) if has_local else block.plain
        found.append(Segment(text, block.kind == "heading"))
        if block.kind != "heading":
            found.extend(Segment(code, True) for code in inline_code(block.text))
    return found
