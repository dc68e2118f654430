"""Quick fixes never corrupt a header: a rename lands only on an absent field (CKP003), and
front-matter edits sit where the YAML parser put the value; a result that does not parse is not
written."""

from __future__ import annotations

import pytest

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.edit.fixes import fix_text, fixes_for
from ckp_lsp.core.format.header import parse_header
from tests.unit.builders import bank_of_texts


def _fixed(text: str) -> str:
    return fix_text(bank_of_texts({"m.md": text}), "m.md", text)[0]


def test_ckp003_offers_no_rename_onto_a_field_that_is_there() -> None:
    text = "CONCEPT: menu\nCONTEXT: the user's own\nTLDR: A menu.\nANSWERS_WHEN: menu\n\nBody\n"
    bank = bank_of_texts({"m.md": text})
    kf = bank.files["m.md"]
    unknown = [f for f in check_file(bank, "m.md") if f.code == "CKP003"]
    assert unknown and all(fixes_for(bank, kf, f) == [] for f in unknown)
    assert _fixed(text) == text  # the user's key stays, no CKP004 appears


def test_ckp003_renames_onto_an_absent_field_once() -> None:
    text = "CONCEPT: menu\nTLDRR: A menu.\nANSWERS_WHEN: menu\n\nBody\n"
    assert _fixed(text) == "CONCEPT: menu\nTLDR: A menu.\nANSWERS_WHEN: menu\n\nBody\n"
    two = "CONCEPT: menu\nTLDRR: A menu.\nTLDDR: Another.\nANSWERS_WHEN: menu\n\nBody\n"
    fixed = _fixed(two)
    header = parse_header(fixed)
    assert header is not None and [f.key for f in header.fields].count("TLDR") == 1


# --- front matter: edits where the parser put the value, results that parse ---------------------


def _front(answers: str, extra: str = "") -> str:
    return f"---\ntitle: Menu\nCONCEPT: menu\nTLDR: A menu.\nANSWERS_WHEN: {answers}\n{extra}---\nBody\n"


@pytest.mark.parametrize(
    ("answers", "fixed"),
    [
        ('[alpha, "other", delta, other]', '[alpha, "other", delta]'),  # the quoted one is the first
        ("[other, delta, 'other']", "[other, delta]"),
        ('"other, delta, other"', '"other, delta"'),
        ("other, delta, other", "other, delta"),
        ("[delta, other, delta]", "[delta, other]"),
    ],
)
def test_a_duplicate_is_removed_where_yaml_put_it_and_nothing_else(answers: str, fixed: str) -> None:
    assert _fixed(_front(answers)) == _front(fixed)


@pytest.mark.parametrize(
    "answers",
    [
        "['it''s', delta, 'it''s']",  # '' in single quotes: not written as it reads
        '["a\\u0062", delta, ab, ab]',  # an escape
        "[[nested, list], x, x]",
    ],
)
def test_a_value_not_written_as_it_reads_is_not_edited_and_the_yaml_stays_valid(answers: str) -> None:
    text = _front(answers)
    new = _fixed(text)
    header = parse_header(new)
    assert header is not None and header.yaml_error is None
    assert header.user_keys == ["title"]
    if new != text:  # only a duplicate written plainly may go
        assert new.count("delta") == 1 and "title: Menu" in new


def test_a_users_mapping_under_a_ckp_key_is_never_overwritten() -> None:
    text = _front("[x, y]", "CONFIDENCE: {level: High, by: me}\n")
    assert _fixed(text) == text


def test_a_key_inside_a_quoted_value_is_no_key() -> None:
    text = '---\ntitle: "two\nCONCEPT: fake"\nCONCEPT: menu\nTLDR: A menu.\nANSWERS_WHEN: [x, x]\n---\nBody\n'
    header = parse_header(text)
    assert header is not None and [f.key for f in header.fields].count("CONCEPT") == 1
    assert _fixed(text) == text.replace("[x, x]", "[x]")


def test_a_round_whose_result_does_not_parse_is_not_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    from ckp_lsp.core.edit import fixes

    text = _front("[x, y, x]")
    monkeypatch.setattr(fixes, "apply_edits", lambda t, e: t.replace("[x, y, x]", "[x, y"))
    assert _fixed(text) == text
