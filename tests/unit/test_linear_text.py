"""Every pattern applied to file or model text runs in linear time, on hostile input too.

The code-span scanner is counted (the characters it looks at); every other pass is run on
200,000 characters of the input that made it superlinear, a size where a quadratic pass would
take hours and a linear one a fraction of a second.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ckp_lsp.core.compile.answer import sentence_count, slugify, unfenced
from ckp_lsp.core.compile.offline.keywords import without_call_suffix
from ckp_lsp.core.compile.offline.text import code_spans, inline_code, plain

#: the pattern the scanner replaced, kept as the reference it must agree with
ROOT = Path(__file__).resolve().parents[2]
OLD_CODE_SPAN = re.compile(r"(`+)([^`\n]{1,300}?)\1")


class Counted(str):
    """A text that counts the characters the scanner reads from it (by index and by ``find``)."""

    looked = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        Counted.looked += 1
        return str.__getitem__(self, key)

    def find(self, sub, start=None, end=None):  # type: ignore[no-untyped-def,override]
        at = str.find(self, sub, start if start is not None else 0, end if end is not None else len(self))
        Counted.looked += (at if at >= 0 else len(self)) - (start or 0) + 1
        return at


def looked_at(text: str) -> int:
    Counted.looked = 0
    list(code_spans(Counted(text)))
    return Counted.looked


@pytest.mark.parametrize("unit", ["`", "``a", "`a", "a`", "`\n", "`" + "a" * 301, "` `` ``` "], ids=repr)
def test_the_code_span_scanner_looks_at_each_character_a_bounded_number_of_times(unit: str) -> None:
    n = 20_000 // len(unit) + 1
    assert looked_at(unit * n) <= 4 * len(unit * n) + 8
    assert looked_at(unit * 8 * n) <= 4 * len(unit * 8 * n) + 8


@given(st.text(alphabet="`a \n", max_size=60))
def test_the_scanner_finds_the_spans_the_pattern_found(text: str) -> None:
    assert [(s, e) for s, _a, _b, e in code_spans(text)] == [m.span() for m in OLD_CODE_SPAN.finditer(text)]
    assert inline_code(text) == [m.group(2).strip() for m in OLD_CODE_SPAN.finditer(text)]


def test_a_code_span_over_the_limit_is_no_span() -> None:
    assert inline_code("`" + "a" * 300 + "`") == ["a" * 300]
    assert inline_code("`" + "a" * 301 + "`") == []
    assert "ckp check" not in plain("use `ckp check` here", code=False)


#: (name, the call run on the hostile text ``s``, the unit repeated): each was quadratic or cubic
HOSTILE = [
    ("answer fence", "unfenced('```' + s + 'x')", " "),
    ("answer fence, closed", "unfenced('```json' + s + '```')", " "),
    ("sentence ends", "sentence_count(s)", "."),
    ("sentence ends, quoted", "sentence_count(s)", ".)"),
    ("slug's trailing separators", "slugify(s + 'x')", "."),
    ("call suffix", "without_call_suffix(s)", "("),
    ("plain text of code spans", "plain(s)", "`"),
    ("inline code", "inline_code(s)", "``a"),
    # Each pattern below, searched from every character of a long run, went back over the run.
    ("file name", "list(_FILE_NAME.finditer(s))", "_"),
    ("percent", "_PERCENT.search(s)", "0"),
    ("path share", "list(_PATH.finditer(s))", "_"),
    ("pointer remark", "_POINTER_REMARK.sub('', s + 'x')", "\t"),
    ("entry line", "_ENTRY.match(s)", "_"),
    ("list item", "list(_ITEM.finditer(s + 'x'))", "\t"),
    ("file in a title", "_TITLE_FILE.sub(' ', s + 'x')", "\t"),
    ("quote marker", "list(_QUOTE.finditer(s + 'x'))", "\t"),
    ("table separator", "list(_TABLE_SEP.finditer(s + 'x'))", "\t"),
    ("html line", "list(_HTML_LINE.finditer(s + 'x'))", "\t"),
    ("header lines", "bare_header_end(s.split('\\n'))", "Z"),
    ("header block", "BARE_HEADER.match(s)", "Z"),
    ("yaml key", "list(_YAML_KEY.finditer(s))", "_"),
    ("yaml line", "list(_YAML_LINE.finditer(s))", "_"),
    ("yaml line, blanks", "list(_YAML_LINE.finditer(s + 'x'))", "\t"),
    ("bold lead of an item", "BOLD_LEAD.match(s)", "**"),
    ("subject of a heading", "heading_key(s + ':')", "\t"),
    ("kind in a title", "listed([], 'a' + s + ':x')", "\t"),
    ("percent in an item", "_PERCENT.search(s)", "0 "),
    ("remark in a subject", "_REMARK.sub('', s + 'x')", "\t"),
    ("version after a subject", "_VERSION_END.sub('', s + 'x')", "\t"),
    ("version after a subject, dotted", "_VERSION_END.sub('', 'a ' + s + 'x')", "1."),
    ("status label before a full-width colon", "_CJK_LABEL.match(s)", "a"),
    ("subjects of a list", "listed(parse(s.split('\\n')), 'Notes')", "- **ab** (c: d) 1%\n"),
    ("subjects of headings", "listed(parse(s.split('\\n')), 'Notes')", "## 1. ab (c) ✅:\n"),
    ("status word, accents folded", "_STATUS_STEM.search(_folded(s))", "é"),
    ("status clause", "_FIRST_CLAUSE.match(s)", "a "),
    ("heading run into text", "list(_RUN_IN_HEADING.finditer(s + 'x'))", "a##\t"),
    ("remark dropped from a long sentence", "_LONG_REMARK.sub('', s + 'x')", "\t"),
    ("code value of a field", "_CODE_VALUE.match(s)", "a"),
    ("sentences around code spans", "_sentences(s, 'en')", "`a.` b "),
    ("field item of a code value", "_FIELD_ITEM.match(s)", "a"),
    ("dated log", "dated_log(parse(s.split('\\n')))", "- [2026-01-01 10:00] **a (b) — c** : d\n"),
    ("dated log, nested", "dated_log(parse(s.split('\\n')))", "### 2026-01-01 a: b\n  - 2026-01-02 c\n"),
    ("date of an entry", "_DATED.match(s)", "[ "),
    ("request opening", "is_request(s + 'x')", "« "),
    ("back-reference opening", "points_back(s + 'x')", "\t"),
    ("compound of a question", "COMPOUND.findall(s + 'a')", "ab-"),
    ("compound of a question, long pieces", "COMPOUND.findall(s + '-a')", "abc-"),
]
SETUP = (
    "from ckp_lsp.core.compile.answer import sentence_count, slugify, unfenced\n"
    "from ckp_lsp.core.compile.offline.keywords import without_call_suffix\n"
    "from ckp_lsp.core.compile.offline.text import inline_code, plain, _ITEM, _QUOTE\n"
    "from ckp_lsp.core.compile.offline.text import _HTML_LINE, _TABLE_SEP, _YAML_KEY, _YAML_LINE\n"
    "from ckp_lsp.core.format.fields import BARE_HEADER, bare_header_end\n"
    "from ckp_lsp.core.compile.offline.keywords import _FILE_NAME\n"
    "from ckp_lsp.core.compile.offline.structure import _PATH, _PERCENT, _POINTER_REMARK\n"
    "from ckp_lsp.core.compile.offline.summary import _ENTRY, _TITLE_FILE\n"
    "from ckp_lsp.core.compile.offline.subjects import BOLD_LEAD, _PERCENT, _REMARK, _VERSION_END\n"
    "from ckp_lsp.core.compile.offline.subjects import heading_key, listed\n"
    "from ckp_lsp.core.compile.offline.structure import _CJK_LABEL\n"
    "from ckp_lsp.core.compile.offline.text import parse\n"
    "from ckp_lsp.core.compile.offline.structure import _FIRST_CLAUSE, _RUN_IN_HEADING, _STATUS_STEM, _folded\n"
    "from ckp_lsp.core.compile.offline.summary import _CODE_VALUE, _FIELD_ITEM, _sentences\n"
    "from ckp_lsp.core.compile.offline.summary import _REMARK as _LONG_REMARK\n"
    "from ckp_lsp.core.compile.offline.logs import _DATED, dated_log\n"
    "from ckp_lsp.core.language.address import is_request, points_back\n"
    "from ckp_lsp.core.routing.compounds import COMPOUND\n"
)


@pytest.mark.parametrize(("what", "call", "unit"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_text_takes_linear_time(what: str, call: str, unit: str) -> None:
    """200,000 characters: a linear pass takes well under a second, a quadratic one hours (40
    billion steps), so the generous bound below cannot be met by chance, whatever the load."""
    code = f"{SETUP}s = {unit!r} * (200_000 // {len(unit)})\n{call}\n"
    try:
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what}: 200,000 characters of {unit!r} took over 60 s")
    assert run.returncode == 0, run.stderr


def test_the_rewritten_helpers_say_what_the_patterns_said() -> None:
    assert unfenced('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert unfenced('``` JSON {"a": 1} ```') == '{"a": 1}'
    assert unfenced('{"a": 1}') == '{"a": 1}'
    assert unfenced("``````") == ""
    assert without_call_suffix("fetch(url, opts)") == "fetch"
    assert without_call_suffix("items[]") == "items"
    assert without_call_suffix("a\nb(c)") == "a\nb"
    assert without_call_suffix("plain") == "plain"
    assert slugify("JWT Auth...") == "jwt-auth"
    assert sentence_count("One. Two! Three?") == 3
    assert sentence_count("One... two") == 1


def test_the_section_outline_of_80000_headings_takes_linear_time() -> None:
    """Each heading's section ends at the next heading of its level or above: found in one pass,
    not by a search after every heading (80,000 headings: 3 billion steps, minutes, that way)."""
    code = (
        "from ckp_lsp.core.navigation.outline import outline\n"
        "lines = ['# a', '## b', 'text', '### c', '#### d', ''] * 20_000\n"
        "found = outline(lines).flat()\n"
        "assert len(found) == 80_000 and found[0].end_line == 4 and found[1].end_line == 4\n"
    )
    try:
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the outline of 80,000 headings took over 60 s")
    assert run.returncode == 0, run.stderr


@given(st.lists(st.sampled_from(["# a", "## b", "### c", "", "text", "#### d"]), max_size=40))
def test_each_section_ends_where_the_next_heading_of_its_level_or_above_starts(lines: list[str]) -> None:
    from ckp_lsp.core.navigation.outline import outline

    found = outline(lines).flat()
    for i, h in enumerate(found):
        nxt = next((g.line for g in found[i + 1 :] if g.level <= h.level), len(lines))
        end = nxt - 1
        while end > h.line and not lines[end].strip():
            end -= 1
        assert h.end_line == end
