"""The offline compiler (SPEC §7): a deterministic, no-network header from a Markdown body.

It reads the body as blocks (headings, paragraphs, list items, quotes, tables, code), takes the
first explanatory sentence as TLDR, ranks the body's terms, headings and code identifiers as
ANSWERS_WHEN, and relates the bank's other concepts by explicit mention and keyword overlap.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ckp_lsp.core.compile.model import Answer, CompileInput, ConceptSummary

MAX_TLDR = 200
MAX_KEYWORDS = 15
MIN_KEYWORDS = 5
MAX_HIGH = 3
MAX_MID = 5
MAX_BODY = 100_000  # only the head of a huge body is read: bounded time on any input

_KEYWORD_THRESHOLD = 2.0  # past MIN_KEYWORDS, a term must weigh this much to be kept
_MAX_IDENTIFIERS = 6
_PROFILE_SIZE = 40  # the body's strongest terms, against which other concepts are compared
_HIGH_OVERLAP = 0.45  # an explicit single mention with this much keyword overlap is HIGH
_OVERLAP = 0.25  # repeated explicit mentions with this much overlap are HIGH; no mention: MID
_HIGH_PROSE = 800  # prose characters for CONFIDENCE high
_LOW_WORDS = 8  # fewer words than this in the whole body is CONFIDENCE low

_STOP_TEXT = """
    a about above after again against all almost along already also although always am among an
    and another any anyone anything are aren't around as at be became because become becomes been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't done down during each either else enough etc even ever every everything
    few for from further get gets getting give given gives go goes going gone got had hadn't has
    hasn't have haven't having he her here hers herself him himself his how however i if in into
    is isn't it it's its itself just keep keeps kept know known let lets like likely made make
    makes making many may maybe me might mine more most much must my myself need needed needs
    neither never new next no nor not nothing now of off often on once one only onto or other
    others otherwise our ours ourselves out over own per perhaps put quite rather really same see
    seen set sets several shall she should shouldn't show shows since so some something sometimes
    still such take takes than that that's the their theirs them themselves then there there's
    therefore these they thing things this those though through thus to together too took toward
    towards two under until up upon us use used uses using usually very via want wants was wasn't
    way ways we well were weren't what what's when where whether which while who whom whose why
    will with within without won't would wouldn't yes yet you your yours yourself yourselves
    able across actually add added adds allow allows already anyway based basically better
    call called calls case cases certain change changes come comes contain contains could
    different does done easy either example examples first following follows found full good
    great help here's high however important include included includes including instead
    kind last later least less lot lots low main mean means mostly must near nearly note notes
    number numbers okay ok part parts possible probably provide provides real reason right run
    runs say says second simple simply since small start started step steps sure three today
    true false try tries turn type types typically used useful value values whatever work works
    working write written wrong yet zero
    data info information
    overview introduction intro summary background reference references contents toc todo faq
    misc appendix detail details section sections chapter see also tldr eg ie vs cf
    http https www com org html md
    pitfalls checklist responsibilities rule rules conventions guideline guidelines limitation
    limitations caveat caveats status goal goals context decision decisions prerequisite
    prerequisites tip tips gotcha gotchas link links resource resources glossary history
    changelog roadmap idea ideas question questions answer answers problem problems solution
    solutions approach option options choice choices alternative alternatives pro pros con cons
    time times day days week weeks month months year years date dates old level levels name names
    page pages text item items list lists default version versions line lines end side top
    bottom left rest point points place order stuff anything everything someone
    monday tuesday wednesday thursday friday saturday sunday
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

_ABBREVIATION_TEXT = "e.g i.e vs cf approx incl resp mr mrs ms dr prof st no fig vol ca al jr sr"
_ABBREVIATIONS = frozenset(f"{_ABBREVIATION_TEXT} inc ltd a.k.a u.s esp".split())

# Text clean-up
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\u200b-\u200d\u2060]")
_LINE_BREAKS = re.compile(r"\r\n?|[\x85\u2028\u2029]")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_WS = re.compile(r"\s+")

# Block structure
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_ATX_CLOSE = re.compile(r"(?<![ \t])[ \t]+#+[ \t]*$")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_TASK = re.compile(r"\[[ xX]\][ \t]+")
_QUOTE = re.compile(r"(?:[ \t]*>)+[ \t]?")
_CALLOUT = re.compile(r"\[![A-Za-z]+\][+-]?")
_TABLE_SEP = re.compile(r"[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+(?:\|[ \t]*)?$")
_HTML_LINE = re.compile(r"[ \t]*<[A-Za-z/!?][^\n]*>[ \t]*$")
_REF_DEF = re.compile(r" {0,3}\[[^\]\n]{1,200}\]:[ \t]*\S")
_HEADER_LINE = re.compile(r"[A-Z][A-Z0-9_]*:")
_YAML_KEY = re.compile(r"[\w.-]+[ \t]*:(?:[ \t]|$)")
_YAML_LINE = re.compile(r"[ \t]*(?:[\w.-]+[ \t]*:|-[ \t]|#)|[ \t]")

