"""Completion in a header, called directly: concepts, field names, CONFIDENCE values, months."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.text import index_of_utf16, split_lines
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.features.completion import LIMIT, complete, resolve

MONTH = "2026-11"
MENTAT = Path(__file__).resolve().parents[2] / "samples" / "mentat" / "memory-bank"

#: concept -> (TLDR, keywords) of the small shop bank the tests edit in
SHOP = {
    "orders": ("Customer orders from checkout to delivery.", "orders, checkout, payment"),
    "inventory": ("Stock levels per warehouse.", "inventory, stock, warehouse"),
    "invoices": ("Invoices and payment receipts.", "invoices, payment, tax"),
    "shipping": ("Parcels and carriers.", "shipping, warehouse, delivery"),
    "catalog": ("Products and prices.", "catalog, product, price"),
    "cart": ("The shopping cart and its checkout hand-off.", "cart, checkout, payment"),
}


def header(concept: str, **fields: str) -> str:
    """A bare header for one concept of SHOP, with extra or replaced fields, then a body."""
    tldr, keywords = SHOP[concept]
    values = {"CONCEPT": concept, "TLDR": tldr, "ANSWERS_WHEN": keywords, **fields}
    return "".join(f"{k}: {v}\n" for k, v in values.items()) + "\nBody.\n"


def shop(**texts: str) -> Bank:
    """The shop bank held in memory, with some files' texts replaced."""
    bank = Bank(Path("/nonexistent/memory-bank"))
    for concept in SHOP:
        bank.set_file(f"{concept}.md", texts.get(concept, header(concept)))
    return bank


#: a bank the property test only reads
SHOP_BANK = shop()


def complete_at(bank: Bank, rel: str, text: str, needle: str) -> tuple[list[str], types.CompletionList]:
    """Complete at the end of the first ``needle`` in ``text`` (the text of ``rel`` in ``bank``)."""
    bank.set_file(rel, text)
    lines = split_lines(text)
    line = next(i for i, t in enumerate(lines) if needle in t)
    col = lines[line].index(needle) + len(needle)
    return lines, complete(bank, bank.files.get(rel), lines, line, col, MONTH)


def labels(result: types.CompletionList) -> list[str]:
    return [item.label for item in result.items]


def apply(lines: list[str], item: types.CompletionItem) -> str:
    """The line the item's text edit produces."""
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit)
    start, end = edit.range.start, edit.range.end
    assert start.line == end.line
    line = lines[start.line]
    a, b = index_of_utf16(line, start.character), index_of_utf16(line, end.character)
    return line[:a] + edit.new_text + line[b:]


# --- concepts in SIMILAR fields ---


def test_typo_offers_the_concept_and_inserts_a_dated_entry() -> None:
    bank = shop()
    lines, result = complete_at(bank, "cart.md", header("cart", SIMILAR_HIGH="ordrs"), "ordrs")
    assert labels(result)[0] == "orders"
    assert apply(lines, result.items[0]) == "SIMILAR_HIGH: orders:2026-11"


def test_prefix_offers_the_concept() -> None:
    bank = shop()
    lines, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID="invent"), "invent")
    assert labels(result)[0] == "inventory"
    assert apply(lines, result.items[0]) == "SIMILAR_MID: inventory:2026-11"


def test_documentation_is_the_tldr_as_plain_text() -> None:
    """A completion menu that shows Markdown as written (Neovim's) shows no escapes or marks."""
    bank = shop()
    _, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID="cata"), "cata")
    doc = result.items[0].documentation
    assert isinstance(doc, types.MarkupContent)
    assert doc.kind == types.MarkupKind.PlainText
    assert doc.value == "Products and prices."


def test_a_client_that_resolves_gets_the_tldr_when_it_resolves_the_item() -> None:
    bank = shop()
    text = header("cart", SIMILAR_MID="cata")
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if "cata" in t)
    result = complete(
        bank, bank.files["cart.md"], lines, line, lines[line].index("cata") + 4, "2026-11", True
    )
    item = result.items[0]
    assert item.label == "catalog" and item.documentation is None
    doc = resolve(bank, item).documentation
    assert isinstance(doc, types.MarkupContent) and doc.value == "Products and prices."
    # An item that names no concept (or another bank's) is answered as it came.
    other = types.CompletionItem(label="x", data={"bank": "/elsewhere"})
    assert resolve(None, other).documentation is None and resolve(bank, other).documentation is None


def test_the_file_itself_and_listed_concepts_are_left_out() -> None:
    bank = shop()
    text = header("cart", SIMILAR_HIGH="orders:2026-10", SIMILAR_MID="shipping:2026-10, ")
    _, result = complete_at(bank, "cart.md", text, "shipping:2026-10, ")
    assert set(labels(result)) == {"inventory", "invoices", "catalog"}


