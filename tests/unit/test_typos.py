"""Typos found without RapidFuzz are the typos RapidFuzz finds: the exact ratio decides where it
is clearly above or below the cutoff, and RapidFuzz where it is not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process
from rapidfuzz.distance import LCSseq

from ckp_lsp.core.routing.index_pattern import FUZZY_CUTOFF
from ckp_lsp.core.routing.typos import common_length, decided, typos_of
from tests.unit.builders import run_python

#: few letters, so that words share many of them (and ratios fall near any cutoff)
WORD = st.text(alphabet="abcdeéü漢字", max_size=14)


def by_rapidfuzz(q: str, words: list[str], cutoff: float) -> set[str]:
    found = process.extract(q, words, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
    return {c[0] for c in found}


@given(WORD, WORD)
def test_the_common_subsequence_is_rapidfuzzs(a: str, b: str) -> None:
    assert common_length(a, b) == LCSseq.similarity(a, b)


@settings(max_examples=300)
@given(WORD, st.lists(WORD, max_size=20), st.sampled_from([FUZZY_CUTOFF, 80.0, 75.0, 60.0, 50.0, 100.0]))
def test_a_word_decided_without_rapidfuzz_is_decided_as_rapidfuzz_decides_it(
    q: str, words: list[str], cutoff: float
) -> None:
    found, close = decided(q, words, cutoff)
    expected = by_rapidfuzz(q, words, cutoff)
    assert found == {w for w in expected if w not in close}
    assert typos_of(q, words, cutoff) == frozenset(expected)


def test_a_ratio_on_the_cutoff_itself_is_left_to_rapidfuzz() -> None:
    q = "abcdefghijklmnopqrst"
    on = "abcdefghijklmnopqXYZ"  # 17 letters in common of 40: a ratio of 85 exactly
    assert decided(q, [on, "abcdefghijklmnopqrsX"], FUZZY_CUTOFF) == ({"abcdefghijklmnopqrsX"}, [on])
    assert typos_of(q, [on], FUZZY_CUTOFF) == frozenset(by_rapidfuzz(q, [on], FUZZY_CUTOFF))


def imports_rapidfuzz(q: str, words: list[str]) -> tuple[bool, list[str]]:
    """Whether finding the typos of ``q`` in a fresh process imports RapidFuzz, and the typos."""
    code = (
        "import sys\n"
        "from ckp_lsp.core.routing.typos import typos_of\n"
        f"found = typos_of({q!r}, {words!r}, {FUZZY_CUTOFF!r})\n"
        "print('rapidfuzz' in sys.modules, *sorted(found))\n"
    )
    first, *found = run_python(code).split()
    return first == "True", found


def test_a_clear_typo_is_found_without_importing_rapidfuzz() -> None:
    assert imports_rapidfuzz("paymnet", ["payment", "payload", "gateway"]) == (False, ["payment"])


def test_a_typo_too_close_to_the_cutoff_to_tell_imports_rapidfuzz() -> None:
    imported, _ = imports_rapidfuzz("abcdefghijklmnopqrst", ["abcdefghijklmnopqXYZ"])
    assert imported
