"""Fixes and checks grow linearly with the header: 3,000 copies of a keyword are removed in one
pass, and the editor's quick fixes for 3,000 diagnostics are found without comparing each with
each. Measured by counting the lines Python runs (deterministic), never by a clock."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from lsprotocol import types

from ckp_lsp.core.bank.checks import check_file
from ckp_lsp.core.edit.fixes import fix_text
from ckp_lsp.server.convert import to_range
from ckp_lsp.server.features.actions import quick_fixes
from tests.unit.builders import bank_of_texts

FORMS: dict[str, Callable[[int], str]] = {
    "bare": lambda n: "CONCEPT: menu\nTLDR: A menu.\nANSWERS_WHEN: " + ", ".join(["menu"] * n) + "\n\nBody\n",
    "flow": lambda n: (
        "---\nCONCEPT: menu\nTLDR: A menu.\nANSWERS_WHEN: [" + ", ".join(["menu"] * n) + "]\n---\nBody\n"
    ),
    "block": lambda n: (
        "---\nCONCEPT: menu\nTLDR: A menu.\nANSWERS_WHEN:\n" + "  - menu\n" * n + "---\nBody\n"
    ),
}


def _lines_run(work: Callable[[], Any]) -> int:
    """How many lines of Python ``work`` runs."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


def _growth(work: Callable[[int], Any], small: int = 300) -> float:
    """How much more ``work`` runs for 4 times the size: about 4 when linear, 16 when quadratic."""
    work(small)  # warm caches and imports
    return _lines_run(lambda: work(4 * small)) / _lines_run(lambda: work(small))


@pytest.mark.parametrize("form", FORMS)
def test_removing_thousands_of_duplicates_is_linear(form: str) -> None:
    def fix(n: int) -> None:
        text = FORMS[form](n)
        bank = bank_of_texts({"m.md": text})
        check_file(bank, "m.md")
        new, count = fix_text(bank, "m.md", text)
        assert count == n - 1 and new == FORMS[form](1)

    assert _growth(fix) < 6


def test_fix_text_removes_3000_copies_of_a_keyword() -> None:
    text = FORMS["bare"](3000)
    new, count = fix_text(bank_of_texts({"m.md": text}), "m.md", text)
    assert (new, count) == (FORMS["bare"](1), 2999)


def test_quick_fixes_for_thousands_of_diagnostics_are_linear() -> None:
    def actions(n: int) -> None:
        text = FORMS["bare"](n)
        bank = bank_of_texts({"m.md": text})
        context = [
            types.Diagnostic(range=to_range(f.span), message=f.message, code=f.code)
            for f in check_file(bank, "m.md")
        ]
        found = quick_fixes(bank, "m.md", "file:///m.md", 1, context, True, text)
        assert len(found) == n - 1

    assert _growth(actions, 200) < 6