def test_an_entry_being_rewritten_is_offered_again() -> None:
    bank = shop()
    text = header("cart", SIMILAR_HIGH="orders:2025-01")
    lines, result = complete_at(bank, "cart.md", text, "SIMILAR_HIGH: ord")
    assert labels(result)[0] == "orders"
    assert apply(lines, result.items[0]) == "SIMILAR_HIGH: orders:2026-11"


def test_concepts_are_ranked_by_keyword_overlap_with_the_file() -> None:
    bank = shop()
    _, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID=""), "SIMILAR_MID: ")
    ranked = labels(result)
    # cart claims checkout and payment: orders shares both, invoices one, the rest none.
    assert ranked[:2] == ["orders", "invoices"]
    assert ranked[2:] == sorted(ranked[2:])


def test_prefix_matches_rank_before_fuzzy_ones() -> None:
    bank = shop()
    _, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID="in"), "SIMILAR_MID: in")
    assert labels(result)[:2] == ["invoices", "inventory"]  # both prefixes; invoices shares payment


def test_right_after_a_comma_the_entry_gets_a_space() -> None:
    bank = shop()
    lines, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID="orders:2026-10,"), "10,")
    assert apply(lines, result.items[0]).startswith("SIMILAR_MID: orders:2026-10, ")


def test_front_matter_block_list_item() -> None:
    bank = shop()
    text = "---\nCONCEPT: cart\nTLDR: Cart.\nANSWERS_WHEN: [cart]\nSIMILAR_MID:\n  - orders:2026-10\n  - inv\n---\n"
    lines, result = complete_at(bank, "cart.md", text, "  - inv")
    assert "orders" not in labels(result)
    assert apply(lines, result.items[0]) in ("  - inventory:2026-11", "  - invoices:2026-11")


def test_front_matter_flow_list() -> None:
    bank = shop()
    text = (
        "---\nCONCEPT: cart\nTLDR: Cart.\nANSWERS_WHEN: [cart]\nSIMILAR_HIGH: [orders:2026-10, shipp]\n---\n"
    )
    lines, result = complete_at(bank, "cart.md", text, "shipp")
    assert labels(result) == ["shipping"]
    assert apply(lines, result.items[0]) == "SIMILAR_HIGH: [orders:2026-10, shipping:2026-11]"


def test_an_unparseable_file_still_completes_from_its_lines() -> None:
    bank = shop()
    lines = ["---", "title: [unclosed", "SIMILAR_HIGH: ord"]
    result = complete(bank, None, lines, 2, len(lines[2]), MONTH)
    assert labels(result)[0] == "orders"


def test_a_long_list_is_capped_and_incomplete() -> None:
    bank = shop()
    for i in range(LIMIT + 10):
        bank.set_file(f"svc/s{i}.md", f"CONCEPT: svc-{i:03d}\nTLDR: A service.\nANSWERS_WHEN: svc\n")
    _, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID="svc"), "SIMILAR_MID: svc")
    assert len(result.items) == LIMIT
    assert result.is_incomplete
    narrower = complete(bank, bank.files["cart.md"], ["SIMILAR_MID: svc-00"], 0, 19, MONTH)
    assert labels(narrower)[:10] == [f"svc-00{i}" for i in range(10)]  # the prefix matches first


def test_a_large_bank_still_finds_a_typo() -> None:
    bank = shop()
    for i in range(2100):
        bank.set_file(f"filler/f{i}.md", f"CONCEPT: {'abcdefghijklmnopqrstuvwxyz'[i % 26]}-filler-{i}\n")
    _, result = complete_at(bank, "cart.md", header("cart", SIMILAR_HIGH="ordrs"), "ordrs")
    assert labels(result)[0] == "orders"


def test_the_concepts_completion_reads_are_kept_up_to_date_not_made_again() -> None:
    bank = shop()
    names = bank.concepts()
    bank.set_file("cart.md", header("cart", SIMILAR_MID="orders:2026-10"))
    bank.set_file("cart.md", header("cart").replace("CONCEPT: cart", "CONCEPT: basket"))
    assert bank.concepts() is names and names == sorted(bank.by_concept)
    assert "basket" in names and "cart" not in names
    _, result = complete_at(bank, "orders.md", header("orders", SIMILAR_HIGH="bas"), "bas")
    assert labels(result)[0] == "basket"


def test_a_display_name_is_never_offered() -> None:
    bank = shop()
    bank.set_file("auth.md", header("cart").replace("CONCEPT: cart", "CONCEPT: cart Auth"))
    _, result = complete_at(bank, "orders.md", header("orders", SIMILAR_HIGH="car"), "car")
    assert "cart Auth" not in labels(result) and "cart" in labels(result)


