"""The index of SPEC §5: generation, user text around the markers, both forms, drift and budget."""

from __future__ import annotations

import re

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import (
    COLUMNS,
    expected_rows,
    parse_index,
    render_section,
    update_index_text,
)
from ckp_lsp.core.format.index_format import INDEX_END, INDEX_START
from ckp_lsp.core.format.text import Span
from ckp_lsp.core.project.config import Config
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import SHOP, bank_of_texts, bare_header

SHOP_INDEX = (SHOP / "_index.md").read_text(encoding="utf-8")
HEADER_ROW = "| " + " | ".join(COLUMNS) + " |"
LISTS = ("ANSWERS_WHEN", "SIMILAR_HIGH", "SIMILAR_MID")


def shop(config: Config | None = None, index: str | None = SHOP_INDEX) -> Bank:
    bank = load_bank(SHOP, config)
    bank.index_text = index
    return bank


def drift(bank: Bank) -> list[tuple[Span, str]]:
    return [(f.span, f.message) for f in check_index(bank) if f.code == "CKP070"]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n")) if needle in line)


# --- generation ---------------------------------------------------------------------------------


def test_rows_are_sorted_by_concept_not_by_path() -> None:
    bank = bank_of_texts(
        {"a.md": bare_header(CONCEPT="zeta"), "z.md": bare_header(CONCEPT="alpha"), "m.md": "no header\n"}
    )
    assert [(r["CONCEPT"], r["FILE"]) for r in expected_rows(bank)] == [("alpha", "z.md"), ("zeta", "a.md")]
    section = render_section(expected_rows(bank), "table").split("\n")
    assert section[3].startswith("| alpha | z.md |") and section[4].startswith("| zeta | a.md |")


def test_table_section_has_the_markers_and_the_spec_columns() -> None:
    lines = render_section(expected_rows(shop()), "table").split("\n")
    assert lines[0] == INDEX_START and lines[-1] == INDEX_END
    assert lines[1] == HEADER_ROW
    assert lines[2] == "|---|---|---|---|---|---|---|---|"
    assert len(lines) == 4 + 7
    assert "| deploy | infra/deploy.md |" in lines[5]  # FILE is relative to the bank root


def test_rows_hold_the_header_values_lists_as_comma_strings() -> None:
    rows = {r["CONCEPT"]: r for r in expected_rows(shop())}
    assert rows["billing"]["ANSWERS_WHEN"] == "billing, invoice, refund"  # a YAML block list
    assert rows["oauth2"]["ANSWERS_WHEN"] == "oauth2, login, identity provider"  # a flow list
    assert rows["jwt"]["SIMILAR_MID"] == "http-headers:2025-05"
    assert rows["billing"]["VALIDATED"] == "2025-06-12"


def test_pipes_in_values_are_escaped_and_read_back() -> None:
    section = render_section(expected_rows(shop()), "table")
    assert "| Invoices, payments and refunds \\| the money side of the shop. |" in section
    (billing,) = [r for r in parse_index(section).rows if r.concept == "billing"]
    assert billing.values["TLDR"] == "Invoices, payments and refunds | the money side of the shop."
    assert billing.values["VALIDATED"] == "2025-06-12"  # the escaped pipe did not shift the cells


def test_regenerating_an_up_to_date_index_changes_no_byte() -> None:
    data = (SHOP / "_index.md").read_bytes()
    assert update_index_text(SHOP_INDEX, shop()).encode("utf-8") == data
    assert check_index(shop()) == []


def test_content_outside_the_markers_is_kept() -> None:
    bank = shop()
    bank.set_file("jwt.md", (SHOP / "jwt.md").read_text(encoding="utf-8").replace("verifies", "checks"))
    assert drift(bank)
    new = update_index_text(SHOP_INDEX, bank)
    assert new != SHOP_INDEX
    before, after = SHOP_INDEX.split(INDEX_START)[0], SHOP_INDEX.split(INDEX_END)[1]
    assert new.startswith(before) and new.endswith(after)
    assert after == "\n\nKeep this note: it is written by hand.\n"
    bank.index_text = new
    assert check_index(bank) == []


def test_an_index_without_markers_gets_the_section_appended() -> None:
    existing = "# Notes\n\nWritten by hand."
    new = update_index_text(existing, shop(index=existing))
    assert new.startswith(existing + "\n\n" + INDEX_START)
    assert new.endswith(INDEX_END + "\n")
    assert update_index_text(new, shop(index=new)) == new


def test_a_new_index_has_a_title_and_the_section() -> None:
    new = update_index_text(None, shop(index=None))
    assert new.startswith("# ")
    assert INDEX_START in new and new.endswith(INDEX_END + "\n")
    assert check_index(shop(index=new)) == []


def test_a_crlf_index_stays_crlf() -> None:
    crlf = SHOP_INDEX.replace("\n", "\r\n")
    assert update_index_text(crlf, shop(index=crlf)) == crlf
    assert check_index(shop(index=crlf)) == []
    bank = shop(index=crlf)
    bank.remove_file("redis.md")
    new = update_index_text(crlf, bank)
    assert "| redis |" not in new
    assert "\n" not in new.replace("\r\n", "")