# Inline Markdown
_CODE_SPAN = re.compile(r"(`+)([^`\n]{1,300}?)\1")
_IMAGE = re.compile(r"!\[[^\[\]\n]{0,300}\]\([^()\n]{0,500}\)")
_LINK = re.compile(r"\[([^\[\]\n]{0,300})\]\(([^()\s]{0,500})(?:[ \t]+\"[^\"\n]{0,300}\")?\)")
_REF_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\[[^\[\]\n]{0,300}\]")
_WIKI_LINK = re.compile(r"\[\[([^\[\]|\n]{1,200})(?:\|([^\[\]\n]{1,200}))?\]\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]{1,500})>")
_URL = re.compile(
    r"\b(?:https?|ftp)://\S{1,500}|\bwww\.\S{1,500}"
    r"|(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+"
)
_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,500}>")
_FOOTNOTE = re.compile(r"\[\^[^\[\]\n]{0,100}\]")
_STRONG = re.compile(r"\*\*(?=\S)([^*\n]{1,300}?)(?<=\S)\*\*|__(?=\S)([^_\n]{1,300}?)(?<=\S)__")
_EMPH = re.compile(
    r"(?<![\w*])\*(?=\S)([^*\n]{1,300}?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_\n]{1,300}?)(?<=\S)_(?!\w)"
)
_STRIKE = re.compile(r"~~([^~\n]{1,300})~~")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")

# Sentences and words
_SENTENCE_END = re.compile(r"(?<![.!?。！？])[.!?。！？]+[\"'”’)\]]*(?=\s|$)")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_INNER_STOP = re.compile(r"(?<![.!?])[.!?]+(?=[\"'”’)\]]*\s+(?![a-z]))")  # reads as a second sentence
_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
_TOKEN = re.compile(r"\w+(?:[-.'’]\w+)*")
_PART = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[a-z][A-Z]")
_CAMEL_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

# Code
_DEFINITION = re.compile(
    r"\b(?:def|class|function|func|fn|interface|struct|enum|trait|type|module|macro|const|let|var"
    r"|val|object|record|protocol|impl)[ \t]+([A-Za-z_][A-Za-z0-9_]{2,60})"
)
_CODE_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?!\w)"
)
_CODE_TOKEN = re.compile(r"[A-Za-z_$@][\w$]*(?:(?:\.|::)[A-Za-z_]\w*)*")
_CALL_SUFFIX = re.compile(r"\(.*\)$|\[\]$")


@dataclass(frozen=True)
class _Block:
    """One block of the body: its kind and its Markdown text (code keeps its lines)."""

    kind: str  # heading | paragraph | quote | item | table | code
    text: str
    plain: str = ""  # plain text; without code spans except in headings; '' for code


@dataclass
class _Term:
    """A keyword candidate: its weight, the spellings seen and its token keys."""

    score: float = 0.0
    forms: dict[str, int] = field(default_factory=dict)
    keys: tuple[str, ...] = ()
    identifier: bool = False


@dataclass(frozen=True)
class _Segment:
    """A run of body text in which concept names are looked for."""

    text: str
    emphatic: bool  # a heading or a code span: a name here is named on purpose


@dataclass
class _Body:
    """What the compiler reads of a body."""

    blocks: list[_Block]
    headings: list[str]  # plain text
    terms: dict[str, _Term]
    words: int  # word count of the whole body
    prose_chars: int
    segments: list[_Segment]  # the text in which concept names are looked for
    links: Counter[str]  # local link targets (file stem, case-folded)
    keys: set[str]  # every token key of the body


def compile_offline(inp: CompileInput) -> Answer:
    """Compile a header from the body alone: deterministic, no network, never raises."""
    body = _analyse(_clean(inp.body[:MAX_BODY]))
    others = _unique_others(inp.others)
    concept = inp.concept if inp.concept is not None else _derive_concept(inp, body, others)
    profiles = [_profile(o) for o in others]
    keywords = _keywords(body, _keyword_name(concept), profiles)
    high, mid = _relations(body, concept, others, profiles)
    return Answer(
        tldr=_tldr(body, concept),
        answers_when=keywords,
        similar_high=high,
        similar_mid=mid,
        confidence=_confidence(body, keywords),
        concept=concept if inp.concept is None else None,
    )


# ---------------------------------------------------------------- text and blocks