def test_mentat_bank_offers_a_misspelt_concept() -> None:
    bank = load_bank(MENTAT)
    text = (MENTAT / "patterns/auth.md").read_text()
    text = text.replace("frontend:2026-11", "frontend:2026-11, geogrphy")
    _, result = complete_at(bank, "patterns/auth.md", text, "geogrphy")
    assert labels(result)[0] == "geography"
    assert "auth" not in labels(result)


@pytest.mark.parametrize(("typed", "offered"), [("istat", "mentat-istat"), ("hub", "travelguidehub")])
def test_a_concept_matches_anywhere_in_its_name(typed: str, offered: str) -> None:
    bank = load_bank(MENTAT)
    text = (MENTAT / "patterns/auth.md").read_text().replace("frontend:2026-11", f"frontend:2026-11, {typed}")
    lines, result = complete_at(bank, "patterns/auth.md", text, typed)
    assert labels(result)[0] == offered
    assert result.items[0].filter_text == typed and result.is_incomplete
    assert apply(lines, result.items[0]).endswith(f"{offered}:2026-11")


def test_a_word_of_the_name_starting_with_the_text_comes_first() -> None:
    bank = shop()
    bank.set_file("a.md", header("cart").replace("CONCEPT: cart", "CONCEPT: backorders-x"))
    bank.set_file("b.md", header("cart").replace("CONCEPT: cart", "CONCEPT: legacy-orders-y"))
    _, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID="ord"), "ord")
    assert labels(result)[:3] == ["orders", "legacy-orders-y", "backorders-x"]


# --- months, CONFIDENCE, field names ---


def test_after_concept_colon_the_current_month_is_offered() -> None:
    bank = shop()
    lines, result = complete_at(bank, "cart.md", header("cart", SIMILAR_MID="orders:"), "orders:")
    assert labels(result) == [MONTH]
    assert apply(lines, result.items[0]) == "SIMILAR_MID: orders:2026-11"


def test_validated_offers_the_current_month() -> None:
    lines = ["CONCEPT: cart", "VALIDATED:"]
    result = complete(shop(), None, lines, 1, len(lines[1]), MONTH)
    assert labels(result) == [MONTH]
    assert apply(lines, result.items[0]) == "VALIDATED: 2026-11"


def test_confidence_offers_its_three_values() -> None:
    bank = shop()
    lines, result = complete_at(bank, "cart.md", header("cart", CONFIDENCE="me"), "CONFIDENCE: me")
    assert labels(result) == ["high", "medium", "low"]
    assert apply(lines, result.items[1]) == "CONFIDENCE: medium"


def test_field_names_not_yet_present_are_offered_at_a_line_start() -> None:
    bank = shop()
    text = header("cart", SIMILAR_MID="orders:2026-10").replace("\n\nBody", "\nCONF\n\nBody")
    lines, result = complete_at(bank, "cart.md", text, "CONF")
    assert labels(result) == ["SIMILAR_HIGH", "CONFIDENCE", "VALIDATED"]
    item = next(i for i in result.items if i.label == "CONFIDENCE")
    assert apply(lines, item) == "CONFIDENCE: "
    assert isinstance(item.documentation, types.MarkupContent)


def test_field_names_in_front_matter() -> None:
    bank = shop()
    lines = ["---", "title: Cart", "CONCEPT: cart", "", "---"]
    result = complete(bank, None, lines, 3, 0, MONTH)
    assert "CONCEPT" not in labels(result) and "TLDR" in labels(result)


def test_body_lines_offer_nothing() -> None:
    bank = shop()
    text = header("cart") + "SIMILAR_HIGH: ord\n"
    _, result = complete_at(bank, "cart.md", text, "SIMILAR_HIGH: ord")
    assert result.items == []
    _, result = complete_at(bank, "cart.md", text, "Body")
    assert result.items == []


def test_columns_are_utf16() -> None:
    bank = shop()
    lines = ["CONCEPT: cart", "TLDR: 😀 cart", "SIMILAR_MID: 😀, ord"]
    result = complete(bank, None, lines, 2, len("SIMILAR_MID: 😀, ord") + 1, MONTH)
    assert apply(lines, result.items[0]) == "SIMILAR_MID: 😀, orders:2026-11"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["---", "CONCEPT: cart", "SIMILAR_HIGH: ", "  - ", "CONFIDENCE:", "x"]) | st.text(),
        max_size=6,
    ),
    st.integers(0, 8),
    st.integers(0, 40),
)
def test_completion_never_fails_and_edits_stay_on_the_cursor_line(
    lines: list[str], line: int, col: int
) -> None:
    lines = [t.replace("\r", " ").replace("\n", " ") for t in lines]
    result = complete(SHOP_BANK, None, lines, line, col, MONTH)
    for item in result.items:
        edit = item.text_edit
        assert isinstance(edit, types.TextEdit)
        assert edit.range.start.line == edit.range.end.line == line
        cursor = min(col, len(lines[line].encode("utf-16-le")) // 2)
        assert edit.range.start.character <= cursor <= edit.range.end.character
