"""``_index.md`` is read in one place (``core.format.index_format``): every reader finds the same section
and the same rows, whatever shape the markers are in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ckp_lsp
from ckp_lsp.core.format.index import parse_index
from ckp_lsp.core.format.index_cells import index_cells
from ckp_lsp.core.format.index_format import (
    INDEX_END,
    INDEX_START,
    cells,
    first_cell,
    is_separator,
    is_separator_line,
    markers,
    route_rows,
    section_lines,
    section_offsets,
)
from ckp_lsp.core.format.text import split_lines

HEAD = "| CONCEPT | FILE | TLDR | ANSWERS_WHEN | SIMILAR_HIGH | SIMILAR_MID |\n|---|---|---|---|---|---|\n"
ROWS = "| auth | auth.md | Tokens. | login | billing | |\n| billing | billing.md | Money. | invoices | | auth |\n"

SHAPES = {
    "both markers": f"# Index\n\nmine\n{INDEX_START}\n{HEAD}{ROWS}{INDEX_END}\nafter\n",
    "end marker lost": f"# Index\n{INDEX_START}\n{HEAD}{ROWS}",
    "no markers": f"{HEAD}{ROWS}",
    "two sections": f"{INDEX_START}\n{HEAD}{ROWS}{INDEX_END}\n{INDEX_START}\n{HEAD}| ghost | g.md | | | | |\n{INDEX_END}\n",
}


@pytest.mark.parametrize("shape", SHAPES)
def test_every_reader_finds_the_same_rows(shape: str) -> None:
    text = SHAPES[shape]
    parsed = [(r.file, r.concept) for r in parse_index(text).rows]
    assert parsed == [("auth.md", "auth"), ("billing.md", "billing")]
    # (the router's fast reading gives the separator row too: it names no file, and is dropped)
    routed = route_rows(text)
    assert routed is not None
    assert [(f, c) for f, c, *_ in routed if set(f) != {"-"}] == parsed
    named = {(c.file, c.concept) for c in index_cells(text) if c.column == "CONCEPT"}
    assert named == set(parsed)


def test_the_section_by_lines_and_by_offsets() -> None:
    text = SHAPES["both markers"]
    lines = split_lines(text)
    assert markers(lines) == (3, 8) and section_lines(lines) == (4, 8)
    no_markers = split_lines(SHAPES["no markers"])
    assert section_lines(no_markers) == (0, len(no_markers))
    lost = split_lines(SHAPES["end marker lost"])
    assert markers(lost) == (1, None) and section_lines(lost) == (2, len(lost))
    start, end = section_offsets(text)
    assert text[start:].startswith(INDEX_START) and text[end:].startswith(INDEX_END)
    assert section_offsets("no index here") == (-1, -1)


def test_cells_unescape_a_pipe_inside_a_cell() -> None:
    assert cells("| a \\| b | c |") == ["a | b", "c"]
    assert cells("|a|b|") == ["a", "b"]


def _others() -> list[tuple[str, ast.AST]]:
    """Every module of the package but ``index_format``, parsed."""
    package = Path(ckp_lsp.__file__).parent
    paths = sorted(package.rglob("*.py"))
    rels = [p.relative_to(package).as_posix() for p in paths]
    return [
        (rel, ast.parse(p.read_text(encoding="utf-8")))
        for rel, p in zip(rels, paths, strict=True)
        if rel != "core/format/index_format.py"
    ]


def test_no_other_module_looks_for_the_markers_by_itself() -> None:
    # Writing the markers (rendering, messages) is fine; finding them is index_format's alone.
    found = []
    for rel, tree in _others():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("find", "index", "rfind")
                and any(isinstance(a, ast.Name) and a.id in ("INDEX_START", "INDEX_END") for a in node.args)
            ):
                found.append(f"{rel}:{node.lineno}")
            if isinstance(node, ast.Compare) and any(
                isinstance(c, ast.Name) and c.id in ("INDEX_START", "INDEX_END") for c in node.comparators
            ):
                found.append(f"{rel}:{node.lineno}")
    assert found == []


@given(
    st.lists(st.text(alphabet="ab |\\-:", max_size=6), min_size=1, max_size=4),
    st.sampled_from(["", " |", "|"]),
)
def test_the_first_cell_and_the_separator_read_a_row_as_its_cells_do(row: list[str], end: str) -> None:
    line = "|" + "|".join(row) + end
    assert first_cell(line) == cells(line)[0]
    assert is_separator_line(line) == is_separator(cells(line))


#: the modules that split a text on "|" themselves, and what they split (never an index's row)
SPLITS_ON_PIPES = {"core/language/address.py": "its own word lists, whose alternatives are written a|b"}


def test_no_other_module_splits_a_row_into_cells_by_itself() -> None:
    found = set()
    for rel, tree in _others():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("split", "rsplit", "partition")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == "|"
            ):
                found.add(rel)
    assert found == set(SPLITS_ON_PIPES)
