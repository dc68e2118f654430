"""Document symbols (header fields, then headings), workspace symbols (fuzzy concepts), the outline."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.navigation.outline import outline
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.convert import uri_of
from ckp_lsp.server.features.symbols import document_symbols, flatten, workspace_symbols
from ckp_lsp.server.state import Doc

ROOT = Path(__file__).resolve().parents[2]
CLEAN = ROOT / "tests" / "data" / "navigation" / "clean" / "memory-bank"
MENTAT = ROOT / "samples" / "mentat" / "memory-bank"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(CLEAN.resolve())


@pytest.fixture(scope="module")
def mentat() -> Bank:
    return load_bank(MENTAT.resolve())


def symbols(bank: Bank, rel: str) -> list[types.DocumentSymbol]:
    return document_symbols(Doc(bank, rel), (bank.root / rel).read_text(encoding="utf-8"))


def shape(syms: list[types.DocumentSymbol]) -> list[object]:
    """Names, with children's shapes nested."""
    return [(s.name, shape(list(s.children))) if s.children else s.name for s in syms]


def contains(outer: types.Range, inner: types.Range) -> bool:
    return (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character) and (
        inner.end.line,
        inner.end.character,
    ) <= (outer.end.line, outer.end.character)


def assert_well_formed(syms: list[types.DocumentSymbol], parent: types.DocumentSymbol | None = None) -> None:
    """What clients check: a name, the selection inside the range, children inside their parent."""
    for s in syms:
        assert s.name
        assert contains(s.range, s.selection_range), s.name
        if parent is not None:
            assert contains(parent.range, s.range), (parent.name, s.name)
        assert_well_formed(list(s.children or []), s)


def test_bare_file_symbols_are_header_fields_then_headings(bank: Bank):
    syms = symbols(bank, "tokens/jwt.md")
    assert shape(syms) == [
        "CONCEPT",
        "TLDR",
        "ANSWERS_WHEN",
        ("SIMILAR_HIGH", ["oauth2"]),
        ("SIMILAR_MID", ["sessions"]),
        "CONFIDENCE",
        "VALIDATED",
        ("JSON Web Tokens", ["Signing", "Refresh"]),
    ]
    assert syms[0].kind == types.SymbolKind.Key and syms[0].detail == "jwt"
    assert syms[2].detail == "jwt, access token, refresh token, bearer"
    assert syms[7].kind == types.SymbolKind.String
    assert_well_formed(syms)


def test_a_hash_inside_a_code_fence_is_not_a_heading(bank: Bank):
    names = [s.name for s in flatten(symbols(bank, "tokens/jwt.md"), "file:///x")]
    assert not any("Rotate" in n for n in names)
    names = [s.name for s in flatten(symbols(bank, "oauth2.md"), "file:///x")]
    assert not any("still code" in n for n in names)


def test_front_matter_symbols_skip_user_keys_and_nest_headings_by_level(bank: Bank):
    syms = symbols(bank, "oauth2.md")
    assert shape(syms) == [
        "CONCEPT",
        "TLDR",
        "ANSWERS_WHEN",
        ("SIMILAR_HIGH", ["jwt"]),
        ("SIMILAR_MID", ["sessions"]),
        "CONFIDENCE",
        "VALIDATED",
        ("OAuth2", ["Providers"]),  # an h3 right under an h1 is still its child
        "Errors",
    ]
    answers = syms[2]
    assert answers.range.end.line > answers.range.start.line  # the YAML list's lines belong to the field
    assert answers.detail == "oauth2, login flow, PKCE"
    assert_well_formed(syms)


def test_heading_section_runs_to_the_next_heading_of_its_level(bank: Bank):
    lines = (CLEAN / "tokens/jwt.md").read_text().splitlines()
    top = symbols(bank, "tokens/jwt.md")[-1]
    signing, refresh = top.children or []
    assert top.range.end.line == len(lines) - 1
    assert signing.range.start.line == lines.index("## Signing")
    assert signing.range.end.line == lines.index("## Refresh") - 2  # the blank line before is not part of it
    assert refresh.range.end.line == len(lines) - 1