def _clean(text: str) -> str:
    """Normalise line breaks and drop control characters, BOMs and HTML comments."""
    text = _LINE_BREAKS.sub("\n", text)
    text = _CONTROL.sub("", text)
    return _COMMENT.sub(lambda m: "\n" if "\n" in m.group() else " ", text)


def _analyse(text: str) -> _Body:
    """Read a cleaned body into blocks, terms, mention segments and links."""
    lines = text.split("\n")
    blocks = _parse(lines[_preamble_end(lines) :])
    headings = [b.plain for b in blocks if b.kind == "heading" and b.plain]
    terms: dict[str, _Term] = {}
    _count_terms(blocks, terms)
    segments = _segments(blocks)
    code = (b.text for b in blocks if b.kind == "code")
    words = _PART.findall("\n".join([*(s.text for s in segments), *code]))
    prose = (b for b in blocks if b.kind in ("paragraph", "quote", "item"))
    return _Body(
        blocks=blocks,
        headings=headings,
        terms=terms,
        words=len(words),
        prose_chars=sum(len(b.plain) for b in prose),
        segments=segments,
        links=_local_links(b.text for b in blocks if b.kind != "code"),
        keys={_stem(w) for w in set(words)},
    )


def _preamble_end(lines: list[str]) -> int:
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
    while i < len(lines) and _HEADER_LINE.match(lines[i]):
        i += 1
    return i


def _parse(lines: list[str]) -> list[_Block]:
    """Split Markdown lines into blocks (a small CommonMark subset, forgiving by design)."""
    parser = _Parser()
    for line in lines:
        parser.feed(line)
    parser.flush()
    return parser.blocks


class _Parser:
    """Line-by-line block reader: the open block's kind and lines, and any open code fence."""

    def __init__(self) -> None:
        self.blocks: list[_Block] = []
        self.pending: list[str] = []
        self.kind = "paragraph"
        self.fence = ""

    def flush(self, next_kind: str = "paragraph") -> None:
        """Close the open block and start one of `next_kind`."""
        if self.pending:
            if self.kind == "code":
                self.blocks.append(_Block("code", "\n".join(self.pending)))
            elif any(line.strip() for line in self.pending):
                text = " ".join(self.pending)
                plain = _plain(text, code=self.kind == "heading")
                self.blocks.append(_Block(self.kind, text, plain))
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
            self.blocks.append(_Block("heading", title, _plain(title)))
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


