"""Quick fixes never corrupt a header: a rename lands only on an absent field (CKP003), and
front-matter edits sit where the YAML parser put the value; a result that does not parse is not
written."""

from __future__ import annotations

from ckp_lsp.core.checks import check_file
from ckp_lsp.core.fixes import fix_text, fixes_for
from ckp_lsp.core.header import parse_header
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
