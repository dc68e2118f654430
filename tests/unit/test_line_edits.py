"""line_edits: a header's change as one edit per run of changed lines, which give the new text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ckp_lsp.core.edit.fixes import apply_edits
from ckp_lsp.core.edit.line_edits import line_edits

OLD = (
    "CONCEPT:      jwt\n"
    "TLDR:         Old summary.\n"
    "ANSWERS_WHEN: jwt, token\n"
    "SIMILAR_HIGH: oauth2:2026-03\n"
    "CONFIDENCE:   high\n"
    "VALIDATED:    2026-03\n"
    "\n"
)


def test_only_the_changed_lines_are_edited_each_readable() -> None:
    new = OLD.replace("Old summary.", "How access tokens are signed.").replace(
        "oauth2:2026-03", "oauth2:2026-09"
    )
    edits = line_edits(OLD, new)
    assert [(e.span.start_line, e.span.end_line) for e in edits] == [(1, 2), (3, 4)]
    assert edits[0].text == "TLDR:         How access tokens are signed.\n"
    assert "⏎" not in "".join(e.text for e in edits) and all(e.text.count("\n") == 1 for e in edits)
    assert apply_edits(OLD, edits) == new


def test_lines_added_and_removed_are_inserts_and_deletions() -> None:
    new = OLD.replace("SIMILAR_HIGH: oauth2:2026-03\n", "").replace(
        "CONFIDENCE:", "SIMILAR_MID:  cors:2026-09\nCONFIDENCE:"
    )
    edits = line_edits(OLD, new)
    assert apply_edits(OLD, edits) == new
    assert all(e.span.start_col == 0 and e.span.end_col == 0 for e in edits)


def test_a_text_that_ends_inside_a_line_is_not_edited_past_its_end() -> None:
    # the document goes on after ``old`` on its last line: the edit stops where ``old`` ends
    old, new = "A: 1\nB: 2", "A: 1\nB: 3"
    [edit] = line_edits(old, new)
    assert (edit.span.start_line, edit.span.start_col, edit.span.end_line, edit.span.end_col) == (1, 0, 1, 4)
    doc = old + " and the body"
    assert apply_edits(doc, [edit]) == new + " and the body"


def test_crlf_and_unchanged_texts() -> None:
    old = OLD.replace("\n", "\r\n")
    assert line_edits(old, old) == []
    new = old.replace("high", "low")
    assert apply_edits(old, line_edits(old, new)) == new


@given(
    st.text(alphabet="ab\n\r\u00e9\U0001f600", max_size=30),
    st.text(alphabet="ab\n\r\u00e9\U0001f600", max_size=30),
)
def test_the_edits_always_give_the_new_text(old: str, new: str) -> None:
    assert apply_edits(old, line_edits(old, new)) == new
