"""Definition, references, document links, the code lens and folding, called without a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.index import parse_index, update_index_text
from ckp_lsp.core.format.index_cells import index_cell_at, index_cells
from ckp_lsp.core.format.text import Span, split_lines, utf16_len
from ckp_lsp.core.navigation.references import bank_file, token_at
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.convert import uri_of
from ckp_lsp.server.features.definition import definition
from ckp_lsp.server.features.folding import folding_ranges
from ckp_lsp.server.features.lens import SHOW_REFERENCES, code_lenses, lens_title
from ckp_lsp.server.features.links import document_links
from ckp_lsp.server.features.references import references
from ckp_lsp.server.state import Doc

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "navigation"
CLEAN = DATA / "clean" / "memory-bank"
ESCAPE = DATA / "escape" / "memory-bank"
BROKEN = ROOT / "samples" / "broken" / "memory-bank"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(CLEAN.resolve())


def where(bank: Bank, rel: str, needle: str, nth: int = 0, offset: int = 0) -> tuple[int, int]:
    """(line, UTF-16 column) of the ``nth`` occurrence of ``needle`` in a file of ``bank``."""
    text = bank.index_text if rel == "_index.md" else (bank.root / rel).read_text(encoding="utf-8")
    assert text is not None
    seen = 0
    for i, line in enumerate(split_lines(text)):
        start = 0
        while (j := line.find(needle, start)) >= 0:
            if seen == nth:
                return i, utf16_len(line[: j + offset])
            seen += 1
            start = j + 1
    raise AssertionError(f"{needle!r} #{nth} not in {rel}")


def text_of(bank: Bank, rel: str, span: Span) -> str:
    """The text a single-line span covers (UTF-16 columns)."""
    line = split_lines((bank.root / rel).read_text(encoding="utf-8"))[span.start_line]
    units = line.encode("utf-16-le")
    return units[span.start_col * 2 : span.end_col * 2].decode("utf-16-le")


def loc(bank: Bank, rel: str, span: Span) -> tuple[str, int, int, int, int]:
    return (uri_of(bank.root / rel), span.start_line, span.start_col, span.end_line, span.end_col)


def as_tuples(locations) -> list[tuple[str, int, int, int, int]]:
    return [
        (x.uri, x.range.start.line, x.range.start.character, x.range.end.line, x.range.end.character)
        for x in locations
    ]


def concept_loc(bank: Bank, rel: str) -> tuple[str, int, int, int, int]:
    span = bank.files[rel].concept_span
    assert span is not None
    return loc(bank, rel, span)


# --- the index's cells ---------------------------------------------------------------------------


def test_index_cells_have_tight_utf16_spans(bank: Bank):
    cells = index_cells(bank.index_text or "")
    jwt_row = [c for c in cells if c.concept == "jwt"]
    assert [(c.column, c.text) for c in jwt_row] == [
        ("CONCEPT", "jwt"),
        ("FILE", "tokens/jwt.md"),
        ("SIMILAR_HIGH", "oauth2"),
        ("SIMILAR_MID", "sessions"),
    ]
    lines = split_lines(bank.index_text or "")
    for cell in cells:
        units = lines[cell.span.start_line].encode("utf-16-le")
        # The TLDR before the SIMILAR cells holds an emoji: columns must count UTF-16 units.
        assert units[cell.span.start_col * 2 : cell.span.end_col * 2].decode("utf-16-le") == cell.text


def test_index_cells_of_the_blocks_form(bank: Bank):
    text = update_index_text(None, bank, form="blocks")
    cells = index_cells(text)
    assert {(c.concept, c.column, c.text) for c in cells if c.concept == "login"} == {
        ("login", "CONCEPT", "login"),
        ("login", "FILE", "guides/login-flow.md"),
        ("login", "SIMILAR_MID", "jwt"),
        ("login", "SIMILAR_MID", "oauth2"),
        ("login", "SIMILAR_MID", "sessions"),
    }
    lines = split_lines(text)
    for cell in cells:
        assert lines[cell.span.start_line][cell.span.start_col : cell.span.end_col] == cell.text


def test_index_cell_at_finds_the_cell_under_the_cursor(bank: Bank):
    line, col = where(bank, "_index.md", "| oauth2 |", offset=4)
    cell = index_cell_at(bank.index_text or "", line, col)
    assert cell is not None and (cell.column, cell.text) == ("CONCEPT", "oauth2")
    line, col = where(bank, "_index.md", "Index of")
    assert index_cell_at(bank.index_text or "", line, col) is None


@pytest.mark.parametrize(
    "file", ["../../etc/passwd", "/etc/passwd", "C:\\Windows\\win.ini", "./../jwt.md", "nosuch.md", ""]
)
def test_bank_file_refuses_anything_outside_the_bank(file: str):
    bank = load_bank(ESCAPE.resolve())
    assert bank_file(bank, file) is None


def test_bank_file_accepts_a_file_of_the_bank():
    bank = load_bank(ESCAPE.resolve())
    kf = bank_file(bank, "./jwt.md")
    assert kf is not None and kf.path == "jwt.md"


# --- definition ---------------------------------------------------------------------------------


def test_definition_from_an_entry_goes_to_the_related_concept_line(bank: Bank):
    line, col = where(bank, "sessions.md", "jwt:2026-10", offset=1)
    got = definition(Doc(bank, "sessions.md"), line, col)
    assert got is not None
    assert as_tuples(got) == [concept_loc(bank, "tokens/jwt.md")]
    span = bank.files["tokens/jwt.md"].concept_span
    assert span is not None and span.start_line == 0 and text_of(bank, "tokens/jwt.md", span) == "jwt"


@pytest.mark.parametrize(
    ("rel", "needle", "offset", "target"),
    [
        pytest.param("guides/login-flow.md", "oauth2:2026-10", 9, "oauth2.md", id="from-an-entrys-date"),
        pytest.param("oauth2.md", "- jwt:2026-10", 2, "tokens/jwt.md", id="from-a-front-matter-list-item"),
        pytest.param("_index.md", "| sessions |", 3, "sessions.md", id="from-an-index-rows-concept"),
        pytest.param("_index.md", "| sessions.md |", 3, "sessions.md", id="from-an-index-rows-file"),
        pytest.param("_index.md", "oauth2:2026-10", 0, "oauth2.md", id="from-an-index-entry"),
    ],
)
def test_definition_goes_to_the_concept_of_the_file_named(
    bank: Bank, rel: str, needle: str, offset: int, target: str
):
    """From an entry (its name or its date), a front-matter list item, an index row or an index entry."""
    line, col = where(bank, rel, needle, offset=offset)
    got = definition(Doc(bank, rel), line, col)
    assert got is not None and as_tuples(got) == [concept_loc(bank, target)]


def test_definition_into_a_front_matter_file_lands_on_its_concept_value(bank: Bank):
    line, col = where(bank, "sessions.md", "oauth2:2026-10")
    got = definition(Doc(bank, "sessions.md"), line, col)
    assert got is not None
    (target,) = got
    assert target.uri == uri_of(bank.root / "oauth2.md")
    assert (target.range.start.line, target.range.start.character) == where(
        bank, "oauth2.md", "CONCEPT: oauth2", offset=9
    )


def test_definition_of_an_unknown_concept_is_none():
    broken = load_bank(BROKEN.resolve())
    text = (BROKEN / "logging.md").read_text()
    line = next(i for i, x in enumerate(text.splitlines()) if x.startswith("SIMILAR_MID"))
    col = text.splitlines()[line].index("oauth:")
    assert definition(Doc(broken, "logging.md"), line, col + 1) is None


def test_definition_outside_an_entry_is_none(bank: Bank):
    line, col = where(bank, "tokens/jwt.md", "access tokens")
    assert definition(Doc(bank, "tokens/jwt.md"), line, col) is None
    line, col = where(bank, "tokens/jwt.md", "Access tokens live")
    assert definition(Doc(bank, "tokens/jwt.md"), line, col) is None


@pytest.mark.parametrize(
    "needle",
    ["../../etc/passwd", "| jwt |", "/etc/passwd", "| absolute |", "C:\\Windows", "./../jwt.md", "nosuch.md"],
)
def test_definition_never_leaves_the_bank(needle: str):
    bank = load_bank(ESCAPE.resolve())
    line, col = where(bank, "_index.md", needle, offset=3)
    assert definition(Doc(bank, "_index.md"), line, col) is None


def test_definition_from_the_one_safe_row_of_the_escape_bank():
    bank = load_bank(ESCAPE.resolve())
    line, col = where(bank, "_index.md", "| jwt.md |", offset=3)
    got = definition(Doc(bank, "_index.md"), line, col)
    assert got is not None and as_tuples(got) == [concept_loc(bank, "jwt.md")]


# --- references ---------------------------------------------------------------------------------


def jwt_references(bank: Bank) -> list[tuple[str, int, int, int, int]]:
    """Every entry naming jwt (the concept part) and the jwt row's CONCEPT cell of the index."""
    out = []
    for rel, needle in (("guides/login-flow.md", "jwt:"), ("oauth2.md", "jwt:"), ("sessions.md", "jwt:")):
        line, col = where(bank, rel, needle)
        out.append((uri_of(bank.root / rel), line, col, line, col + 3))
    line, col = where(bank, "_index.md", "| jwt |", offset=2)
    out.append((uri_of(bank.root / "_index.md"), line, col, line, col + 3))
    return out


