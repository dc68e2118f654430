"""Replacing a header and nothing else (SPEC §7): the body stays byte-identical, the header keeps its
form, its line endings and the user's own front-matter keys, and reads back as the new values."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ckp_lsp.core.compile.compiler import compile_header
from ckp_lsp.core.compile.merge import offline_values
from ckp_lsp.core.edit.rewrite import body_of, header_region, replace_header
from ckp_lsp.core.format.fields import CKP_FIELDS, LIST_FIELDS
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.format.text import split_lines
from tests.unit.builders import bank_of_texts

MONTH = "2026-11"
BARE_KEY = re.compile(r"[A-Z][A-Z0-9_]*:")
OTHERS = {
    "oauth2.md": "CONCEPT: oauth2\nTLDR: OAuth2 login flows.\nANSWERS_WHEN: oauth2, login\nVALIDATED: 2026-10\n\nLogin.\n",
    "cors.md": "CONCEPT: cors\nTLDR: Cross-origin requests.\nANSWERS_WHEN: cors, origin\nVALIDATED: 2026-10\n\nCORS.\n",
}

# --- what a file is made of ------------------------------------------------------------------

# Pieces a body is built from: line breaks of every kind, header look-alikes, fences, non-BMP text.
BODY_PIECES = st.sampled_from(
    [
        "\n", "\r\n", "\r", "\r\r\n", "KEY: v", "CONCEPT: other", "TLDR: x", "---", "...", "# Title",
        " ", "\t", "é", "🔑", "\ufeff", "\u2028", "\x85", "- item", "key: value", ":", "`code`",
    ]
)  # fmt: skip
ANY_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
BODY_TEXT = st.lists(st.one_of(BODY_PIECES, ANY_TEXT), max_size=12).map("".join)


# A bare header ends at the first line that is not `KEY:`: a blank line, or any other line.
BARE_BODY = st.one_of(
    st.just(""),
    st.builds(operator.add, st.sampled_from(["\n", "\r\n", "\r"]), BODY_TEXT),
    BODY_TEXT.filter(lambda b: not BARE_KEY.match(b)),
)
FM_BODY = st.one_of(st.just(""), BODY_TEXT)

SLUG = st.from_regex(r"[a-z0-9][a-z0-9-]{0,10}", fullmatch=True)
# Values as the compiler hands them over: one line, whitespace runs folded to one space. Controls
# that are no whitespace (NUL, ESC, DEL, C1) and U+FFFE/U+FFFF come along: a value kept from a file
# may hold them, and YAML reads them only escaped.
WORDS = st.text(
    st.characters(
        blacklist_categories=("Cs", "Zl", "Zp", "Zs"),
        blacklist_characters=",\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85",
    ),
    min_size=1,
    max_size=8,
)
VALUE = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)
KEYWORD = st.lists(WORDS, min_size=1, max_size=3).map(" ".join)
DATE = st.sampled_from(["2025-05", "2026-10", "2026-11-03"])


def rewrite(text: str, values: dict[str, str | list[str]], default_form: str = "bare") -> str:
    """``text`` with its header replaced by ``values``, as every writer puts ``replace_header``'s parts together."""
    new, old = replace_header(text, values, default_form)
    return new + text[len(old) :]


@st.composite
def new_values(draw: st.DrawFn) -> dict[str, str | list[str]]:
    """The values a header is replaced with."""
    values: dict[str, str | list[str]] = {
        "CONCEPT": draw(SLUG),
        "TLDR": draw(VALUE),
        "ANSWERS_WHEN": draw(st.lists(KEYWORD, min_size=1, max_size=5)),
        "SIMILAR_HIGH": [f"{c}:{MONTH}" for c in draw(st.lists(SLUG, max_size=3))],
        "SIMILAR_MID": [f"{c}:{MONTH}" for c in draw(st.lists(SLUG, max_size=3))],
        "CONFIDENCE": draw(st.sampled_from(["high", "medium", "low"])),
        "VALIDATED": MONTH,
    }
    return values


@dataclass
class Original:
    """A file's header, built line by line, and which of its lines belong to the user."""

    form: str
    nl: str
    lines: list[str]
    user_lines: list[str]

    @property
    def header(self) -> str:
        return self.nl.join(self.lines) + self.nl


