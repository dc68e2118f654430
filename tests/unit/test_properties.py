"""Properties over arbitrary text: the core never raises and every range lies inside its document."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.format.text import decode
from tests.unit.builders import assert_inside, bare_header, text_at

# Pieces that steer random text towards headers, fences, lists, odd line endings and wide characters.
FRAGMENTS = [
    "---",
    "...",
    "\n",
    "\r\n",
    "\r",
    "\0",
    "\t",
    " ",
    ",",
    ":",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "'",
    '"',
    "&a ",
    "*a",
    "#",
    "CONCEPT: ",
    "TLDR: ",
    "ANSWERS_WHEN: ",
    "SIMILAR_HIGH: ",
    "SIMILAR_MID:",
    "CONFIDENCE: ",
    "VALIDATED: ",
    "FOO:",
    "title: ",
    "jwt",
    "JWT Auth",
    "jwt:2025-05",
    "oauth2:2025-13",
    "2024-02-29",
    "9999-12",
    "\U0001f680",
    "é",
    "\ufffd",
    "\u2028",
    "\x85",
    "\ufeff",
    "<!-- ckp:index:start -->",
    "<!-- ckp:index:end -->",
    "|",
    "\\|",
]
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=30)
DOCUMENTS = st.lists(st.one_of(st.sampled_from(FRAGMENTS), ANY_TEXT), max_size=40).map("".join)
PROPERTY = settings(max_examples=120, deadline=None)

NEIGHBOURS = {
    "jwt.md": bare_header(SIMILAR_HIGH="oauth2:2025-05"),
    "oauth2.md": bare_header(CONCEPT="oauth2", ANSWERS_WHEN="jwt, login", VALIDATED="2025-09"),
    "b.md": bare_header(CONCEPT="b", ANSWERS_WHEN="jwt"),
}


def bank_with(text: str, utf8: bool = True) -> Bank:
    bank = Bank(Path("/nonexistent/memory-bank"))
    for rel, other in NEIGHBOURS.items():
        bank.set_file(rel, other)
    bank.set_file("doc.md", text, utf8)
    return bank


@PROPERTY
@given(DOCUMENTS)
def test_parse_header_never_raises_and_its_spans_lie_inside(text: str) -> None:
    header = parse_header(text)
    if header is None:
        return
    for f in header.fields:
        assert_inside(text, f.key_span)
        assert_inside(text, f.value_span)
        for item in f.items:
            assert_inside(text, item.span)
            if header.form == "bare":
                assert text_at(text, item.span) == item.text
    if header.yaml_error is not None:
        assert_inside(text, header.yaml_error[1])


@PROPERTY
@given(DOCUMENTS)
def test_read_knowledge_file_never_raises_and_its_findings_lie_inside(text: str) -> None:
    kf = read_knowledge_file("doc.md", text)
    for finding in kf.local:
        assert_inside(text, finding.span)
        assert finding.message


@PROPERTY
@given(DOCUMENTS)
def test_check_file_never_raises_and_every_range_lies_inside(text: str) -> None:
    bank = bank_with(text)
    for finding in check_file(bank, "doc.md"):
        assert_inside(text, finding.span)
    for rel, other in NEIGHBOURS.items():
        for finding in check_file(bank, rel):
            assert_inside(other, finding.span)


@PROPERTY
@given(st.binary(max_size=200))
def test_any_bytes_decode_and_check_without_raising(data: bytes) -> None:
    text, utf8 = decode(data)
    assert not text.startswith("\ufeff")
    for finding in check_file(bank_with(text, utf8), "doc.md"):
        assert_inside(text, finding.span)


@PROPERTY
@given(DOCUMENTS)
def test_check_index_never_raises_and_its_ranges_lie_inside(text: str) -> None:
    bank = bank_with(bare_header())
    bank.index_text = text
    for finding in check_index(bank):
        assert_inside(text, finding.span)


@PROPERTY
@given(DOCUMENTS.filter(lambda t: "\r" not in t))
def test_crlf_and_lf_give_the_same_findings(text: str) -> None:
    lf = read_knowledge_file("doc.md", text).local
    crlf = read_knowledge_file("doc.md", text.replace("\n", "\r\n")).local
    assert [(f.code, f.span) for f in crlf] == [(f.code, f.span) for f in lf]