def test_references_from_concept_list_every_entry_and_the_index_row(bank: Bank):
    got = references(Doc(bank, "tokens/jwt.md"), 0, 15, include_declaration=False)
    assert got is not None and as_tuples(got) == jwt_references(bank)


def test_references_include_the_declaration_when_asked(bank: Bank):
    got = references(Doc(bank, "tokens/jwt.md"), 0, 15, include_declaration=True)
    assert got is not None and as_tuples(got) == [concept_loc(bank, "tokens/jwt.md"), *jwt_references(bank)]


def test_references_from_an_entry_naming_the_concept(bank: Bank):
    line, col = where(bank, "guides/login-flow.md", "jwt:")
    got = references(Doc(bank, "guides/login-flow.md"), line, col, include_declaration=False)
    assert got is not None and as_tuples(got) == jwt_references(bank)


def test_references_from_the_index_row(bank: Bank):
    line, col = where(bank, "_index.md", "| jwt |", offset=2)
    got = references(Doc(bank, "_index.md"), line, col, include_declaration=False)
    assert got is not None and as_tuples(got) == jwt_references(bank)


def test_references_outside_a_concept_are_none(bank: Bank):
    line, col = where(bank, "tokens/jwt.md", "bearer")
    assert references(Doc(bank, "tokens/jwt.md"), line, col, include_declaration=True) is None