OLD_CKP = {
    "CONCEPT": "jwt",
    "TLDR": "How access tokens are signed.",
    "ANSWERS_WHEN": ["jwt", "access token", "bearer"],
    "SIMILAR_HIGH": ["oauth2:2026-01"],
    "SIMILAR_MID": ["cors:2026-01", "http-headers"],
    "CONFIDENCE": "medium",
    "VALIDATED": "2026-01",
}
USER_ENTRIES = [
    ["title: 'JWT: the details'"],
    ['title: "Tokens, signed"'],
    ["tags: [auth, tokens]"],
    ["tags:", "  - auth", "  - security"],
    ["owner: web-team"],
    ["# a comment of the user"],
    ["OWNER: team-a"],
    ["description: >-", "  folded text that", "  spans two lines"],
    ["draft: false"],
]


@st.composite
def originals(draw: st.DrawFn) -> Original:
    """A header in either form; front matter with user keys and CKP lists in every style."""
    form = draw(st.sampled_from(["bare", "frontmatter"]))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    keys = draw(st.lists(st.sampled_from(CKP_FIELDS), min_size=1, max_size=7, unique=True))
    if form == "bare":
        pad = draw(st.sampled_from([1, 14]))
        lines = []
        for k in keys:
            v = OLD_CKP[k]
            lines.append(
                f"{(k + ':').ljust(pad) if pad > 1 else k + ':'} {', '.join(v) if isinstance(v, list) else v}"
            )
        user = ["OWNER: team-a"] if draw(st.booleans()) else []
        return Original(form, nl, lines + user, user)
    entries: list[tuple[list[str], bool]] = []
    for k in keys:
        v = OLD_CKP[k]
        if isinstance(v, list):
            style = draw(st.sampled_from(["comma", "block", "flow"]))
            if style == "block":
                entries.append(([f"{k}:", *(f"  - {x}" for x in v)], False))
            elif style == "flow":
                entries.append(([f"{k}: [{', '.join(v)}]"], False))
            else:
                entries.append(([f"{k}: {', '.join(v)}"], False))
        else:
            entries.append(([f"{k}: {v}"], False))
    for user_entry in draw(st.lists(st.sampled_from(USER_ENTRIES), max_size=4, unique_by=lambda e: e[0])):
        entries.append((user_entry, True))
    order = draw(st.permutations(entries))
    close = draw(st.sampled_from(["---", "..."]))
    lines = ["---", *(line for entry, _ in order for line in entry), close]
    # Comments go along (one right below a block list is read as part of it): only keys are checked.
    user = [line for entry, is_user in order if is_user for line in entry if not line.startswith("#")]
    return Original(form, nl, lines, user)


# --- what must hold --------------------------------------------------------------------------


def header_part(result: str, body: str) -> str:
    """The result minus the body, which must be its unchanged tail."""
    assert result.endswith(body), "the body changed"
    return result[: len(result) - len(body)] if body else result


def assert_header_kept_its_shape(original: Original, new_header: str) -> None:
    """Same form, the original line ending only, the user's lines verbatim and in order."""
    breaks = re.findall(r"\r\n|\r|\n", new_header)
    assert breaks and set(breaks) == {original.nl}, f"line endings changed: {set(breaks)}"
    lines = split_lines(new_header.removesuffix(original.nl))
    if original.form == "frontmatter":
        assert lines[0] == "---" and lines[-1] == original.lines[-1]
    else:
        assert all(BARE_KEY.match(line) for line in lines), lines
    it = iter(lines)
    assert all(line in it for line in original.user_lines), (original.user_lines, lines)


def assert_reads_back(text: str, values: dict[str, str | list[str]], form: str) -> None:
    """The header of ``text`` parses, in ``form``, to exactly ``values`` (empty lists omitted)."""
    header = parse_header(text)
    assert header is not None and header.form == form
    assert header.yaml_error is None, header.yaml_error
    got = {}
    for f in header.fields:
        if f.key in CKP_FIELDS:
            assert f.key not in got, f"{f.key} written twice"
            got[f.key] = [i.text for i in f.items] if f.key in LIST_FIELDS else f.value
    expected = {k: v for k, v in values.items() if v not in ("", [])}
    assert got == expected