def test_blocks_format_is_generated_checked_and_stable() -> None:
    bank = shop(Config(index_format="blocks"), index=None)
    text = update_index_text(None, bank)
    section = text[text.index(INDEX_START) : text.index(INDEX_END)]
    assert not any(line.startswith("|") for line in section.split("\n"))
    assert "---\nCONCEPT: billing\nFILE: billing.md\nTLDR: Invoices" in section
    doc = parse_index(text)
    assert doc.form == "blocks"
    assert [r.concept for r in doc.rows] == [
        "billing",
        "cart",
        "deploy",
        "http-headers",
        "jwt",
        "oauth2",
        "redis",
    ]
    bank.index_text = text
    assert check_index(bank) == []
    assert update_index_text(text, bank) == text


def test_drift_is_detected_in_the_blocks_form() -> None:
    bank = shop(Config(index_format="blocks"), index=None)
    text = update_index_text(None, bank).replace("TLDR: The Redis instance", "TLDR: An old Redis")
    bank.index_text = text
    line = line_of(text, "CONCEPT: redis")
    assert drift(bank) == [(Span(line, 0, line, len("CONCEPT: redis")), drift(bank)[0][1])]
    assert "TLDR" in drift(bank)[0][1]


def test_format_can_be_switched_and_either_form_is_read() -> None:
    blocks = update_index_text(SHOP_INDEX, shop(), "blocks")
    assert blocks.startswith(SHOP_INDEX.split(INDEX_START)[0])
    assert check_index(shop(index=blocks)) == []  # a table-configured bank reads blocks too


# --- drift --------------------------------------------------------------------------------------


def _aligned(text: str) -> str:
    """The table with its cells padded to aligned columns and lists without spaces after commas."""
    out = []
    for line in text.split("\n"):
        if line.startswith("| ") and not line.startswith("| CONCEPT"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            cells = [c.replace(", ", ",") if COLUMNS[i] in LISTS else c for i, c in enumerate(cells)]
            line = "|" + "|".join(f"  {c:<40}" for c in cells) + "|"
        out.append(line)
    return "\n".join(out)


def test_reformatting_the_table_spacing_is_not_drift() -> None:
    aligned = _aligned(SHOP_INDEX)
    assert aligned != SHOP_INDEX
    assert "|  billing,invoice,refund" in aligned
    assert check_index(shop(index=aligned)) == []


def test_a_changed_value_is_drift_on_its_row() -> None:
    text = SHOP_INDEX.replace("| high | 2025-06 |", "| high | 2025-03 |")
    line = line_of(text, "| redis |")
    (finding,) = check_index(shop(index=text))
    assert finding.code == "CKP070"
    assert finding.span == Span(line, 0, line, len(text.split("\n")[line]))
    assert "VALIDATED" in finding.message and "regenerate the index" in finding.message


def test_a_missing_row_is_drift_at_the_start_marker() -> None:
    text = "\n".join(line for line in SHOP_INDEX.split("\n") if not line.startswith("| jwt |"))
    start = line_of(text, INDEX_START)
    assert drift(shop(index=text)) == [
        (Span(start, 0, start, len(INDEX_START)), "the index is missing jwt: regenerate the index")
    ]


def test_a_row_for_a_concept_nobody_declares_is_drift_on_that_row() -> None:
    ghost = "| ghost | ghost.md | Gone. | ghost |  |  |  | 2025-01 |"
    text = SHOP_INDEX.replace("<!-- ckp:index:end -->", ghost + "\n<!-- ckp:index:end -->")
    line = line_of(text, "| ghost |")
    ((span, message),) = drift(shop(index=text))
    assert span == Span(line, 0, line, len(ghost))
    assert "'ghost'" in message and "regenerate the index" in message


def test_a_drifted_row_with_wide_characters_is_covered_to_its_end() -> None:
    text = SHOP_INDEX.replace("| The Redis instance", "| The \U0001f680 Redis instance")
    line = line_of(text, "| redis |")
    ((span, _),) = drift(shop(index=text))
    assert span == Span(line, 0, line, len(text.split("\n")[line]) + 1)  # the emoji is two UTF-16 units


def test_an_index_without_a_generated_section_is_drift_on_its_first_line() -> None:
    ((span, message),) = drift(shop(index="# Index\n\nTo be written.\n"))
    assert span == Span(0, 0, 0, 7)
    assert "`ckp index`" in message and "keeps your own text" in message


# --- budget -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "count"), [("", 0), ("abcd", 1), ("abcde", 2), ("x" * 4001, 1001)])
def test_tokens_are_characters_over_four_rounded_up(text: str, count: int) -> None:
    assert token_estimate(len(text)) == count


def test_an_index_over_its_budget_is_ckp071_at_the_start_marker() -> None:
    used = token_estimate(len(SHOP_INDEX))
    bank = shop(Config(index_budget_tokens=used - 1))
    (finding,) = check_index(bank)
    start = line_of(SHOP_INDEX, INDEX_START)
    assert finding.code == "CKP071"
    assert finding.span == Span(start, 0, start, len(INDEX_START))
    assert f"~{used:,} tokens, over its budget of {used - 1:,}" in finding.message
    assert finding.data == {"tokens": used, "budget": used - 1}
    assert check_index(shop(Config(index_budget_tokens=used))) == []
