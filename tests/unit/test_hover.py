"""Hover in a header, called directly: relationship entries, the concept, field names, keywords."""

from __future__ import annotations

import posixpath
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.dates import CkpDate
from ckp_lsp.core.format.knowledge import KnowledgeFile
from ckp_lsp.core.format.text import split_lines
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.features.hover import hover, hover_in, relative

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
MENTAT = load_bank(SAMPLES / "mentat" / "memory-bank")
BROKEN = load_bank(SAMPLES / "broken" / "memory-bank")


def hover_on(
    bank: Bank, rel: str, needle: str, after: str = "", at: int | None = None
) -> tuple[types.Hover | None, types.Range]:
    """Hover in the middle of ``needle`` (the first one after ``after`` on its line), or ``at``
    characters into it; also its range."""
    for no, line in enumerate(split_lines((bank.root / rel).read_text())):
        if after in line and needle in line[line.index(after) :]:
            start = line.index(needle, line.index(after))
            kf = bank.files[rel]
            token = types.Range(
                start=types.Position(line=no, character=start),
                end=types.Position(line=no, character=start + len(needle)),
            )
            return hover(bank, kf, no, start + (len(needle) // 2 if at is None else at)), token
    raise AssertionError(f"{needle!r} not in {rel}")


def markdown(result: types.Hover | None) -> str:
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    return result.contents.value


def test_entry_shows_the_targets_tldr_file_confidence_validated_and_tier() -> None:
    result, token = hover_on(MENTAT, "patterns/auth.md", "jwt:2026-10", after="SIMILAR_HIGH", at=1)
    text = markdown(result)
    assert "How the projects issue, sign, verify and rotate JSON Web Tokens" in text
    assert "[patterns/jwt.md](jwt.md)" in text
    assert "CONFIDENCE high" in text and "VALIDATED 2026-10" in text
    assert "understanding one requires the other — always loaded together" in text
    assert "Stale" not in text
    assert result is not None and result.range == token


def test_mid_entry_explains_the_mid_tier_and_links_across_folders() -> None:
    result, _ = hover_on(MENTAT, "patterns/auth.md", "frontend:2026-11", at=1)
    text = markdown(result)
    assert "same domain — loaded when the query also matches its keywords" in text
    assert "(../stack/frontend.md)" in text


def test_stale_entry_shows_both_dates() -> None:
    result, token = hover_on(BROKEN, "jwt.md", "oauth2:2026-03", at=1)
    text = markdown(result)
    assert "Stale" in text and "2026-09" in text and "2026-03" in text
    assert result is not None and result.range == token


def test_unknown_concept_says_so_with_the_closest_suggestion() -> None:
    text = markdown(hover_on(BROKEN, "logging.md", "oauth:2026-10", at=1)[0])
    assert "no such concept" in text and "**oauth2**" in text


def test_concept_shows_how_many_files_relate_to_it_per_tier() -> None:
    result, token = hover_on(MENTAT, "patterns/jwt.md", "jwt", after="CONCEPT:")
    text = markdown(result)
    # auth and oauth2 list jwt in SIMILAR_HIGH; nothing lists it as MID.
    assert "related by 2 files as HIGH and 0 as MID" in text
    assert "auth (" in text and "oauth2 (" in text
    assert result is not None and result.range == token


def test_concept_lists_mid_backlinks() -> None:
    text = markdown(hover_on(MENTAT, "patterns/auth.md", "auth", after="CONCEPT:")[0])
    assert "as HIGH and 4 as MID" in text
    assert all(c in text for c in ("frontend (", "jwt (", "mentat (", "oauth2 ("))


def test_field_name_explains_meaning_and_limits() -> None:
    result, token = hover_on(MENTAT, "patterns/auth.md", "SIMILAR_MID")
    text = markdown(result)
    assert "**SIMILAR_MID** — optional" in text and "at most 5" in text
    assert "concept:DATE" in text
    assert result is not None and result.range == token
    assert "at most 200 characters" in markdown(hover_on(MENTAT, "patterns/auth.md", "TLDR")[0])


def test_unknown_field_name_suggests_the_ckp_one() -> None:
    text = markdown(hover_on(BROKEN, "http-headers.md", "CONFIDENSE")[0])
    assert "not a CKP field" in text and "CONFIDENCE" in text


def test_keyword_lists_the_other_concepts_claiming_it() -> None:
    result, token = hover_on(BROKEN, "jwt.md", "security")
    text = markdown(result)
    assert "Also claimed by 3 other concepts" in text
    assert all(c in text for c in ("http-headers (", "oauth2 (", "rate-limiting ("))
    assert "ambiguous" in text
    assert result is not None and result.range == token


def test_keyword_claims_are_compared_casefolded() -> None:
    bank = Bank(Path("/nonexistent/memory-bank"))
    bank.set_file("a.md", "CONCEPT: a\nTLDR: A.\nANSWERS_WHEN: Payment\n")
    bank.set_file("b.md", "CONCEPT: b\nTLDR: B.\nANSWERS_WHEN: payment\n")
    kf: KnowledgeFile = bank.files["a.md"]
    text = markdown(hover(bank, kf, 2, 16))
    assert "Also claimed by 1 other concept: b (" in text


def test_front_matter_concept_hover_shows_no_raw_front_matter() -> None:
    text = markdown(hover_on(MENTAT, "domain/geography.md", "geography", after="CONCEPT:")[0])
    assert "related by" in text
    assert "---" not in text and "title:" not in text


def test_nothing_outside_the_headers_names() -> None:
    kf = MENTAT.files["patterns/auth.md"]
    assert hover(MENTAT, kf, 1, 20) is None  # inside TLDR's value
    assert hover(MENTAT, kf, 12, 5) is None  # the body


@given(
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
)
def test_links_are_relative_to_the_hovered_files_folder(here: list[str], there: list[str]) -> None:
    source, target = "/".join([*here, "from.md"]), "/".join([*there, "to.md"])
    assert relative(source, target) == posixpath.relpath(target, posixpath.dirname(source) or ".")


# --- dates, the index, and the reference ------------------------------------------------------


def test_an_entrys_date_says_what_it_means_and_that_it_is_stale() -> None:
    result, token = hover_on(BROKEN, "jwt.md", "2026-03", after="oauth2:")
    text = markdown(result)
    assert "when this relationship to `oauth2` (SIMILAR_HIGH) was last validated" in text
    assert "**Stale**" in text and "**2026-09**" in text and "[oauth2.md](oauth2.md)" in text
    assert "docs/format.md#dates-and-staleness" in text
    assert result is not None and result.range == token  # the date alone, not the whole entry


def test_a_current_entrys_date_says_it_is_current() -> None:
    text = markdown(hover_on(MENTAT, "patterns/auth.md", "2026-10", after="jwt:")[0])
    assert "Current: `jwt` was last validated on 2026-10" in text and "Stale" not in text


def test_validated_names_the_relationships_it_made_stale() -> None:
    text = markdown(hover_on(BROKEN, "oauth2.md", "2026-09", after="VALIDATED:")[0])
    assert "when this header was last checked against its body" in text
    assert "1 file relates to `oauth2` with an earlier date" in text and "jwt ([jwt.md](jwt.md))" in text


def on_day(bank: Bank, day: CkpDate) -> Bank:
    """``bank`` as a face gives it the day ``day``."""
    snap = bank.snapshot()
    snap.today = day
    return snap


def test_validated_in_the_future_follows_the_day_given() -> None:
    def validated(day: CkpDate) -> str:
        return markdown(hover_on(on_day(BROKEN, day), "rate-limiting.md", "2099-01", after="VALIDATED:")[0])

    assert "This date is in the future: use this month or an earlier one." in validated(CkpDate(2098, 12, 15))
    assert "in the future" not in validated(CkpDate(2099, 1, 2))
    assert "in the future" not in validated(CkpDate(2099, 1, 1))  # the month of the day is not after it


def test_an_entrys_date_in_the_future_follows_the_day_given() -> None:
    def entry(day: CkpDate) -> str:
        return markdown(
            hover_on(on_day(BROKEN, day), "rate-limiting.md", "2026-10", after="http-headers:")[0]
        )

    assert "This date is in the future" in entry(CkpDate(2026, 9, 30))
    later = entry(CkpDate(2026, 10, 1))
    assert "in the future" not in later and "Current: `http-headers` was last validated on 2026-10" in later


def test_an_index_row_shows_its_file_and_tldr() -> None:
    lines = split_lines((MENTAT.root / "_index.md").read_text())
    no = next(i for i, line in enumerate(lines) if line.startswith("| oauth2 |"))
    col = lines[no].index("PKCE") if "PKCE" in lines[no] else len(lines[no]) // 2  # any cell of the row
    result = hover_in(MENTAT, "_index.md", no, col)
    text = markdown(result)
    assert text.startswith("**oauth2** — index row")
    assert (
        MENTAT.files["patterns/oauth2.md"].tldr in text and "[patterns/oauth2.md](patterns/oauth2.md)" in text
    )
    assert result is not None and result.range.start.line == no and result.range.start.character == 0


def test_the_index_says_nothing_outside_its_rows() -> None:
    lines = split_lines((MENTAT.root / "_index.md").read_text())
    head = next(i for i, line in enumerate(lines) if line.startswith("| CONCEPT |"))
    assert hover_in(MENTAT, "_index.md", head, 3) is None  # the column names
    assert hover_in(MENTAT, "_index.md", 0, 1) is None  # the user's text above the markers


def test_an_index_row_finds_its_file_by_the_file_cell() -> None:
    lines = split_lines((BROKEN.root / "_index.md").read_text())
    no = next(i for i, line in enumerate(lines) if line.startswith("| JWT Authentication |"))
    text = markdown(hover_in(BROKEN, "_index.md", no, 3))
    assert "[jwt-authentication.md](jwt-authentication.md)" in text  # found by its FILE cell


def test_a_field_name_links_to_its_section_of_the_reference() -> None:
    text = markdown(hover_on(MENTAT, "patterns/auth.md", "SIMILAR_MID")[0])
    assert "(https://github.com/ckp-lsp/ckp-lsp/blob/main/docs/format.md#similar_mid)" in text


def test_a_stale_entry_links_to_its_code_in_the_reference() -> None:
    text = markdown(hover_on(BROKEN, "jwt.md", "oauth2:2026-03", at=1)[0])
    # a reference link: the URL on its own line, the sentence free of it
    assert "see [CKP050]." in text
    assert "\n[CKP050]: https://github.com/ckp-lsp/ckp-lsp/blob/main/docs/format.md#ckp050" in text


def test_an_index_of_header_blocks_finds_the_block_of_any_of_its_lines() -> None:
    from ckp_lsp.core.format.index import row_at

    text = (
        "# Index\n\n<!-- ckp:index:start -->\n---\nCONCEPT: jwt\nFILE: jwt.md\nTLDR: Tokens.\n"
        "---\nCONCEPT: oauth2\nFILE: oauth2.md\nTLDR: Login.\n<!-- ckp:index:end -->\n"
    )
    rows = {n: row_at(text, n) for n in range(len(text.split("\n")))}
    assert {n: r.concept for n, r in rows.items() if r is not None} == {
        4: "jwt",
        5: "jwt",
        6: "jwt",
        8: "oauth2",
        9: "oauth2",
        10: "oauth2",
    }
