"""The fast paths read exactly what the full ones read: the scan of clean headers (or it leaves the
file to the full parser), the line-by-line drift check of a generated index table, and the
suggestion for an unknown concept on a small bank."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ckp_lsp.core.agent.redaction import secret_findings
from ckp_lsp.core.bank import index_checks
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.bank.index_checks import check_index
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.format.index_cells import index_cell_at, index_cells, index_cells_naming
from ckp_lsp.core.format.knowledge import KnowledgeFile, _read_clean, _read_full, read_knowledge_file
from ckp_lsp.core.format.suggest import closest
from ckp_lsp.core.format.text import decode
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server.convert import uri_in, uri_of
from tests.unit.builders import SHOP

SHOP_INDEX = (SHOP / "_index.md").read_text(encoding="utf-8")

ROOT = Path(__file__).resolve().parents[2]
DATA = sorted(p for folder in ("samples", "tests/data") for p in (ROOT / folder).rglob("*.md"))


def snapshot(kf: KnowledgeFile) -> dict[str, object]:
    """Everything a reader of a KnowledgeFile can see (what needs no parse first)."""
    entry_spans = {c: kf.entry_spans(c) for c, *_ in kf.relations}
    one_by_one = (
        [kf.keyword(n) for n in range(len(kf.keyword_texts))],
        [kf.relationship(n) for n in range(len(kf.relations))],
    )
    header = kf.header
    return {
        "path": kf.path,
        "size": kf.size,
        "concept": kf.concept,
        "concept_span": kf.concept_span,
        "tldr": kf.tldr,
        "confidence": kf.confidence,
        "validated": kf.validated,
        "validated_text": kf.validated_text,
        "local": [(f.code, f.span, f.message, f.severity, f.data) for f in kf.local],
        "keywords": [(i.text, i.span) for i in kf.keywords],
        "keyword_items": kf.keywords,
        "relationship_items": kf.relationships,
        "keyword_texts": kf.keyword_texts,
        "relations": kf.relations,
        "relationships": [
            (r.concept, r.tier, r.span, r.concept_span, r.date_text, r.date, r.date_span)
            for r in kf.relationships
        ],
        "written": kf.written(),
        "entry_spans": entry_spans,
        "one_by_one": one_by_one,
        "header": None
        if header is None
        else (
            header.form,
            header.end_line,
            header.yaml_error,
            header.user_keys,
            [
                (f.key, f.key_span, f.value, f.value_span, [(i.text, i.span) for i in f.items], f.line)
                for f in header.fields
            ],
        ),
    }


def full(path: str, text: str, utf8: bool = True) -> KnowledgeFile:
    kf = _read_full(path, text, utf8)
    kf.local += secret_findings(text)  # what the text holds beyond its header (CKP080)
    kf.keyword_texts = [i.text for i in kf.keywords]
    kf.relations = [(r.concept, r.tier, r.date_text, r.date) for r in kf.relationships]
    return kf


def same(text: str, utf8: bool = True) -> None:
    fast = read_knowledge_file("a/b.md", text, utf8)
    before_parse = (fast.keyword_texts, fast.relations, fast.written())
    assert snapshot(fast) == snapshot(full("a/b.md", text, utf8))
    assert before_parse == (fast.keyword_texts, fast.relations, fast.written())


@pytest.mark.parametrize("path", DATA, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_sample_file_reads_the_same(path: Path) -> None:
    same(*decode(path.read_bytes()))


CLEAN = (
    "CONCEPT:      billing-ledger\n"
    "TLDR:         The ledger reconciles invoices with payments.\n"
    "ANSWERS_WHEN: ledger, billing ledger, invoice reconciliation\n"
    "SIMILAR_HIGH: payments:2025-05, invoices:2025-05-02\n"
    "SIMILAR_MID:  audit-log:2025-04\n"
    "CONFIDENCE:   High\n"
    "VALIDATED:    2025-05\n"
    "\n"
    "Body.\n"
)


def test_a_clean_header_takes_the_fast_scan_and_parses_on_demand() -> None:
    kf = _read_clean("x.md", CLEAN)
    assert kf is not None and kf.local == []
    assert kf.keyword_texts == ["ledger", "billing ledger", "invoice reconciliation"]
    assert [r[:3] for r in kf.relations] == [
        ("payments", "HIGH", "2025-05"),
        ("invoices", "HIGH", "2025-05-02"),
        ("audit-log", "MID", "2025-04"),
    ]
    assert kf.concept_span == (0, 14, 0, 28)
    same(CLEAN)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("CONCEPT:      billing-ledger", "CONCEPT:      Billing Ledger"),
        ("CONCEPT:      billing-ledger", "CONCEPT:"),
        ("TLDR:         The ledger reconciles invoices with payments.", "TLDR: One. Two."),
        ("TLDR:         The ledger reconciles invoices with payments.", "TLDR: " + "x" * 201),
        ("ANSWERS_WHEN: ledger,", "ANSWERS_WHEN: ledger, Ledger,"),
        ("ANSWERS_WHEN: ledger,", "ANSWERS_WHEN: " + ", ".join(f"k{i}" for i in range(21)) + ","),
        ("payments:2025-05,", "payments,"),
        ("payments:2025-05,", "payments:2025-13,"),
        ("payments:2025-05,", "payments:2999-01,"),
        ("payments:2025-05,", "Pay Ments:2025-05,"),
        ("payments:2025-05,", "billing-ledger:2025-05,"),
        ("payments:2025-05,", "invoices:2025-05,"),
        ("audit-log:2025-04", "payments:2025-04"),
        ("audit-log:2025-04", "a:2025-01, b:2025-01, c:2025-01, d:2025-01, e:2025-01, f:2025-01"),
        ("CONFIDENCE:   High", "CONFIDENCE:   sure"),
        ("CONFIDENCE:   High", "CONFIDENCE:"),
        ("VALIDATED:    2025-05", "VALIDATED:"),
        ("VALIDATED:    2025-05", "VALIDATED:    2999-05"),
        ("VALIDATED:    2025-05", "VALIDATED:    May 2025"),
        ("VALIDATED:    2025-05\n", ""),
        ("CONFIDENCE:   High", "CONFIDENCE:   High\nCONFIDENCE:   low"),
        ("CONFIDENCE:   High", "CONFIDENCES:  High"),
        ("\n\nBody.", "\rBody."),
        ("\n", "\r\n"),
        ("CONCEPT:", "\ufeffCONCEPT:"),
        ("CONCEPT:      billing-ledger\n", "---\nCONCEPT: billing-ledger\n---\n"),
        ("invoice reconciliation", "réconciliation 🚀"),
        ("SIMILAR_MID:  audit-log:2025-04", "SIMILAR_MID:"),
    ],
)
def test_a_header_with_a_finding_or_an_odd_form_reads_the_same(old: str, new: str) -> None:
    text = CLEAN.replace(old, new)
    assert text != CLEAN
    same(text)
    same(text, utf8=False)


PIECES = [
    "CONCEPT: ",
    "TLDR: ",
    "ANSWERS_WHEN: ",
    "SIMILAR_HIGH: ",
    "SIMILAR_MID: ",
    "CONFIDENCE: ",
    "VALIDATED: ",
    "FOO: ",
    "jwt",
    "oauth2",
    "a-b.c_d",
    "JWT Auth",
    ", ",
    ",",
    ":",
    "2025-05",
    "2025-13",
    "9999-01",
    "2024-02-29",
    "high",
    "Medium",
    ". Next",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "é",
    "\U0001f680",
    "\x85",
    "\u2028",
    "---",
]
FIELDS = ["CONCEPT", "TLDR", "ANSWERS_WHEN", "SIMILAR_HIGH", "SIMILAR_MID", "CONFIDENCE", "VALIDATED"]


@st.composite
def headers(draw: st.DrawFn) -> str:
    lines = []
    for key in draw(st.lists(st.sampled_from([*FIELDS, "FOO"]), min_size=0, max_size=9)):
        value = "".join(draw(st.lists(st.sampled_from(PIECES[8:]), max_size=8)))
        lines.append(f"{key}:{draw(st.sampled_from(['', ' ', '   ']))}{value}")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\nBody", "\r\nBody"]))


@pytest.mark.scale
@settings(max_examples=400, deadline=None)
@given(headers())
def test_generated_headers_read_the_same(text: str) -> None:
    same(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_arbitrary_pieces_read_the_same(text: str) -> None:
    same(text)


def test_a_generated_bank_reads_the_same(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from genbank import generate
    finally:
        sys.path.pop(0)
    for path in generate(tmp_path, 150, seed=3):
        same(path.read_text(encoding="utf-8"))


# --- the index ----------------------------------------------------------------------------------


def index_findings(bank: Bank) -> list[tuple[str, object, str, object]]:
    return [(f.code, f.span, f.message, f.data) for f in check_index(bank)]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda t: t,
        lambda t: t.replace("| billing |", "| billing-x |", 1),
        lambda t: t.replace("refund", "refunds", 1),
        lambda t: "\n".join(line for line in t.split("\n") if "| deploy |" not in line),
        lambda t: t.replace("| deploy |", "| deploy |", 1) + "| ghost | ghost.md | x | y |  |  |  |  |\n",
        lambda t: t.replace("|---|", "|-|", 1),
        lambda t: t.replace("| CONCEPT |", "|  CONCEPT |", 1),
        lambda t: t.replace("| deploy |", "|  deploy  |", 1),
        lambda t: t.replace("<!-- ckp:index:end -->", "| deploy | | x | | | | | |\n<!-- ckp:index:end -->"),
        lambda t: t.replace("<!-- ckp:index:end -->", "| CONCEPT | FILE |\n<!-- ckp:index:end -->"),
        lambda t: t.replace("<!-- ckp:index:end -->", ""),
        lambda t: t.replace("<!-- ckp:index:start -->", ""),
        lambda t: t + t[t.index("| billing |") : t.index("\n", t.index("| billing |")) + 1],
    ],
)
def test_the_index_drift_check_reads_the_same_line_by_line(
    mutate: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = load_bank(SHOP)
    assert callable(mutate)
    bank.index_text = mutate(update_index_text(None, bank))
    fast = index_findings(bank)
    monkeypatch.setattr(index_checks, "_table_drift", lambda bank, text: None)
    assert fast == index_findings(bank)


def test_a_changed_file_is_compared_with_its_new_row(tmp_path: Path) -> None:
    bank = load_bank(SHOP)
    bank.index_text = update_index_text(None, bank)
    assert not [f for f in check_index(bank) if f.code == "CKP070"]
    rel = next(r for r, kf in bank.files.items() if kf.concept == "deploy")
    text = (SHOP / rel).read_text(encoding="utf-8").replace("deploy", "deploys", 1)
    bank.set_file(rel, text)
    assert [f.code for f in check_index(bank) if f.code == "CKP070"] == ["CKP070", "CKP070"]


def test_a_small_bank_suggests_the_closest_of_all_its_concepts() -> None:
    bank = load_bank(SHOP)
    for name in ("biling", "deplyo", "zzz", "oauth", "x-billing"):
        assert bank.suggest(name) == closest(name, bank.concepts())


# --- navigation in the index ---------------------------------------------------------------------


def test_cells_naming_a_concept_are_those_of_the_whole_index() -> None:
    bank = load_bank(SHOP)
    for text in (update_index_text(None, bank), SHOP_INDEX):
        cells = index_cells(text)
        for names in ({"billing"}, {"cart", "infra/deploy.md"}, {"nothing"}):
            assert index_cells_naming(text, names) == [c for c in cells if c.text in names]
        for cell in cells:
            line, col = cell.span.start_line, cell.span.start_col
            assert index_cell_at(text, line, col) == next(c for c in cells if c.span.contains(line, col))


@pytest.mark.parametrize("rel", ["a.md", "sub dir/é #1.md", "x%y/[z].md", ""])
def test_a_uri_in_a_bank_is_the_uri_of_its_path(rel: str, tmp_path: Path) -> None:
    root = tmp_path / "my bank"
    assert uri_in(root, rel) == uri_of(root / rel)


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_cells_naming_a_concept_at_the_edges_of_the_index(end: str) -> None:
    text = end.join(
        ["# x", "<!-- ckp:index:start -->", *SHOP_INDEX.split("\n")[5:-2], "<!-- ckp:index:start -->"]
    )
    for names in ({"billing"}, {"cart"}, {""}, {"<!-- ckp:index:start -->"}):
        assert index_cells_naming(text, names) == [c for c in index_cells(text) if c.text in names]
    assert index_cells_naming("<!-- ckp:index:start -->", {"x"}) == []


def test_the_index_drift_check_follows_edits_one_file_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from genbank import generate
    finally:
        sys.path.pop(0)
    generate(tmp_path, 60, seed=5)
    bank = load_bank(tmp_path)
    bank.index_text = update_index_text(None, bank)
    paths = sorted(bank.files)
    texts = {p: (tmp_path / p).read_text(encoding="utf-8") for p in paths}
    edits = [
        lambda: bank.set_file(
            paths[1], texts[paths[1]].replace("VALIDATED:    2025-0", "VALIDATED:    2024-0")
        ),
        lambda: bank.set_file(paths[2], texts[paths[2]] + "\nMore body.\n"),
        lambda: bank.remove_file(paths[3]),
        lambda: bank.set_file(
            "new/extra.md", "CONCEPT: extra\nTLDR: x.\nANSWERS_WHEN: a\nVALIDATED: 2025-01\n"
        ),
        lambda: bank.set_file(paths[3], texts[paths[3]]),
        lambda: bank.set_file(paths[1], texts[paths[1]]),
        lambda: bank.set_file(paths[4], texts[paths[4]].replace("CONCEPT:      ", "CONCEPT:      x", 1)),
        lambda: bank.set_file(paths[5], "no header\n"),
        lambda: bank.remove_file("new/extra.md"),
        lambda: bank.set_file(paths[5], texts[paths[5]]),
    ]
    for edit in edits:
        edit()
        fast = index_findings(bank)
        with monkeypatch.context() as m:
            m.setattr(index_checks, "_table_drift", lambda bank, text: None)
            assert fast == index_findings(bank)
    bank.index_text = update_index_text(bank.index_text, bank)
    assert [f.code for f in check_index(bank) if f.code == "CKP070"] == []


def test_a_folder_is_inside_its_bank_as_resolving_it_says(tmp_path: Path) -> None:
    from ckp_lsp.core.project.within import inside

    root = (tmp_path / "bank").resolve()
    (root / "a" / "a").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "out").symlink_to(tmp_path / "outside")
    (root / "in").symlink_to(root / "a")
    (root / "a" / "up").symlink_to(tmp_path)
    for folders in (
        ["a"],
        ["a", "a"],
        ["out"],
        ["in"],
        ["in", "a"],
        ["a", "up"],
        ["a", "up", "bank"],
        ["gone", "x"],
        [],
    ):
        assert inside(root.joinpath(*folders), root) == root.joinpath(*folders).resolve().is_relative_to(
            root
        ), folders
