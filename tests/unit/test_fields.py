"""The header grammar of ``core/format/fields``: how a key is written, a concept's name, the token
estimate; and that check, completion and the offline compiler read a header by it alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.compile.offline.text import preamble_end
from ckp_lsp.core.format.fields import BARE_KEY, CONCEPT_RE, FIELD_KEY, bare_header_end, token_estimate
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.text import split_lines
from ckp_lsp.server.features.completion import complete


@pytest.mark.parametrize("line", ["TLDR: x", "SIMILAR_HIGH:", "X1: y", "VALIDATED:2026-01"])
def test_a_bare_header_line_starts_with_an_upper_case_key_and_its_colon(line: str) -> None:
    assert BARE_KEY.match(line) and bare_header_end([line, "", "body"]) == 1


@pytest.mark.parametrize("line", ["tldr: x", "Tldr: x", " TLDR: x", "TLDR : x", "1X: y", "_X: y", "TLDR x"])
def test_a_line_with_a_key_written_otherwise_is_not_a_header_line(line: str) -> None:
    assert not BARE_KEY.match(line) and bare_header_end([line]) == 0


def test_a_front_matter_key_is_a_field_only_in_upper_case() -> None:
    assert FIELD_KEY.match("SIMILAR_MID") and not FIELD_KEY.match("tags") and not FIELD_KEY.match("Tldr")


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("jwt", True),
        ("a.b_c-1", True),
        ("9lives", True),
        ("JWT", False),
        ("-x", False),
        ("a b", False),
        ("", False),
    ],
)
def test_a_concept_name_is_lower_case_letters_digits_dots_underscores_and_dashes(name: str, ok: bool) -> None:
    assert bool(CONCEPT_RE.match(name)) is ok


@pytest.mark.parametrize(("chars", "tokens"), [(0, 0), (1, 1), (4, 1), (5, 2), (4001, 1001)])
def test_the_token_estimate_is_characters_over_four_rounded_up(chars: int, tokens: int) -> None:
    assert token_estimate(chars) == tokens


def _labels_at_end_of(text: str, needle: str) -> list[str]:
    bank = Bank(Path("/nonexistent/memory-bank"))
    bank.set_file("notes.md", text)
    lines = split_lines(text)
    line = next(i for i, t in enumerate(lines) if needle in t)
    result = complete(bank, bank.files.get("notes.md"), lines, line, len(lines[line]), "2026-11")
    return [item.label for item in result.items]


HEAD = "CONCEPT: notes\nTLDR: Notes of the team.\nANSWERS_WHEN: notes, team\n"


@pytest.mark.parametrize("key", ["confidence", "Confidence", " CONFIDENCE", "CONFIDENCE "])
def test_a_key_written_with_odd_case_or_spacing_ends_the_header_for_check_completion_and_compile(
    key: str,
) -> None:
    text = f"{HEAD}{key}: \n\nBody of the notes.\n"
    header = parse_header(text)
    assert header is not None and [f.key for f in header.fields] == ["CONCEPT", "TLDR", "ANSWERS_WHEN"]
    bank = Bank(Path("/nonexistent/memory-bank"))
    bank.set_file("notes.md", text)
    assert "CKP003" not in {f.code for f in check_file(bank, "notes.md")}
    assert "high" not in _labels_at_end_of(text, f"{key}:")
    assert preamble_end(split_lines(text)) == 3


def test_the_key_as_the_grammar_writes_it_is_a_header_line_for_check_completion_and_compile() -> None:
    text = f"{HEAD}CONFIDENCE: \n\nBody of the notes.\n"
    header = parse_header(text)
    assert header is not None and [f.key for f in header.fields][-1] == "CONFIDENCE"
    assert {"high", "medium", "low"} <= set(_labels_at_end_of(text, "CONFIDENCE:"))
    assert preamble_end(split_lines(text)) == 4
