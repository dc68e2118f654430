"""What the bank keeps for the lookups, kept up to date by each change rather than found by reading
every file: the files naming each concept (references, rename), the sorted concepts and their words
(completion, suggestions), and the index rows found by bisection. Each must give what a full scan
of the bank gives, after any edits, renames and deletions, and on snapshots."""

from __future__ import annotations

import gc
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.index_checks import check_index, kept_index_lines
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.index_cells import index_cells, index_cells_naming
from ckp_lsp.core.format.suggest import SUGGEST_POOL, closest
from ckp_lsp.core.navigation.references import (
    Mention,
    RenamePlan,
    declarations,
    entries_naming,
    index_declarations,
    index_mentions,
    moved_path,
    plan_rename,
)
from ckp_lsp.core.project.discovery import INDEX_NAME
from ckp_lsp.faces.collector import FREEZE_ABOVE, paused_collection
from tests.unit.builders import bare_header

PATHS = ["a.md", "b.md", "c.md", "sub/d.md", "e.md", "f.md"]
CONCEPTS = ["x", "y", "z", "xy", "x-y"]
NAMED = [*CONCEPTS, "w", "nope"]
ENTRIES = [f"{c}{d}" for c in [*CONCEPTS, "w"] for d in (":2025-01", "")]
TIER = st.lists(st.sampled_from(ENTRIES), max_size=3).map(lambda xs: ", ".join(xs) or None)
TEXTS = st.one_of(
    st.builds(
        lambda concept, high, mid: bare_header(CONCEPT=concept, SIMILAR_HIGH=high, SIMILAR_MID=mid),
        st.sampled_from([*CONCEPTS, None]),
        TIER,
        TIER,
    ),
    st.just("# No header\n"),
)
#: a file's new text, or None: the file is deleted
UPDATES = st.lists(st.tuples(st.sampled_from(PATHS), st.one_of(st.none(), TEXTS)), max_size=12)


def scanned_entries(bank: Bank, concept: str) -> list[Mention]:
    """The entries naming ``concept``, read from every file of the bank."""
    return [
        Mention(path, span, "relationship")
        for path in sorted(bank.files)
        for span in bank.files[path].entry_spans(concept)
    ]


def scanned_backlinks(bank: Bank) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path, kf in bank.files.items():
        for concept, *_ in kf.relations:
            out.setdefault(concept, set()).add(path)
    return out


def lookups(bank: Bank) -> dict[str, object]:
    """Everything the lookups answer about ``bank``, each compared with a full scan."""
    assert bank.backlinks == scanned_backlinks(bank)
    assert bank.concepts() == sorted(bank.by_concept)
    out: dict[str, object] = {"concepts": list(bank.concepts())}
    for concept in NAMED:
        entries = entries_naming(bank, concept)
        assert entries == scanned_entries(bank, concept), concept
        out[concept] = (declarations(bank, concept), entries)
        if concept in bank.by_concept:
            edits = plan_rename(bank, concept, "renamed", move_files=False).edits
            assert sorted(edits) == sorted({m.path for m in [*declarations(bank, concept), *entries]})
    return out


@pytest.mark.scale
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(UPDATES, st.integers(min_value=0, max_value=12))
def test_lookups_equal_a_full_scan_after_any_updates_and_on_a_snapshot(
    updates: list[tuple[str, str | None]], at: int
) -> None:
    bank = Bank(Path("/nonexistent/memory-bank"))
    bank.concepts()  # made first: from now on kept up to date by each change
    snap, then = None, None
    for i, (rel, text) in enumerate(updates):
        if i == at:
            snap = bank.snapshot()
            then = lookups(snap)
        if text is None:
            bank.remove_file(rel)
        else:
            bank.set_file(rel, text)
        lookups(bank)
    if snap is not None:
        assert lookups(snap) == then  # later changes never reach a snapshot


def generated_bank(seed: int, n: int = 40) -> Bank:
    """A bank of ``n`` files relating to each other, some declaring the same concept."""
    rng = random.Random(seed)
    names = [f"c{i:02d}" for i in range(n)] + ["c0", "c1-x"]  # c0 is a prefix of c00..c09
    bank = Bank(Path("/nonexistent/memory-bank"))
    for i, name in enumerate(names):
        related = rng.sample(names, 3)
        bank.set_file(
            f"f{i}.md", bare_header(CONCEPT=name, SIMILAR_MID=", ".join(f"{c}:2025-01" for c in related))
        )
    bank.set_file("dup.md", bare_header(CONCEPT="c05"))  # CKP011: two rows of c05
    return bank


def scanned_declarations(text: str, concept: str) -> list[tuple[int, int]]:
    """Where the index's CONCEPT cells of ``concept`` are, from every cell of the index."""
    return [
        (c.span.start_line, c.span.start_col)
        for c in index_cells(text)
        if c.column == "CONCEPT" and c.text == concept
    ]


