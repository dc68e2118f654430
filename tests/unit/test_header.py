"""The header of SPEC §2: both forms, their spans, line endings, BOM and UTF-16 columns."""

from __future__ import annotations

import pytest

from ckp_lsp.core.format.fields import CKP_FIELDS, Field, Header
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.format.text import Span, decode
from tests.unit.builders import HEADERS, text_at

BARE = (HEADERS / "bare.md").read_text(encoding="utf-8")
FRONT = (HEADERS / "frontmatter.md").read_text(encoding="utf-8")
EMOJI = (HEADERS / "emoji.md").read_text(encoding="utf-8")


def parsed(text: str) -> Header:
    header = parse_header(text)
    assert header is not None
    return header


def field(header: Header, key: str) -> Field:
    f = header.first(key)
    assert f is not None, key
    return f


def items(header: Header, key: str) -> list[str]:
    return [i.text for i in field(header, key).items]


# --- bare form ---------------------------------------------------------------------------------


def test_bare_form_reads_every_field_in_order() -> None:
    header = parsed(BARE)
    assert header.form == "bare"
    assert [f.key for f in header.fields] == list(CKP_FIELDS)
    assert field(header, "CONCEPT").value == "mentat"
    assert items(header, "SIMILAR_HIGH") == ["prescient:2025-05", "civis:2025-05"]
    assert items(header, "ANSWERS_WHEN")[:3] == ["mentat", "civic", "ISTAT"]
    assert len(items(header, "ANSWERS_WHEN")) == 9


def test_bare_header_ends_at_the_first_line_that_is_not_a_key() -> None:
    # The sample has no blank line before its body: the body line ends the header anyway.
    assert parsed(BARE).end_line == 7
    header = parsed("CONCEPT: a\nTLDR: t\n\nNOTE: in the body\n")
    assert header.end_line == 2
    assert [f.key for f in header.fields] == ["CONCEPT", "TLDR"]


def test_bare_spans_of_keys_values_and_items_are_tight() -> None:
    header = parsed(BARE)
    concept = field(header, "CONCEPT")
    assert concept.key_span == Span(0, 0, 0, 7)
    assert concept.value_span == Span(0, 14, 0, 20)
    keywords = field(header, "ANSWERS_WHEN").items
    assert [i.span for i in keywords[:3]] == [Span(2, 14, 2, 20), Span(2, 22, 2, 27), Span(2, 29, 2, 34)]
    high = field(header, "SIMILAR_HIGH").items
    assert [i.span for i in high] == [Span(3, 14, 3, 31), Span(3, 33, 3, 46)]
    assert field(header, "SIMILAR_MID").items[0].span == Span(4, 14, 4, 36)


def test_every_bare_item_span_covers_exactly_its_text() -> None:
    for f in parsed(BARE).fields:
        for item in f.items:
            assert text_at(BARE, item.span) == item.text


def test_bare_field_with_empty_value_has_no_items_and_a_span_after_the_colon() -> None:
    tldr = field(parsed("CONCEPT: a\nTLDR:\nANSWERS_WHEN: x\n"), "TLDR")
    assert tldr.items == []
    assert tldr.value == ""
    assert tldr.value_span == Span(1, 5, 1, 5)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# Title\n\nCONCEPT: not at the top\n",
        "concept: lower-case keys are not a header\n",
        " CONCEPT: indented\n",
    ],
)
def test_text_without_a_header_has_none(text: str) -> None:
    assert parse_header(text) is None


def test_no_header_data_file_has_none() -> None:
    assert parse_header((HEADERS / "no-header.md").read_text(encoding="utf-8")) is None


def test_bare_header_split_by_lone_carriage_returns() -> None:
    # Old Mac line endings: an editor sees three lines, so must the parser.
    header = parsed("CONCEPT: a\rTLDR: b\rANSWERS_WHEN: x, y\rBody")
    assert [(f.key, f.line) for f in header.fields] == [("CONCEPT", 0), ("TLDR", 1), ("ANSWERS_WHEN", 2)]
    assert field(header, "CONCEPT").value == "a"
    assert field(header, "ANSWERS_WHEN").items[1].span == Span(2, 17, 2, 18)
    assert header.end_line == 3


# --- front-matter form -------------------------------------------------------------------------