# --- document links ------------------------------------------------------------------------------


def test_links_of_similar_entries_target_the_related_files(bank: Bank):
    links = document_links(Doc(bank, "guides/login-flow.md"))
    assert [(x.range.start.character, x.range.end.character, x.target) for x in links] == [
        (*_cols(bank, "guides/login-flow.md", name), uri_of(bank.root / rel))
        for name, rel in (("jwt", "tokens/jwt.md"), ("oauth2", "oauth2.md"), ("sessions", "sessions.md"))
    ]
    assert links[0].tooltip is not None and "access tokens" in links[0].tooltip


def _cols(bank: Bank, rel: str, concept: str) -> tuple[int, int]:
    _, col = where(bank, rel, concept + ":")
    return col, col + len(concept)


def test_no_link_for_an_unknown_concept():
    broken = load_bank(BROKEN.resolve())
    targets = [x.target for x in document_links(Doc(broken, "logging.md"))]
    assert targets == [uri_of(broken.root / "logging.md")]  # logging:…, not the unknown oauth:…


def test_index_file_cells_link_to_files_of_the_bank_only():
    bank = load_bank(ESCAPE.resolve())
    links = document_links(Doc(bank, "_index.md"))
    assert [x.target for x in links] == [uri_of(bank.root / "jwt.md")]
    line, _ = where(bank, "_index.md", "| listed |")
    assert links[0].range.start.line == line