def declared_rows(bank: Bank, concept: str) -> list[tuple[int, int]]:
    return [(m.span.start_line, m.span.start_col) for m in index_declarations(bank, concept)]


@pytest.mark.scale
@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=1000), st.sampled_from(["sorted", "shuffled", "broken"]))
def test_index_rows_of_a_concept_equal_a_full_scan_in_any_table(seed: int, table: str) -> None:
    bank = generated_bank(seed)
    lines = update_index_text(None, bank).split("\n")
    head = next(i for i, line in enumerate(lines) if line.startswith("| CONCEPT"))
    end = next(i for i, line in enumerate(lines) if i > head and not line.startswith("|"))
    rows = lines[head + 2 : end]
    if table == "shuffled":  # edited by hand: no longer sorted
        random.Random(seed).shuffle(rows)
    elif table == "broken":  # a line that is no row inside the table
        rows.insert(len(rows) // 2, "not a row, c10")
    bank.index_text = "\n".join([*lines[: head + 2], *rows, *lines[end:]])
    for concept in [*bank.by_concept, "c0", "c1", "nope", "c1-x", "zzz", ""]:
        assert declared_rows(bank, concept) == scanned_declarations(bank.index_text, concept), concept
    assert len(declared_rows(bank, "c05")) == 2


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=1000), st.lists(st.integers(min_value=0, max_value=41), max_size=4))
def test_index_cells_naming_equal_a_full_scan_when_names_hold_each_other(seed: int, picks: list[int]) -> None:
    bank = generated_bank(seed)
    text = update_index_text(None, bank)
    names = {"c0", "c1"} | {f"f{i}.md" for i in picks} | {f"c{i:02d}" for i in picks}  # c0 is inside c05
    got = [(c.column, c.text, c.span) for c in index_cells_naming(text, names)]
    assert got == [(c.column, c.text, c.span) for c in index_cells(text) if c.text in names]


def scanned_plan(bank: Bank, concept: str, new: str) -> RenamePlan:
    """The rename of ``concept``, from every file of the bank and every cell of its index."""
    plan = RenamePlan()
    for m in (*declarations(bank, concept), *scanned_entries(bank, concept)):
        plan.add(m.path, m.span, new)
    moves = {p: t for p in sorted(bank.by_concept[concept]) if (t := moved_path(p, concept, new))}
    plan.moves = sorted(moves.items())
    for cell in index_cells(bank.index_text or ""):
        if cell.column == "FILE" and cell.text in moves:
            plan.add(INDEX_NAME, cell.span, moves[cell.text])
        elif cell.column != "FILE" and cell.text == concept:
            plan.add(INDEX_NAME, cell.span, new)
    return plan


def hub_bank(seed: int) -> Bank:
    """``generated_bank`` with files named after their concepts, and a concept many files name."""
    bank = generated_bank(seed)
    rng = random.Random(seed)
    bank.set_file("k/hub.md", bare_header(CONCEPT="hub", SIMILAR_MID="c01:2025-01"))
    bank.set_file("c0.md", bare_header(CONCEPT="c0", SIMILAR_HIGH="hub:2025-01, c1-x"))  # also f40.md
    for i in rng.sample(range(40), 12):
        bank.set_file(
            f"f{i}.md", bare_header(CONCEPT=f"c{i:02d}", SIMILAR_MID=f"hub:2025-01, c{(i + 1) % 40:02d}")
        )
    return bank


#: what happens to the index once generated: nothing, its files change after it (the rows drift),
#: its rows are shuffled, or a row is written and another changed by hand
INDEXES = ["current", "drifted", "shuffled", "edited"]