def test_front_matter_reads_ckp_keys_and_keeps_user_keys_apart() -> None:
    header = parsed(FRONT)
    assert header.form == "frontmatter"
    assert [f.key for f in header.fields] == list(CKP_FIELDS)
    assert header.user_keys == ["title", "tags", "draft"]
    assert header.end_line == 16  # the line after the closing fence
    assert header.yaml_error is None


def test_user_keys_are_ignored_by_the_checks() -> None:
    kf = read_knowledge_file("mentat.md", FRONT)
    assert kf.local == []
    assert kf.concept == "mentat"


def test_lists_as_comma_string_flow_list_and_block_list() -> None:
    header = parsed(FRONT)
    assert items(header, "ANSWERS_WHEN") == ["mentat", "civic", "ISTAT"]  # flow [a, b]
    assert items(header, "SIMILAR_HIGH") == ["prescient:2025-05", "civis:2025-05"]  # comma string
    assert items(header, "SIMILAR_MID") == ["travelguidehub:2025-05", "geography:2025-04"]  # block - a


def test_front_matter_item_spans_in_each_list_form() -> None:
    header = parsed(FRONT)
    flow = field(header, "ANSWERS_WHEN").items
    assert [i.span for i in flow] == [Span(7, 15, 7, 21), Span(7, 23, 7, 28), Span(7, 30, 7, 35)]
    comma = field(header, "SIMILAR_HIGH").items
    assert [i.span for i in comma] == [Span(8, 14, 8, 31), Span(8, 33, 8, 46)]
    block = field(header, "SIMILAR_MID").items
    # The quoted block item's span is its text, without the quotes.
    assert [i.span for i in block] == [Span(10, 4, 10, 26), Span(11, 5, 11, 22)]
    assert field(header, "CONCEPT").key_span == Span(5, 0, 5, 7)


def test_front_matter_scalars_stay_as_written() -> None:
    header = parsed("---\nVALIDATED: 2025-05-18\nCONFIDENCE: yes\nANSWERS_WHEN: [1.0, on, 007]\n---\n")
    assert field(header, "VALIDATED").value == "2025-05-18"
    assert field(header, "CONFIDENCE").value == "yes"
    assert items(header, "ANSWERS_WHEN") == ["1.0", "on", "007"]


def test_front_matter_closed_by_dots_and_empty_front_matter() -> None:
    assert parsed("---\nCONCEPT: a\n...\nbody\n").end_line == 3
    empty = parsed("---\n---\nbody\n")
    assert empty.fields == []
    assert empty.yaml_error is None


def test_unclosed_front_matter_is_a_yaml_error_on_the_fence() -> None:
    header = parsed("---\nCONCEPT: a\nTLDR: t\n")
    assert header.yaml_error is not None
    message, span = header.yaml_error
    assert "not closed" in message and "add a line '---'" in message
    assert span == Span(0, 0, 0, 3)


def test_invalid_yaml_points_at_the_line_of_the_problem() -> None:
    header = parsed("---\nCONCEPT: a\nTLDR: [unclosed\nANSWERS_WHEN: x\n---\n")
    assert header.yaml_error is not None
    message, span = header.yaml_error
    assert "not valid YAML" in message
    assert span.start_line in (2, 3)
    assert span.end_line == span.start_line


def test_front_matter_that_is_not_a_mapping_is_an_error() -> None:
    header = parsed("---\n- just\n- a list\n---\n")
    assert header.yaml_error is not None
    assert header.yaml_error[1] == Span(1, 0, 1, 6)


@pytest.mark.parametrize("value", ["&a [*a]", "&a {k: *a}"])
def test_recursive_yaml_alias_does_not_raise(value: str) -> None:
    header = parsed(f"---\nCONCEPT: x\nANSWERS_WHEN: {value}\n---\n")
    f = field(header, "ANSWERS_WHEN")
    assert f.line == 2
    read_knowledge_file("x.md", f"---\nCONCEPT: x\nANSWERS_WHEN: {value}\n---\n")


def test_front_matter_key_twice_gives_two_fields() -> None:
    header = parsed("---\nCONCEPT: a\nCONCEPT: b\n---\n")
    assert [(f.key, f.line) for f in header.fields] == [("CONCEPT", 1), ("CONCEPT", 2)]