def test_index_symbols_are_its_rows(bank: Bank):
    syms = document_symbols(Doc(bank, "_index.md"), bank.index_text or "")
    rows = [s for s in syms if s.kind == types.SymbolKind.Key]
    assert [(s.name, s.detail) for s in rows] == [
        ("jwt", "tokens/jwt.md"),
        ("login", "guides/login-flow.md"),
        ("oauth2", "oauth2.md"),
        ("sessions", "sessions.md"),
    ]
    assert_well_formed(syms)


def test_index_rows_nest_under_the_heading_that_holds_them(tmp_path: Path, bank: Bank):
    text = "# Index\n\n" + (bank.index_text or "")
    syms = document_symbols(Doc(bank, "_index.md"), text)
    assert shape(syms) == [("Index", ["jwt", "login", "oauth2", "sessions"])]
    assert_well_formed(syms)


def test_flatten_gives_container_names(bank: Bank):
    flat = flatten(symbols(bank, "tokens/jwt.md"), "file:///x/jwt.md")
    by_name = {s.name: s for s in flat}
    assert by_name["Signing"].container_name == "JSON Web Tokens"
    assert by_name["oauth2"].container_name == "SIMILAR_HIGH"
    assert by_name["CONCEPT"].container_name is None
    assert all(s.location.uri == "file:///x/jwt.md" for s in flat)


def test_every_mentat_file_has_well_formed_symbols(mentat: Bank):
    for rel in mentat.files:
        syms = symbols(mentat, rel)
        assert syms[0].name == "CONCEPT", rel
        assert_well_formed(syms)


# --- workspace symbols ---------------------------------------------------------------------------


def test_empty_query_lists_every_concept_of_every_bank(bank: Bank, mentat: Bank):
    got = workspace_symbols([bank, mentat], "")
    names = [s.name for s in got]
    assert sorted(names) == sorted([*bank.concepts(), *mentat.concepts()])


def test_workspace_symbols_match_fuzzily_best_first(bank: Bank, mentat: Bank):
    assert [s.name for s in workspace_symbols([bank, mentat], "geogrphy")][:1] == ["geography"]
    assert [s.name for s in workspace_symbols([bank, mentat], "sesions")][:1] == ["sessions"]
    assert [s.name for s in workspace_symbols([bank, mentat], "istat")][:1] == ["mentat-istat"]
    assert workspace_symbols([bank, mentat], "zzzzqq") == []


def test_workspace_symbol_carries_tldr_and_the_concept_location(mentat: Bank):
    (first, *_) = workspace_symbols([mentat], "travelguidehub")
    kf = mentat.files["projects/travelguidehub.md"]
    assert first.name == "travelguidehub"
    assert first.container_name == kf.tldr
    assert isinstance(first.location, types.Location)
    assert first.location.uri == uri_of(mentat.root / kf.path)
    assert first.location.range.start.line == kf.concept_span.start_line  # type: ignore[union-attr]


def test_same_concept_in_two_banks_is_listed_twice(bank: Bank):
    twice = workspace_symbols([bank, bank], "jwt")
    assert [s.name for s in twice][:2] == ["jwt", "jwt"]


# --- the outline -------------------------------------------------------------------------------

LINES = st.sampled_from(
    ["# A", "## B", "### C", "#### D", "```", "````", "~~~", "text", "", "    # indented", "#nospace"]
)


def reference_headings(lines: list[str]) -> list[tuple[int, int]]:
    """(line, level) of headings by a plain reading of CommonMark's rules for these lines."""
    out, fence = [], None
    for n, line in enumerate(lines):
        marker = line if line and set(line) in ({"`"}, {"~"}) and len(line) >= 3 else None
        if fence is not None:
            if marker and marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if marker:
            fence = marker
        elif line.startswith("#") and " " in line and not line.startswith("    "):
            out.append((n, len(line.split(" ")[0])))
    return out


@given(st.lists(LINES, max_size=40))
def test_outline_finds_exactly_the_headings_outside_fences(lines: list[str]):
    found = outline(lines)
    assert [(h.line, h.level) for h in found.flat()] == reference_headings(lines)
    for h in found.flat():
        assert h.line <= h.end_line < len(lines)
        for child in h.children:
            assert child.level > h.level and h.line < child.line <= child.end_line <= h.end_line
