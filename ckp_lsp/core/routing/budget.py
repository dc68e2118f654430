"""The budget rule: what of the routed files an agent is given within a number of characters.

One rule for every face that gives an agent memory (``ckp route --max-tokens``, the MCP tool
``ckp_route``'s ``max_tokens``, the prompt hooks' ``--max-chars``): the primary files first, then
the relationships they pulled in, in the router's order; a file that does not fit in what is left
(or is over the budget of one file) is given as its TLDR and the sections whose headings match the
question, as many as fit; a file whose TLDR does not fit either is left out. What was cut or left
out is named, in the answer and at the end of the declaration line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ckp_lsp.core.format.fields import CHARS_PER_TOKEN, token_estimate
from ckp_lsp.core.format.records import Frozen, Record
from ckp_lsp.core.format.text import split_lines
from ckp_lsp.core.routing.words import words

if TYPE_CHECKING:
    from ckp_lsp.core.routing.result import RouteEntry, RouteResult

#: words of a question too common to match a heading by
_COMMON = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "how",
        "what",
        "why",
        "when",
        "where",
        "which",
        "who",
        "does",
        "this",
        "that",
        "are",
        "was",
        "from",
        "into",
        "about",
        "can",
        "should",
        "would",
        "use",
        "used",
        "using",
        "our",
        "your",
        "their",
        "its",
        "not",
        "but",
        "all",
        "any",
    ]
)
#: files a declaration names by name before it counts the rest
NAMED = 3


def tokens_to_chars(max_tokens: int) -> int:
    """The characters a budget of ``max_tokens`` tokens holds."""
    return max(0, max_tokens) * CHARS_PER_TOKEN


class Given(Frozen):
    """One routed file as the agent is given it: whole, or as its TLDR and matching sections."""

    _fields = ("entry", "part", "text", "sections", "left_out")
    __slots__ = _fields

    def __init__(
        self,
        entry: RouteEntry,
        part: str,  # "whole" or "sections"
        text: str,
        sections: tuple[str, ...] = (),  # the headings given (part "sections")
        left_out: tuple[str, ...] = (),  # the headings not given (part "sections")
    ) -> None:
        self.entry = entry
        self.part = part
        self.text = text
        self.sections = sections
        self.left_out = left_out

    @property
    def file(self) -> str:
        return self.entry.file

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file,
            "part": self.part,
            "tokens": token_estimate(len(self.text)),
        }
        if self.part != "whole":
            out["sections"] = list(self.sections)
            out["left_out_sections"] = list(self.left_out)
        return out


class Budgeted(Record):
    """What the budget let through of one route: the files given, and those left out."""

    _fields = ("max_chars", "given", "dropped")
    __slots__ = _fields

    def __init__(
        self, max_chars: int, given: list[Given] | None = None, dropped: list[RouteEntry] | None = None
    ) -> None:
        self.max_chars = max_chars
        self.given = [] if given is None else given
        self.dropped = [] if dropped is None else dropped

    @property
    def used_chars(self) -> int:
        return sum(len(g.text) for g in self.given)

    @property
    def cut(self) -> bool:
        """Whether the budget changed anything: a file given in part, or left out."""
        return bool(self.dropped) or any(g.part != "whole" for g in self.given)

    def as_dict(self) -> dict[str, Any]:
        return {
            "max_tokens": self.max_chars // CHARS_PER_TOKEN,
            "tokens": token_estimate(self.used_chars),
            "given": [g.as_dict() for g in self.given],
            "dropped": [e.file for e in self.dropped],
        }


class _Section(Frozen):
    _fields = ("heading", "text", "inner")
    __slots__ = _fields

    def __init__(self, heading: str, text: str, inner: int) -> None:
        self.heading = heading
        self.text = text  # the heading's line to the next heading of its level or above
        self.inner = inner  # how many of the following sections it holds (its sub-sections)


def question_words(query: str, extra: tuple[str, ...] | list[str] = ()) -> frozenset[str]:
    """The words of a question (and of the keywords it matched) that can match a heading."""
    found = set()
    for w in words(" ".join([query, *extra])):
        if len(w) >= 3 and w not in _COMMON:
            found.add(w)
            if w.endswith("s") and len(w) > 3:
                found.add(w[:-1])
    return frozenset(found)


def _heading_matches(heading: str, wanted: frozenset[str]) -> bool:
    for w in words(heading):
        if w in wanted or (w.endswith("s") and w[:-1] in wanted) or w + "s" in wanted:
            return True
    return False


def split_file(text: str) -> tuple[str, list[_Section]]:
    """A file's TLDR and its body's sections in order, each with its sub-sections."""
    # (imported for a file cut to fit: a prompt whose files fit whole parses no header)
    from ckp_lsp.core.format.header import parse_header
    from ckp_lsp.core.navigation.outline import outline

    header = parse_header(text)
    tldr = ""
    start = 0
    if header is not None:
        start = header.end_line
        f = header.first("TLDR")
        tldr = " ".join(f.value.split()) if f is not None else ""
    lines = split_lines(text)
    flat = outline(lines, start).flat()
    sections = []
    for i, h in enumerate(flat):
        j = next((k for k in range(i + 1, len(flat)) if flat[k].level <= h.level), len(flat))
        end = flat[j].line if j < len(flat) else len(lines)
        sections.append(_Section(h.text, "\n".join(lines[h.line : end]).rstrip(), j - i - 1))
    return tldr, sections


def _part_note(entry: RouteEntry, taken: list[str], left: int) -> str:
    shown = ", ".join(f'"{h}"' for h in taken[:NAMED]) + (
        f" and {len(taken) - NAMED} more" if len(taken) > NAMED else ""
    )
    given = f"its TLDR and the sections {shown}" if taken else "its TLDR only"
    rest = f"; {left} section{'s' if left != 1 else ''} left out" if left else ""
    return (
        f"(part of {entry.file}, ~{entry.tokens:,} tokens whole: {given}{rest}; read the file for the rest)\n"
    )


def partial(entry: RouteEntry, text: str, room: int, wanted: frozenset[str]) -> Given | None:
    """``entry``'s file as its TLDR and the sections whose headings match ``wanted``, within
    ``room`` characters (a line saying what was given included); None when not even the TLDR
    fits."""
    tldr, sections = split_file(text)
    head = f"TLDR: {tldr or '(none written)'}\n"
    picked: list[int] = []  # the sections given, each with its sub-sections
    inside = 0
    used = len(head) + len(_part_note(entry, [], len(sections)))
    for i, s in enumerate(sections):
        if inside:
            inside -= 1
            continue
        if not _heading_matches(s.heading, wanted) or used + len(s.text) + 2 > room:
            continue
        picked.append(i)
        used += len(s.text) + 2
        inside = s.inner
    while True:
        held = {k for i in picked for k in range(i, i + sections[i].inner + 1)}
        taken = [sections[i].heading for i in picked]
        note = _part_note(entry, taken, len(sections) - len(held))
        body = "".join("\n" + sections[i].text + "\n" for i in picked)
        out = head + note + body
        if len(out) <= room or not picked:
            break
        picked.pop()  # the note naming them is longer than the room left: give one section fewer
    if len(out) > room:
        out = head
        if len(out) > room:
            return None
    left = tuple(s.heading for k, s in enumerate(sections) if k not in held)
    return Given(entry, "sections", out, tuple(taken), left)


def fit(
    result: RouteResult,
    texts: Mapping[str, str],
    max_chars: int,
    *,
    per_file: Callable[[RouteEntry], int] = lambda e: 0,
    file_chars: int | None = None,
) -> Budgeted:
    """The budget rule over one route: ``texts`` holds each loaded file's text (a file missing
    from it is left out), ``per_file`` what giving a file costs beyond its text (a wrapper),
    ``file_chars`` the budget of one file (default: the route's ``file_budget_tokens``)."""
    one = file_chars if file_chars is not None else tokens_to_chars(result.file_budget_tokens)
    out = Budgeted(max_chars)
    left = max_chars
    for e in result.loaded:  # primaries first, then what they pulled in (the router's order)
        text = texts.get(e.file)
        room = left - per_file(e)
        if text is None or room <= 0:
            out.dropped.append(e)
            continue
        if len(text) <= min(room, one):
            given: Given | None = Given(e, "whole", text)
        else:
            wanted = question_words(result.query, e.keywords)
            given = partial(e, text, min(room, one), wanted)
        if given is None:
            out.dropped.append(e)
            continue
        out.given.append(given)
        left -= len(given.text) + per_file(e)
    return out


def _names(files: list[str]) -> str:
    shown = ", ".join(files[:NAMED])
    return shown + (f" and {len(files) - NAMED} more" if len(files) > NAMED else "")


def budget_note(b: Budgeted) -> str:
    """What the budget cut, in words ("" when it cut nothing)."""
    parts = []
    partial_files = [g.file for g in b.given if g.part != "whole"]
    if partial_files:
        parts.append(f"{_names(partial_files)} as TLDR and matching sections")
    if b.dropped:
        parts.append(f"{_names([e.file for e in b.dropped])} left out")
    if not parts:
        return ""
    return f"budget ~{b.max_chars // CHARS_PER_TOKEN:,} tokens: " + "; ".join(parts)


def declaration(result: RouteResult, b: Budgeted) -> str:
    """The route's declaration line, counting the files given and naming what the budget cut
    at its end (SPEC §6: a budget cut or an over-budget file is named at its end)."""
    line = result.declaration
    note = budget_note(b)
    if result.out_of_domain or not note:
        return line
    head = line[:-1] if line.endswith("]") else line
    head = head.split(" — over budget: ", 1)[0]  # the budget says what became of such a file
    loaded = f"loaded {len(result.loaded)}/"
    if head.startswith("[CKP: " + loaded):
        head = head.replace(loaded, f"loaded {len(b.given)}/", 1)
    return f"{head}; {note}]"