# --- line endings, BOM, UTF-16 ------------------------------------------------------------------


def _shape(header: Header) -> list[tuple[object, ...]]:
    return [
        (f.key, f.key_span, f.value, f.value_span, [(i.text, i.span) for i in f.items]) for f in header.fields
    ]


@pytest.mark.parametrize("text", [BARE, FRONT, EMOJI], ids=["bare", "frontmatter", "emoji"])
def test_crlf_gives_the_same_fields_and_spans_as_lf(text: str) -> None:
    lf = parsed(text)
    crlf = parsed(text.replace("\n", "\r\n"))
    assert _shape(crlf) == _shape(lf)
    assert crlf.end_line == lf.end_line
    assert crlf.user_keys == lf.user_keys
    assert not any("\r" in f.value for f in crlf.fields)


@pytest.mark.parametrize("text", [BARE, FRONT], ids=["bare", "frontmatter"])
def test_bom_is_not_part_of_any_position(text: str) -> None:
    decoded, utf8 = decode(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert utf8
    assert decoded == text
    with_bom = parsed(decoded)
    assert _shape(with_bom) == _shape(parsed(text))
    assert with_bom.fields[0].key_span.start_col == 0


def test_emoji_before_an_item_counts_two_utf16_units() -> None:
    header = parsed(EMOJI)
    keywords = field(header, "ANSWERS_WHEN").items
    assert [i.text for i in keywords] == ["\U0001f680 launch", "\U0001f6f0 satellite", "orbit"]
    # "ANSWERS_WHEN: " is 14 units; each emoji is a surrogate pair (2 units).
    assert [i.span for i in keywords] == [Span(2, 14, 2, 23), Span(2, 25, 2, 37), Span(2, 39, 2, 44)]
    for item in keywords:
        assert text_at(EMOJI, item.span) == item.text


def test_emoji_before_an_item_in_front_matter_lists() -> None:
    flow = parsed("---\nANSWERS_WHEN: [\U0001f680 launch, orbit]\n---\n")
    assert [i.span for i in field(flow, "ANSWERS_WHEN").items] == [Span(1, 15, 1, 24), Span(1, 26, 1, 31)]
    block = parsed("---\nANSWERS_WHEN:\n  - \U0001f680 launch\n  - é orbit\n---\n")
    assert [i.span for i in field(block, "ANSWERS_WHEN").items] == [Span(2, 4, 2, 13), Span(3, 4, 3, 11)]


def test_non_ascii_before_a_relationship_date_keeps_the_date_span_tight() -> None:
    text = "CONCEPT: a\nTLDR: t\nANSWERS_WHEN: x\nSIMILAR_MID: \U0001f680:2025-05, jwt:2025-13\n"
    kf = read_knowledge_file("a.md", text)
    malformed = [f.span for f in kf.local if f.code == "CKP040"]
    assert malformed == [Span(3, 13, 3, 23)]  # 9 code points, 10 UTF-16 units
    bad_date = [f.span for f in kf.local if f.code == "CKP051"]
    assert bad_date == [Span(3, 29, 3, 36)]
    assert text_at(text, bad_date[0]) == "2025-13"


def test_the_ckp_fields_are_spec_s_seven_in_its_order() -> None:
    # What the tests above compare the parser with: SPEC's fields, written out once.
    assert CKP_FIELDS == (
        "CONCEPT",
        "TLDR",
        "ANSWERS_WHEN",
        "SIMILAR_HIGH",
        "SIMILAR_MID",
        "CONFIDENCE",
        "VALIDATED",
    )


@pytest.mark.parametrize(
    "text", ["---\nTLDR: a\ud800b\n---\n", "---\nCONCEPT: x\nTLDR: '\udfff'\n---\nbody\n"]
)
def test_a_lone_surrogate_in_front_matter_is_a_yaml_error_at_its_place(text: str) -> None:
    header = parsed(text)
    assert header.yaml_error is not None
    message, span = header.yaml_error
    assert "not valid YAML" in message and "U+D" in message
    line = text.splitlines()[span.start_line]
    assert span.start_line == span.end_line and line[span.start_col] in "\ud800\udfff"
    read_knowledge_file("x.md", text)