def _plain(md: str, *, code: bool = True, local_links: bool = True) -> str:
    """Markdown inline text to plain text; code spans and local link texts can be dropped."""
    spans: list[str] = []

    def keep(m: re.Match[str]) -> str:
        spans.append(m.group(2).strip())
        return f"\x00{len(spans) - 1}\x00"

    text = _CODE_SPAN.sub(keep, md) if "`" in md else md
    if "[" in text:
        text = _IMAGE.sub(" ", text)
        text = _WIKI_LINK.sub(lambda m: (m.group(2) or m.group(1)) if local_links else " ", text)
        text = _LINK.sub(lambda m: _link_text(m, local_links), text)
        text = _REF_LINK.sub(r"\1", text)
        text = _FOOTNOTE.sub("", text)
    if "<" in text:
        text = _TAG.sub(" ", _AUTOLINK.sub(r"\1", text))
    if "*" in text or "_" in text:
        text = _STRONG.sub(_emphasised, text)
        text = _EMPH.sub(_emphasised, text).replace("**", "")
    if "~~" in text:
        text = _STRIKE.sub(r"\1", text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    if "&" in text:
        text = html.unescape(text)
    if spans:
        text = _PLACEHOLDER.sub(lambda m: spans[int(m.group(1))] if code else " · ", text)
    return _WS.sub(" ", text).strip()


def _emphasised(m: re.Match[str]) -> str:
    """The text inside an emphasis match (one of its two alternatives)."""
    return m.group(1) or m.group(2) or ""


def _link_text(m: re.Match[str], local_links: bool) -> str:
    """A link's text, or a blank for a link to a local Markdown file when those are dropped."""
    if not local_links and _link_stem(m.group(2)):
        return " "
    return m.group(1)


def _link_stem(target: str) -> str:
    """The case-folded file stem of a link to a local Markdown file, or ''."""
    if "://" in target or target.startswith(("mailto:", "#")):
        return ""
    path = re.split(r"[#?]", target, maxsplit=1)[0]
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    for ext in (".md", ".markdown"):
        if name.casefold().endswith(ext):
            return name[: -len(ext)].casefold()
    return ""


def _local_links(texts: Iterable[str]) -> Counter[str]:
    """Count links to local Markdown files and wiki links, by case-folded target stem."""
    found: Counter[str] = Counter()
    for text in texts:
        for m in _LINK.finditer(text):
            stem = _link_stem(m.group(2))
            if stem:
                found[stem] += 1
        for m in _WIKI_LINK.finditer(text):
            target = m.group(1).split("#", 1)[0].strip().replace("\\", "/").rsplit("/", 1)[-1]
            stem = target[:-3] if target.casefold().endswith(".md") else target
            if stem:
                found[stem.casefold()] += 1
    return found


def _inline_code(md: str) -> list[str]:
    """The contents of the inline code spans of a Markdown text."""
    return [m.group(2).strip() for m in _CODE_SPAN.finditer(md)]


# ---------------------------------------------------------------- TLDR


def _tldr(body: _Body, subject: str) -> str:
    """The first explanatory sentence of the body, or a sentence made from its first heading."""
    for kinds in (("paragraph",), ("quote", "item")):
        for block in body.blocks:
            if block.kind in kinds and not _mostly_links(block.text):
                sentence = _first_explanatory(_plain(block.text))
                if sentence:
                    return _fit(sentence)
    heading = next((h for h in body.headings if re.search(r"[^\W_]", h)), "")
    topic = heading or subject.strip()
    if topic and re.search(r"[^\W_]", topic):
        return _fit(f"Notes on {_cut(topic.rstrip('.!?:;, '), MAX_TLDR - 11)}.")
    return "Notes without explanatory text yet."


def _mostly_links(md: str) -> bool:
    """Whether a block is a list of links or badges rather than prose."""
    linked = sum(len(m.group(1)) for m in _LINK.finditer(md)) + sum(
        len(m.group(1)) for m in _WIKI_LINK.finditer(md)
    )
    rest = _plain(_WIKI_LINK.sub(" ", _LINK.sub(" ", _IMAGE.sub(" ", md))))
    return (linked > 0 or "![" in md) and len(_LETTER_WORD.findall(rest)) < 3


def _first_explanatory(text: str) -> str:
    """The first sentence of a plain text that explains something, or ''."""
    for sentence in _sentences(text):
        words = len(_LETTER_WORD.findall(sentence))
        if words >= 3 and not (sentence.endswith(":") and words < 6):
            return sentence
    return ""


def _sentences(text: str) -> list[str]:
    """Split plain text into sentences, keeping abbreviations and initials inside."""
    found: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        after = text[m.end() : m.end() + 3].lstrip()[:1]
        if (after and after.islower()) or _abbreviation_at(text, m.start()):
            continue
        found.append(text[start : m.end()].strip())
        start = m.end()
    found.append(text[start:].strip())
    return [s for s in found if s]


def _abbreviation_at(text: str, pos: int) -> bool:
    """Whether the period at `pos` ends an abbreviation or an initial."""
    if text[pos] != ".":
        return False
    m = _WORD_BEFORE.search(text[max(0, pos - 12) : pos])
    word = m.group(1).casefold().strip(".") if m else ""
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _fit(sentence: str) -> str:
    """One sentence of at most MAX_TLDR characters that ends with punctuation."""
    text = _one_sentence(_WS.sub(" ", sentence).strip())
    if text.endswith(":"):
        text = text[:-1]
    if len(text) > MAX_TLDR:
        text = _cut(text, MAX_TLDR - 1)
    text = text.rstrip(" ,;:-–—([{\"'")
    if not text.endswith((".", "!", "?")):
        text += "."
    return text if len(text) > 1 else "Notes without explanatory text yet."


def _one_sentence(text: str) -> str:
    """Drop inner stops that read as a sentence end (CKP020); `e.g. JWT` becomes `e.g., JWT`."""

    def fix(m: re.Match[str]) -> str:
        word = _WORD_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
        return ".," if word and word.group(1).casefold() in ("e.g", "i.e") else ""

    return _INNER_STOP.sub(fix, text)


def _cut(text: str, limit: int) -> str:
    """Cut a text to `limit` characters at a clause or word boundary."""
    if len(text) <= limit:
        return text
    head = text[: limit + 1]
    clause = max(head.rfind("; "), head.rfind(" — "), head.rfind(" – "), head.rfind(": "))
    if clause >= limit * 2 // 3:
        return head[:clause]
    space = head.rfind(" ")
    return head[:space] if space >= limit // 3 else text[:limit]


# ---------------------------------------------------------------- keywords


def _keyword_name(concept: str | None) -> str:
    """The concept name as a keyword: no commas, pipes or line breaks."""
    return _WS.sub(" ", re.sub(r"[,|;]", " ", concept or "")).strip()


@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """A case-folded word without a plural ending, as routing matches `s`/`es` plurals."""
    w = word.casefold()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _part_keys(text: str) -> list[str]:
    """The stems of the alphanumeric runs of a text (how concept names are matched)."""
    return [_stem(p) for p in _PART.findall(text)]


@functools.lru_cache(maxsize=1 << 16)
def _word_keys(word: str) -> tuple[str, ...]:
    """_part_keys of one short word or phrase, cached."""
    return tuple(_part_keys(word))


def _keyword_key(keyword: str) -> str:
    """The key under which two keywords count as the same."""
    return " ".join(_part_keys(keyword))


@functools.lru_cache(maxsize=1 << 16)
def _is_identifier(token: str) -> bool:
    """Whether a token reads as a code name (snake_case, camelCase, dotted)."""
    return "_" in token.strip("_") or "." in token or "::" in token or bool(_CAMEL.search(token))


@functools.lru_cache(maxsize=1 << 16)
def _usable_word(token: str) -> str:
    """A prose token as a keyword candidate (case kept for identifiers), or ''."""
    token = re.sub(r"['’]s$", "", token).strip("_")
    if not token or "'" in token or "’" in token or len(token) > 40:
        return ""
    if not any(c.isalpha() for c in token) or token.startswith("__"):
        return ""
    if "." in token and any(len(p) < 2 or not any(c.isalpha() for c in p) for p in token.split(".")):
        return ""
    if _is_identifier(token):
        return token
    low = token.casefold()
    if low in STOP_WORDS or _stem(low) in STOP_WORDS:
        return ""
    if len(low) < 3 and not (token.isupper() and len(token) == 2):
        return ""
    if sum(c.isdigit() for c in low) * 2 > len(low):
        return ""
    if len(low) > 6 and low.endswith(("ally", "ously", "ively", "ently", "antly", "ately", "ingly")):
        return ""
    return token if token.isupper() and len(token) <= 6 else low


def _add(terms: dict[str, _Term], form: str, weight: float, identifier: bool = False) -> None:
    """Add weight to a keyword candidate."""
    keys = _word_keys(form)
    if not keys:
        return
    key = " ".join(keys)
    term = terms.get(key)
    if term is None:
        term = terms[key] = _Term(keys=keys)
    term.score += weight
    term.forms[form] = term.forms.get(form, 0) + 1
    term.identifier = term.identifier or identifier


def _count_terms(blocks: list[_Block], terms: dict[str, _Term]) -> None:
    """Weigh every word, heading phrase and code identifier of the body."""
    bigrams: Counter[str] = Counter()
    for block in blocks:
        if block.kind == "code":
            _count_code(block.text, terms)
            continue
        if block.kind == "heading":
            _count_heading(block.plain, terms)
            continue
        for code in _inline_code(block.text):
            _count_inline_code(code, terms)
        if block.kind == "table":
            _count_prose(block.plain, 0.5, terms, Counter())
        else:
            _count_prose(block.plain, 1.0, terms, bigrams)
        for m in _STRONG.finditer(block.text):
            _count_prose(_plain(_emphasised(m), code=False), 0.5, terms, Counter())
    for phrase, n in bigrams.items():
        if n >= 2:
            _add(terms, phrase, 1.5 * n)


def _count_prose(text: str, weight: float, terms: dict[str, _Term], bigrams: Counter[str]) -> None:
    """Count the words of a prose text and its adjacent pairs of content words."""
    previous, previous_end = "", -1
    for m in _TOKEN.finditer(_URL.sub(" · ", text) if "/" in text or "@" in text else text):
        info = _prose_word(m.group())
        if info is None:
            previous = ""
            continue
        word, identifier, factor = info
        _add(terms, word, weight * factor, identifier)
        if previous and not identifier and m.start() == previous_end + 1:
            bigrams[f"{previous} {word.casefold()}"] += 1
        previous, previous_end = ("" if identifier else word.casefold()), m.end()


@functools.lru_cache(maxsize=1 << 16)
def _prose_word(token: str) -> tuple[str, bool, float] | None:
    """A prose token as (keyword form, identifier or not, weight factor), or None."""
    word = _usable_word(token)
    if not word:
        return None
    identifier = _is_identifier(word)
    factor = 0.6 if word.endswith("ed") and not identifier else 1.0  # participles weigh less
    return word, identifier, factor * (1.5 if word.isupper() else 1.0)  # acronyms weigh more


def _count_heading(text: str, terms: dict[str, _Term]) -> None:
    """Weigh a heading: a one-word heading is a keyword, a short run of words a phrase."""
    runs: list[list[str]] = [[]]
    end = -1
    for m in _TOKEN.finditer(text):
        word = _usable_word(m.group())
        if not word or (runs[-1] and text[end : m.start()].strip()):
            runs.append([])
        if word:
            runs[-1].append(word if _is_identifier(word) else word.casefold())
        end = m.end()
    for run in runs:
        for word in run:
            _add(terms, word, 2.5 if len(run) == 1 else 1.0, _is_identifier(word))
        if 2 <= len(run) <= 3:
            _add(terms, " ".join(run), 3.0)


def _count_inline_code(code: str, terms: dict[str, _Term]) -> None:
    """Weigh an inline code span: a single name counts much, a command only its identifiers."""
    name = _CALL_SUFFIX.sub("", code.strip().lstrip("@$")).strip()
    if _CODE_TOKEN.fullmatch(name):
        if _is_identifier(name):
            if len(name) <= 40 and not name.startswith("__"):
                _add(terms, name, 2.5, True)
        else:
            word = _usable_word(name)
            if word:
                _add(terms, word, 2.0)
        return
    for m in _CODE_IDENTIFIER.finditer(code):
        _add(terms, m.group(), 1.0, True)


def _count_code(code: str, terms: dict[str, _Term]) -> None:
    """Weigh a code block's defined names and its camelCase / snake_case identifiers."""
    for m in _DEFINITION.finditer(code):
        name = m.group(1)
        if _is_identifier(name):
            _add(terms, name, 2.0, True)
        elif (word := _usable_word(name)) and len(word) >= 4:
            _add(terms, word, 1.0)
    for m in _CODE_IDENTIFIER.finditer(code):
        if len(m.group()) <= 40:
            _add(terms, m.group(), 0.5, True)


def _keywords(body: _Body, name: str, profiles: list[_Profile]) -> list[str]:
    """ANSWERS_WHEN: the concept name, then the strongest terms of the body."""
    claims: Counter[str] = Counter(k for p in profiles for k in p.keys)
    names = {" ".join(p.name) for p in profiles}  # another concept's name routes to that concept
    chosen = [name] if _keyword_key(name) else []
    keys = {_keyword_key(name)} if chosen else set()
    identifiers = 0
    for score, key, term in _ranked(body.terms, claims):
        if len(chosen) >= MAX_KEYWORDS:
            break
        if len(chosen) >= MIN_KEYWORDS and score < _KEYWORD_THRESHOLD:
            break
        if key in keys or key in names or (len(term.keys) > 1 and keys.issuperset(term.keys)):
            continue  # a phrase whose words are all keywords already adds nothing to routing
        if term.identifier and identifiers >= _MAX_IDENTIFIERS:
            continue
        chosen.append(_display(term))
        keys.add(key)
        identifiers += term.identifier
    if not chosen:
        chosen.append(_fallback_keyword(body))
    return chosen


def _ranked(terms: dict[str, _Term], claims: Counter[str]) -> list[tuple[float, str, _Term]]:
    """Terms by weight, discounted when other concepts of the bank claim their words."""
    ranked = []
    for key, term in terms.items():
        claimed = max((claims[k] for k in term.keys), default=0)
        ranked.append((term.score / (1.0 + 0.3 * claimed), key, term))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    return ranked


def _display(term: _Term) -> str:
    """A term's keyword spelling: its most frequent form, lower-case unless an identifier."""
    form = min(term.forms.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return form if term.identifier else form.casefold()


def _fallback_keyword(body: _Body) -> str:
    """A keyword for a body that offered none: a word of its first heading, or 'notes'."""
    for heading in body.headings:
        for part in _PART.findall(heading):
            if len(part) >= 2:
                return part.casefold()
    return "notes"


# ---------------------------------------------------------------- concept


def _slug(text: str) -> str:
    """A CONCEPT slug: ASCII lower-case, runs of anything else turned into one `-`."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.casefold()).strip("-")
    if len(slug) > 64:
        slug = slug[:64].rsplit("-", 1)[0] if "-" in slug[:64] else slug[:64]
    return slug


def _derive_concept(inp: CompileInput, body: _Body, others: list[ConceptSummary]) -> str:
    """CONCEPT for a file without one: from the file name, else the first heading, unique."""
    hint = inp.path_hint.replace("\\", "/").rsplit("/", 1)[-1]
    if hint.casefold().endswith((".md", ".markdown")):
        hint = hint.rsplit(".", 1)[0]
    slug = _slug(hint) or next((s for s in map(_slug, body.headings) if s), "") or "untitled"
    taken = {o.concept.casefold() for o in others}
    unique, n = slug, 2
    while unique in taken:
        unique, n = f"{slug}-{n}", n + 1
    return unique


# ---------------------------------------------------------------- relationships


@dataclass(frozen=True)
class _Profile:
    """Another concept as token keys: its name, its keywords and its TLDR's content words."""

    name: tuple[str, ...]
    keywords: tuple[tuple[str, ...], ...]
    tldr: frozenset[str]
    keys: frozenset[str]


def _unique_others(others: Iterable[ConceptSummary]) -> list[ConceptSummary]:
    """The other concepts with a usable name, each once, in the given order."""
    seen: set[str] = set()
    unique = []
    for other in others:
        folded = other.concept.strip().casefold()
        if folded and folded not in seen and _PART.search(folded):
            seen.add(folded)
            unique.append(other)
    return unique


def _content_keys(text: str) -> list[str]:
    """The stems of a text's words that carry meaning (no stop words, no single letters)."""
    return [k for k in _part_keys(text) if len(k) >= 2 and k not in STOP_WORDS]


def _profile(other: ConceptSummary) -> _Profile:
    """Read another concept's header into token keys."""
    return _profile_of(other.concept, other.tldr, tuple(other.answers_when))


@functools.lru_cache(maxsize=4096)
def _profile_of(concept: str, tldr_text: str, answers_when: tuple[str, ...]) -> _Profile:
    """_profile, cached on the header's values."""
    name = tuple(_part_keys(concept))
    keywords = []
    for keyword in answers_when:
        keys = tuple(_content_keys(keyword))
        if keys and keys != name:
            keywords.append(keys)
    tldr = frozenset(_content_keys(tldr_text)) - set(name)
    everything = set(name) | tldr | {k for kw in keywords for k in kw}
    return _Profile(name, tuple(dict.fromkeys(keywords)), tldr, frozenset(everything))


def _relations(
    body: _Body, concept: str, others: list[ConceptSummary], profiles: list[_Profile]
) -> tuple[list[str], list[str]]:
    """SIMILAR_HIGH and SIMILAR_MID: mentioned or overlapping concepts, strongest first."""
    own = concept.strip().casefold()
    mentions = _mentions(body.segments, profiles)
    top = _top_keys(body)
    df: Counter[str] = Counter(k for p in profiles for k in p.keys)
    weights = {k: 1.0 / (1.0 + 0.3 * (n - 1)) for k, n in df.items()}  # shared words tell less
    high: list[tuple[float, str]] = []
    mid: list[tuple[float, str]] = []
    for i, (other, profile) in enumerate(zip(others, profiles, strict=True)):
        if other.concept.strip().casefold() == own:
            continue
        links = body.links[other.concept.strip().casefold()]
        plain, strong = mentions[i]
        overlap, hits = _overlap(profile, body.keys, top, weights)
        tier = _tier(links + plain, links + strong, links, overlap, hits)
        strength = 2.0 * (links + strong) + links + plain + 3.0 * overlap
        if tier == "high":
            high.append((strength, other.concept))
        elif tier == "mid":
            mid.append((strength, other.concept))
    high.sort(key=lambda item: (-item[0], item[1]))
    mid.extend(high[MAX_HIGH:])
    mid.sort(key=lambda item: (-item[0], item[1]))
    return [c for _, c in high[:MAX_HIGH]], [c for _, c in mid[:MAX_MID]]


def _tier(mentioned: int, explicit: int, linked: int, overlap: float, hits: int) -> str:
    """The rubric of SPEC §2 as rules: mentions and keyword overlap decide HIGH, MID or nothing.

    HIGH needs a deliberate mention backed by shared keywords; a single passing mention of a
    name (a sibling listed in a sentence) needs at least one shared keyword to be MID.
    """
    if explicit and mentioned >= 2 and hits >= 2 and overlap >= _OVERLAP:
        return "high"
    if explicit and hits >= 3 and overlap >= _HIGH_OVERLAP:
        return "high"
    # A deliberate reference ("see `jwt`") to a concept whose own keywords the body uses
    # throughout reads as a dependency, as does naming it again and again.
    if explicit and (hits >= 3 or (explicit >= 3 and hits >= 2)):
        return "high"
    if mentioned >= 2 or linked or (mentioned and hits):
        return "mid"
    if hits >= 3 and overlap >= _OVERLAP:
        return "mid"
    return ""


def _top_keys(body: _Body) -> set[str]:
    """The token keys of the body's strongest terms and of its headings."""
    ranked = sorted(body.terms.items(), key=lambda kv: (-kv[1].score, kv[0]))[:_PROFILE_SIZE]
    keys = {k for _, term in ranked for k in term.keys}
    keys.update(k for _, term in ranked for form in term.forms for k in _camel_keys(form))
    keys.update(k for h in body.headings for k in _part_keys(h))
    return keys


def _camel_keys(form: str) -> list[str]:
    """The stems of the words inside a camelCase identifier."""
    return [_stem(p) for p in _CAMEL_PARTS.findall(form)] if _CAMEL.search(form) else []


def _overlap(
    profile: _Profile, keys: set[str], top: set[str], weights: dict[str, float]
) -> tuple[float, int]:
    """How much of another concept's keywords and TLDR the body covers, and how many hits."""
    total = found = 0.0
    hits = 0
    for kw in profile.keywords:
        w = sum(weights[k] for k in kw) / len(kw)
        total += w
        if all(k in keys for k in kw):
            found += w if all(k in top for k in kw) else w / 2
            hits += 1
    tldr_total = sum(weights[k] for k in profile.tldr)
    tldr_found = sum(weights[k] for k in profile.tldr if k in top)
    tldr_cover = tldr_found / tldr_total if tldr_total else 0.0
    if not total:
        return tldr_cover, sum(1 for k in profile.tldr if k in top)
    return 0.7 * found / total + 0.3 * tldr_cover, hits


def _segments(blocks: list[_Block]) -> list[_Segment]:
    """The body's text for finding concept names: headings and code spans are emphatic."""
    segments: list[_Segment] = []
    for block in blocks:
        if block.kind == "code":
            continue
        has_local = "[[" in block.text or ".md" in block.text or ".markdown" in block.text
        text = _plain(block.text, code=False, local_links=False) if has_local else block.plain
        segments.append(_Segment(text, block.kind == "heading"))
        if block.kind != "heading":
            segments.extend(_Segment(code, True) for code in _inline_code(block.text))
    return segments


def _mentions(segments: list[_Segment], profiles: list[_Profile]) -> list[tuple[int, int]]:
    """For each other concept: how often its name occurs, and how often explicitly."""
    starts: dict[str, list[int]] = {}
    for i, profile in enumerate(profiles):
        if profile.name:
            starts.setdefault(profile.name[0], []).append(i)
    counts = [[0, 0] for _ in profiles]
    if not starts:
        return [(0, 0) for _ in profiles]
    first_words = _first_words(tuple(sorted(starts)))
    for segment in segments:
        if not first_words.search(segment.text):
            continue  # most text names no concept: skip tokenising it
        tokens = [(m.start(), m.end(), _stem(m.group())) for m in _PART.finditer(segment.text)]
        for pos, (_, _, key) in enumerate(tokens):
            for i in starts.get(key, ()):
                span = _match_name(segment.text, tokens, pos, profiles[i].name)
                if span:
                    counts[i][0] += 1
                    counts[i][1] += _explicit(segment.text, span, profiles[i].name, segment.emphatic)
    return [(plain, strong) for plain, strong in counts]


@functools.lru_cache(maxsize=64)
def _first_words(keys: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern that finds any of the first words of concept names (with a plural ending)."""
    forms = sorted(
        {re.escape(k) + r"(?:e?s)?" for k in keys}
        | {re.escape(k[:-1]) + "ies" for k in keys if k.endswith("y")}
    )
    return re.compile(r"(?<![^\W_])(?:" + "|".join(forms) + r")(?![^\W_])", re.IGNORECASE)


def _match_name(
    text: str, tokens: list[tuple[int, int, str]], pos: int, name: tuple[str, ...]
) -> tuple[int, int] | None:
    """The span of a concept name starting at token `pos`, word-bounded, or None."""
    if pos + len(name) > len(tokens):
        return None
    for j, key in enumerate(name):
        if tokens[pos + j][2] != key:
            return None
        if j and not _joins(text[tokens[pos + j - 1][1] : tokens[pos + j][0]]):
            return None
    start, end = tokens[pos][0], tokens[pos + len(name) - 1][1]
    if text[start - 1 : start] == "_" or text[end : end + 1] == "_":
        return None
    return start, end


def _joins(gap: str) -> bool:
    """Whether the text between two words of a name keeps them one name (`http-headers`)."""
    return 0 < len(gap) <= 3 and all(c in " \t._-/" for c in gap)


def _explicit(text: str, span: tuple[int, int], name: tuple[str, ...], emphatic: bool) -> bool:
    """Whether a mention names the concept on purpose rather than as a common word."""
    surface = text[span[0] : span[1]]
    if emphatic or len(name) > 1 or any(c.isdigit() for c in surface):
        return True
    if any(c.isupper() for c in surface[1:]):
        return True
    before = text[: span[0]].rstrip(" \t\"'([*_")
    return surface[:1].isupper() and bool(before) and before[-1] not in ".!?:"


# ---------------------------------------------------------------- confidence


def _confidence(body: _Body, keywords: list[str]) -> str:
    """high for a substantial body with enough keywords, low for a nearly empty one."""
    if body.words < _LOW_WORDS:
        return "low"
    if body.prose_chars > _HIGH_PROSE and len(keywords) >= MIN_KEYWORDS:
        return "high"
    return "medium"