# --- code lens -----------------------------------------------------------------------------------


def test_lens_title_format():
    assert lens_title(3, 2, 1240) == "3 HIGH · 2 MID backlinks · ~1,240 tokens"


def test_lens_on_concept_counts_backlinks_per_tier_and_tokens(bank: Bank):
    (lens,) = code_lenses(Doc(bank, "tokens/jwt.md"))
    kf = bank.files["tokens/jwt.md"]
    size = len((CLEAN / "tokens/jwt.md").read_text(encoding="utf-8"))
    # HIGH: oauth2.md, sessions.md; MID: guides/login-flow.md
    assert lens.command is not None
    assert lens.command.title == f"2 HIGH · 1 MID backlinks · ~{-(-size // 4):,} tokens"
    assert (lens.range.start.line, lens.range.start.character) == (0, kf.concept_span.start_col)  # type: ignore[union-attr]
    assert lens.command.command == SHOW_REFERENCES
    assert lens.command.arguments is not None and lens.command.arguments[0] == uri_of(
        bank.root / "tokens/jwt.md"
    )


def test_no_lens_on_the_index(bank: Bank):
    assert code_lenses(Doc(bank, "_index.md")) == []


# --- folding -------------------------------------------------------------------------------------


def folds(bank: Bank, rel: str) -> list[tuple[int, int]]:
    text = (bank.root / rel).read_text(encoding="utf-8")
    return [(r.start_line, r.end_line) for r in folding_ranges(Doc(bank, rel), text)]


def test_bare_header_folds_from_first_to_last_header_line(bank: Bank):
    assert folds(bank, "tokens/jwt.md")[0] == (0, 6)
    assert folds(bank, "sessions.md") == [(0, 6)]  # the body follows without a blank line


def test_front_matter_folds_fence_to_fence(bank: Bank):
    lines = (CLEAN / "oauth2.md").read_text().splitlines()
    close = lines.index("---", 1)
    assert folds(bank, "oauth2.md")[0] == (0, close)


def test_sections_and_code_fences_fold_but_not_a_hash_inside_a_fence(bank: Bank):
    lines = (CLEAN / "tokens/jwt.md").read_text().splitlines()
    got = folds(bank, "tokens/jwt.md")
    h1, signing, refresh = (lines.index(x) for x in ("# JSON Web Tokens", "## Signing", "## Refresh"))
    fence = lines.index("```bash")
    assert (h1, len(lines) - 1) in got
    assert (signing, fence + 3) in got  # to the closing fence, the last non-blank line of the section
    assert (fence, fence + 3) in got
    assert not any(start == fence + 1 for start, _ in got)
    assert (refresh, len(lines) - 1) in got


def test_a_one_line_header_does_not_fold(tmp_path: Path):
    bank = Bank(tmp_path)
    bank.set_file("one.md", "CONCEPT: one\n\nBody.\n")
    assert folding_ranges(Doc(bank, "one.md"), "CONCEPT: one\n\nBody.\n") == []


def test_token_at_names_the_concept_and_its_tight_span(bank: Bank):
    line, col = where(bank, "sessions.md", "oauth2:2026-10", offset=8)
    token = token_at(bank, "sessions.md", line, col)
    assert token is not None and token.concept == "oauth2" and token.kind == "relationship"
    assert token.span.end_col - token.span.start_col == len("oauth2")


@pytest.mark.parametrize("form", ["table", "blocks"])
@pytest.mark.parametrize("root", [CLEAN, ESCAPE, BROKEN, ROOT / "samples" / "mentat" / "memory-bank"])
def test_index_cells_read_the_rows_parse_index_reads(root: Path, form: str):
    bank = load_bank(root.resolve())
    text = bank.index_text if form == "table" else update_index_text(None, bank, form="blocks")
    assert text is not None
    rows = parse_index(text).rows
    cells = index_cells(text)
    assert [(c.span.start_line, c.text) for c in cells if c.column == "CONCEPT"] == [
        (r.line, r.concept) for r in rows if r.concept
    ]
    assert {(c.concept, c.file) for c in cells} <= {(r.concept, r.file) for r in rows}