@pytest.mark.scale
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=0, max_value=1000),
    st.sampled_from(INDEXES),
    st.booleans(),
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=41), st.sampled_from(["hub", "c05", "c0", None])),
        max_size=5,
    ),
)
def test_rename_plans_equal_a_full_scan_with_the_kept_index_rows(
    seed: int, index: str, checked: bool, later: list[tuple[int, str | None]]
) -> None:
    bank = hub_bank(seed)
    lines = update_index_text(None, bank).split("\n")
    head = next(i for i, line in enumerate(lines) if line.startswith("| CONCEPT"))
    end = next(i for i, line in enumerate(lines) if i > head and not line.startswith("|"))
    rows = lines[head + 2 : end]
    if index == "drifted":  # rows that name hub and c05 while their files no longer do
        for i in range(40):
            bank.set_file(f"f{i}.md", bare_header(CONCEPT=f"c{i:02d}", SIMILAR_MID="c1-x:2025-01"))
        bank.remove_file("c0.md")
    elif index == "shuffled":
        random.Random(seed).shuffle(rows)
    elif index == "edited":  # sorted still, but a row no file has and a cell no header wrote
        for k in (len(rows) // 2, -2):
            cells = rows[k].split("|")
            cells[5] = " hub, c05:2025-02, c0 "  # SIMILAR_HIGH
            rows[k] = "|".join(cells)
        rows.insert(0, "| c00 | gone.md | x | y | hub:2025-01, c05 | c0 |  | 2025-05 |")
    bank.index_text = "\n".join([*lines[: head + 2], *rows, *lines[end:]])
    if checked:
        check_index(bank)  # the server checks its index once read: the drift table is kept
    for i, named in later:  # changes after the check, caught up with by the kept table
        mid = f"{named}:2025-03" if named else None
        bank.set_file(f"f{i}.md", bare_header(CONCEPT=f"c{i:02d}", SIMILAR_MID=mid))
    kept = kept_index_lines(bank, ["k/hub.md"])
    assert (kept is not None) == checked
    if kept is not None and index in ("current", "shuffled"):
        assert len(kept) < len(rows) // 2  # the rows of hub's file and the separator, not the table
    for concept in ["hub", "c05", "c0", "c1-x", "c00"]:
        if concept not in bank.by_concept:
            continue
        assert plan_rename(bank, concept, "renamed") == scanned_plan(bank, concept, "renamed"), concept
        assert index_mentions(bank, concept) == [
            Mention(INDEX_NAME, c.span, "index-concept" if c.column == "CONCEPT" else "index-relationship")
            for c in index_cells(bank.index_text)
            if c.column != "FILE" and c.text == concept
        ], concept


def test_a_rename_renames_index_cells_whose_files_no_longer_name_the_concept() -> None:
    bank = hub_bank(3)
    bank.index_text = update_index_text(None, bank)
    check_index(bank)
    named = [path for path in sorted(bank.backlinks["hub"]) if path != "c0.md"]
    for path in named:  # no file names hub any more: the index still does, on their rows
        concept = bank.files[path].concept
        bank.set_file(path, bare_header(CONCEPT=concept, SIMILAR_MID="c1-x:2025-01"))
    index_edits = plan_rename(bank, "hub", "hub2").edits[INDEX_NAME]
    assert len(index_edits) == len(named) + 3  # their rows, c0's, and the CONCEPT and FILE of hub's
    assert plan_rename(bank, "hub", "hub2") == scanned_plan(bank, "hub", "hub2")


def test_index_rows_follow_a_new_index_text() -> None:
    bank = generated_bank(1)
    bank.index_text = update_index_text(None, bank)
    before = declared_rows(bank, "c10")
    bank.remove_file("f3.md")
    bank.index_text = update_index_text(None, bank)  # one row less above c10
    assert declared_rows(bank, "c10") == [(before[0][0] - 1, before[0][1])]
    assert declared_rows(bank, "c10") == scanned_declarations(bank.index_text, "c10")
    assert bank.files and INDEX_NAME not in bank.files


@pytest.mark.scale
def test_suggestions_on_a_large_bank_follow_new_and_removed_concepts() -> None:
    bank = Bank(Path("/nonexistent/memory-bank"))
    for i in range(SUGGEST_POOL + 100):
        bank.set_file(f"f{i}.md", bare_header(CONCEPT=f"{('alpha', 'beta', 'gamma')[i % 3]}-n{i}-ledger"))
    assert bank.suggest("ghost-n7-ledger") == "beta-n7-ledger"  # its words made here, then kept
    bank.set_file("f7.md", bare_header(CONCEPT="billing-ghost"))  # beta-n7-ledger leaves
    bank.set_file("new.md", bare_header(CONCEPT="ghost-n7-ledgers"))
    bank.remove_file("f8.md")
    fresh = Bank(Path("/nonexistent/memory-bank"))
    for rel, kf in bank.files.items():
        fresh.set_file(rel, bare_header(CONCEPT=kf.concept))
    for query in ("ghost-n7-ledger", "billing-ghosts", "gamma-n8-ledger", "beta-n10-ledger"):
        assert bank.suggest(query) == fresh.suggest(query), query
    assert bank.suggest("ghost-n7-ledger") == "ghost-n7-ledgers"
    assert bank.suggest("billing-ghosts") == closest("billing-ghosts", ["billing-ghost"])


@pytest.mark.parametrize("made", [FREEZE_ABOVE * 2, 1000])
def test_what_reading_a_large_bank_made_is_out_of_the_collectors_sight(made: int) -> None:
    collecting = gc.isenabled()
    gc.enable()
    try:
        gc.collect()
        before = gc.get_freeze_count()
        with paused_collection():
            assert not gc.isenabled()  # nothing walks the files while they are read
            objects = [[i] for i in range(made)]
        assert gc.isenabled()
        if made > FREEZE_ABOVE:
            assert gc.get_freeze_count() >= before + len(objects)
        else:  # a small bank: left to the collector, with any garbage made meanwhile
            assert gc.get_freeze_count() == before
    finally:
        if not collecting:
            gc.disable()