@pytest.mark.scale
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(original=originals(), body=st.data(), values=new_values())
def test_rewrite_replaces_the_header_only(original: Original, body: st.DataObject, values: dict) -> None:
    tail = body.draw(BARE_BODY if original.form == "bare" else FM_BODY)
    text = original.header + tail
    assert body_of(text) == tail  # the generator's body is what the tools call the body
    result = rewrite(text, values)
    assert_header_kept_its_shape(original, header_part(result, tail))
    assert_reads_back(result, values, original.form)
    assert body_of(result) == tail


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(original=originals(), body=st.data())
def test_offline_compile_replaces_the_header_only(original: Original, body: st.DataObject) -> None:
    tail = body.draw(BARE_BODY if original.form == "bare" else FM_BODY)
    text = original.header + tail
    bank = bank_of_texts({**OTHERS, "notes/jwt.md": text})
    compiled = compile_header(bank, "notes/jwt.md", text, None, month=MONTH)
    assert compiled.replaced == header_part(text, tail)
    assert compiled.text == compiled.header + tail
    assert_header_kept_its_shape(original, compiled.header)
    a = compiled.answer
    had_concept = any(line.startswith("CONCEPT:") for line in original.lines)
    concept = "jwt" if had_concept else a.concept
    kf = read_knowledge_file("notes/jwt.md", text)
    known = {"oauth2", "cors", concept or ""}
    # What an offline compile keeps of the old header (SPEC §7) is merge's to test; here: the
    # header holds exactly those values, in its old shape.
    expected = offline_values(
        kf if kf.header is not None else None, a, concept or "", MONTH, known, fill=False
    )
    assert_reads_back(compiled.text, expected, original.form)


# --- cases worth naming ----------------------------------------------------------------------

VALUES: dict[str, str | list[str]] = {
    "CONCEPT": "jwt",
    "TLDR": "Signed access tokens: issue, verify, rotate.",
    "ANSWERS_WHEN": ["jwt", "access token"],
    "SIMILAR_HIGH": [f"oauth2:{MONTH}"],
    "VALIDATED": MONTH,
}


def test_a_file_without_header_gets_a_bare_one_and_a_blank_line_before_its_body() -> None:
    text = "# Tokens\r\n\r\nBody.\r\n"
    result = rewrite(text, VALUES)
    assert result.endswith("\r\n\r\n" + text)
    assert_reads_back(result, VALUES, "bare")


def test_a_header_without_a_body_keeps_ending_as_it_did() -> None:
    assert not rewrite("CONCEPT: jwt\nTLDR: x", VALUES).endswith("\n")
    assert rewrite("CONCEPT: jwt\nTLDR: x\n", VALUES).endswith(f"VALIDATED:    {MONTH}\n")


def test_block_lists_stay_block_lists_and_comma_strings_stay_strings() -> None:
    text = "---\ntitle: T\nCONCEPT: jwt\nANSWERS_WHEN:\n  - a\n  - b\nSIMILAR_HIGH: cors:2026-01\n---\nBody\n"
    result = rewrite(text, VALUES)
    assert "ANSWERS_WHEN:\n  - jwt\n  - access token\n" in result
    assert f"SIMILAR_HIGH: oauth2:{MONTH}\n" in result
    assert result.startswith("---\ntitle: T\n") and result.endswith("---\nBody\n")


def test_replace_header_names_exactly_the_old_header() -> None:
    text = "CONCEPT: jwt\r\nTLDR: x\r\n\r\nBody\rstill body\r\n"
    new, old = replace_header(text, VALUES)
    assert old == "CONCEPT: jwt\r\nTLDR: x\r\n"
    assert header_region(text).body_offset == len(old)
    assert text[len(old) :] == "\r\nBody\rstill body\r\n"  # the body, untouched
    assert new.startswith("CONCEPT:      jwt\r\n") and new.endswith(f"VALIDATED:    {MONTH}\r\n")


def test_a_lone_cr_header_keeps_its_body_and_line_endings() -> None:
    # Old Mac line endings: the parser ends a line at a lone CR, so the rewrite must too.
    text = "CONCEPT: jwt\rTLDR: x\rANSWERS_WHEN: a\r\rBody line one\rBody line two\r"
    assert body_of(text) == "\rBody line one\rBody line two\r"
    result = rewrite(text, VALUES)
    assert result.endswith("\rBody line one\rBody line two\r")
    assert "\n" not in result


def test_a_multi_line_ckp_value_in_front_matter_is_replaced_whole() -> None:
    # A folded TLDR and a flow list over two lines: their continuation lines are the field's.
    text = (
        "---\ntitle: T\nCONCEPT: jwt\nTLDR: >\n  Folded over\n  two lines.\n"
        "ANSWERS_WHEN: [jwt,\n  bearer]\n---\nBody\n"
    )
    result = rewrite(text, VALUES)
    assert result.endswith("---\nBody\n")
    assert "Folded over" not in result and "bearer" not in result
    assert_reads_back(result, VALUES, "frontmatter")


def test_a_block_list_with_a_comment_after_its_key_is_replaced_whole() -> None:
    text = "---\nCONCEPT: jwt\nANSWERS_WHEN:  # what questions hit this file\n  - a\n  - b\ntitle: T\n---\nBody\n"
    result = rewrite(text, VALUES)
    assert "  - a\n" not in result and "title: T\n" in result
    assert_reads_back(result, VALUES, "frontmatter")


# Characters YAML will not read raw (U+FFFE, U+FFFF, a C1 control, NUL, ESC, DEL) or reads as a line
# break (U+0085, U+2028, U+2029), and a BOM: each inside a word, as a value kept from a file holds it.
UNPRINTABLE = ["\ufffe", "\uffff", "\x85", "\u2028", "\u2029", "\x9b", "\x00", "\x1b", "\x7f", "\ufeff"]
STYLES = {
    "comma": "---\nCONCEPT: jwt\nANSWERS_WHEN: a, b\n---\nBody\n",
    "block": "---\nCONCEPT: jwt\nANSWERS_WHEN:\n  - a\n---\nBody\n",
    "flow": "---\nCONCEPT: jwt\nANSWERS_WHEN: [a]\n---\nBody\n",
    "bare": "CONCEPT: jwt\nANSWERS_WHEN: a, b\n\nBody\n",
}


@pytest.mark.parametrize("char", UNPRINTABLE, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize("style", STYLES)
def test_a_value_with_a_character_yaml_reads_only_escaped_reads_back_exactly(char: str, style: str) -> None:
    values: dict[str, str | list[str]] = {
        **VALUES,
        "TLDR": f"Signed{char}tokens: issue, verify.",
        "ANSWERS_WHEN": [f"jwt{char}bearer", "access token"],
    }
    result = rewrite(STYLES[style], values)
    assert body_of(result) == body_of(STYLES[style])
    assert_reads_back(result, values, "bare" if style == "bare" else "frontmatter")
    if style != "bare":
        assert char not in result  # escaped, never raw: the file stays YAML any loader reads


def test_front_matter_escapes_as_yaml_dumps_and_bare_headers_write_the_value_as_is() -> None:
    values: dict[str, str | list[str]] = {"CONCEPT": "jwt", "TLDR": 'a\ufffeb\x85c\u2028d\x9be "f"'}
    front = rewrite("---\nCONCEPT: jwt\n---\nBody\n", values)
    assert 'TLDR: "a\\uFFFEb\\Nc\\Ld\\x9Be \\"f\\""\n' in front
    assert front.isascii()
    bare = rewrite("CONCEPT: jwt\n\nBody\n", values)
    assert bare.startswith('CONCEPT: jwt\nTLDR:    a\ufffeb\x85c\u2028d\x9be "f"\n')


def test_a_lone_surrogate_is_written_escaped_never_raw() -> None:
    # Raw, it cannot be saved as UTF-8; escaped, libyaml refuses it (CKP006) and a compile with it.
    result = rewrite("---\nCONCEPT: jwt\n---\nBody\n", {"CONCEPT": "jwt", "TLDR": "a\ud800b"})
    assert 'TLDR: "a\\uD800b"\n' in result
    result.encode("utf-8")
