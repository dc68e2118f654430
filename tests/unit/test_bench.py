"""The routing benchmark: queries files, expectations, token savings, growing subsets, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.routing.bench import (
    BenchError,
    Query,
    load_queries,
    run_bench,
    subset,
    subset_order,
    tool_json,
    tool_tokens,
)
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.faces.banks import load_bank

DATA = Path(__file__).resolve().parent.parent / "data" / "route"
BANK = DATA / "memory-bank"
QUERIES = DATA / "queries.yaml"
SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "mentat"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(BANK)


# --- the queries file ----------------------------------------------------------------------------


def test_yaml_queries_are_read_with_their_expectations() -> None:
    queries = load_queries(QUERIES)
    assert queries[0] == Query("How does the login flow use the guard?", ("auth", "jwt"), None, 3)
    assert queries[-1] == Query("How do I bake sourdough bread?", (), True, None)


def test_json_queries_are_read(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"queries": [{"query": "jwt", "must_load": "jwt"}, "plain question"]}))
    assert load_queries(path) == [Query("jwt", ("jwt",)), Query("plain question")]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{}", "expected a list of queries"),
        ("- must_load: [a]", "needs a 'query' string"),
        ("- query: x\n  must_laod: [a]", "unknown key(s) must_laod"),
        ("- query: x\n  max_loaded: two", "max_loaded is a whole number"),
        ("- query: x\n  out_of_domain: maybe", "out_of_domain is true or false"),
        ("- query: [unclosed", "not valid YAML"),
    ],
)
def test_bad_queries_files_say_what_is_wrong(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(content)
    with pytest.raises(BenchError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_queries(path)


# --- expectations and savings ----------------------------------------------------------------------


def test_every_expectation_met(bank: Bank) -> None:
    report = run_bench(bank, load_queries(QUERIES))
    assert report.ok
    assert report.passed == 4
    assert report.recall == 1.0
    assert all(o.failures == [] for o in report.outcomes)


def test_failed_expectations_are_named(bank: Bank) -> None:
    queries = [
        Query("How does the login flow use the guard?", must_load=("sessions", "nope"), max_loaded=1),
        Query("bread", out_of_domain=False),
        Query("eviction", out_of_domain=True),
    ]
    report = run_bench(bank, queries)
    assert not report.ok
    assert report.outcomes[0].failures == [
        "did not load 'sessions'",
        "must_load names 'nope', which is not a concept of this bank",
        "loaded 3 files, at most 1 expected",
    ]
    assert report.outcomes[1].failures == ["expected a match, the query was out of domain"]
    assert report.outcomes[2].failures[0].startswith("expected out of domain, loaded")
    assert report.recall == 0.0


def test_must_load_names_a_file_by_its_path_from_the_bank_root(bank: Bank) -> None:
    """Questions written before any header exists name files, not concepts."""
    queries = [
        Query("Where are the database migrations?", must_load=("database.md",)),
        Query("Where are the database migrations?", must_load=("nowhere.md",)),
    ]
    report = run_bench(bank, queries)
    assert report.outcomes[0].ok and report.outcomes[0].measures["ranked"].found
    assert report.outcomes[1].failures == [
        "must_load names 'nowhere.md', which is not a knowledge file of this bank"
    ]
    assert report.outcomes[1].measures["ranked"].found is False  # never found, whatever was loaded
    assert report.outcomes[1].measures["ranked"].peer_found is False


def test_a_miss_is_never_a_saving_and_both_routers_are_measured_beside_the_peer(bank: Bank) -> None:
    queries = [
        Query("Where are the database migrations?", must_load=("database",)),
        Query("Where are the database migrations?", must_load=("sessions",)),  # a miss
        Query("How do I bake sourdough bread?", out_of_domain=True),
    ]
    report = run_bench(bank, queries)
    assert len(report.misses) == 1 and report.misses[0] is report.outcomes[1]
    found = [o for o in report.outcomes if o.ok]
    assert report.found_reduction == pytest.approx(sum(o.result.tokens.reduction for o in found) / len(found))
    figures = report.as_dict()["modes"]
    assert set(figures) == {"ranked", "index"}
    for mode in ("ranked", "index"):
        f = figures[mode]
        assert (f["questions"], f["found"], f["out_of_domain"], f["out_of_domain_loaded_something"]) == (
            2,
            1,
            1,
            0,
        )
        # the peer gets as many files as the router loaded, and finds the database file too
        m = report.outcomes[0].measures[mode]
        assert len(m.peer) == len(m.loaded) and "database.md" in m.peer and m.peer_found
    assert report.as_dict()["misses"] == 1


def test_reduction_is_the_mean_share_saved_per_query(bank: Bank) -> None:
    report = run_bench(bank, load_queries(QUERIES))
    shares = [1 - o.result.tokens.with_ckp / o.result.tokens.without_ckp for o in report.outcomes]
    assert report.reduction == pytest.approx(sum(shares) / len(shares))
    row = report.sizes[0]
    assert row.files == 12
    assert row.reduction == pytest.approx(report.reduction)


# --- growing subsets -------------------------------------------------------------------------------


def test_subsets_take_the_queries_concepts_first_then_names(bank: Bank) -> None:
    order = subset_order(bank, [Query("q", ("jwt", "auth")), Query("r", ("database", "jwt"))])
    assert order[:3] == ["jwt.md", "auth.md", "database.md"]
    assert order[3:] == sorted(order[3:], key=lambda p: bank.files[p].concept or "")
    assert len(order) == 12


def test_a_subset_is_measured_with_its_own_rendered_index(bank: Bank) -> None:
    queries = load_queries(QUERIES)
    report = run_bench(bank, queries, sizes=(3, 12))
    assert [r.files for r in report.sizes] == [3, 12]
    small = subset(bank, subset_order(bank, queries)[:3])
    index = token_estimate(len(update_index_text(None, small)))
    files = sum(kf.tokens for kf in small.files.values())
    router = RankedRouter(small)  # (the bench's router, the ranked one, on the subset)
    assert router.index_tokens == index
    assert report.sizes[0].without_ckp == files
    with_ckp = [router.route(q.text).tokens.with_ckp for q in queries]
    assert report.sizes[0].with_ckp == round(sum(with_ckp) / len(with_ckp))
    # The out-of-domain query costs the subset's index alone.
    assert router.route(queries[-1].text).tokens.with_ckp == index


def test_sizes_beyond_the_bank_are_skipped(bank: Bank) -> None:
    report = run_bench(bank, load_queries(QUERIES), sizes=(3, 30))
    assert [r.files for r in report.sizes] == [3]
    assert report.skipped_sizes == [30]


# --- the command -----------------------------------------------------------------------------------


def test_cli_text_prints_queries_table_and_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(BANK), "--queries", str(QUERIES)]) == 0
    out = capsys.readouterr().out
    assert "[CKP: loaded 3/12 files — match: auth.md via login flow, guard; oauth2.md via flow, login]" in out
    assert "| Files | Without CKP | With the index | Through ckp_route, no index |" in out
    assert "| 12 | 694 |" in out
    assert "| ranked | 3/3 (100%) |" in out
    assert "| index | 3/3 (100%) |" in out
    assert "Routing (ranked): 4/4 queries meet their expectations; recall 100% (5/5 must-load files)" in out
    assert "0 missed a file (a miss saves nothing)" in out


def test_cli_json_carries_files_reduction_recall_and_queries(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(BANK), "--queries", str(QUERIES), "--format", "json", "--sizes", "3,12"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == 12
    assert 0 < data["reduction"] < 1
    assert data["recall"] == 1.0
    assert len(data["queries"]) == 4
    assert data["queries"][0]["loaded"] == ["auth", "oauth2", "jwt"]
    assert data["modes"]["ranked"]["recall"] == data["modes"]["index"]["recall"] == 1.0
    assert [s["files"] for s in data["sizes"]] == [3, 12]


def test_cli_exits_1_when_an_expectation_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "q.yaml"
    path.write_text("- query: bread\n  must_load: [auth]\n")
    assert main(["bench", str(BANK), "--queries", str(path)]) == 1
    assert "did not load 'auth'" in capsys.readouterr().out


def test_cli_bad_queries_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(BANK), "--queries", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_cli_bad_sizes_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", str(BANK), "--queries", str(QUERIES), "--sizes", "3,x"])
    assert "not a comma-separated list" in capsys.readouterr().err


def test_sample_bank_meets_every_expectation_with_half_the_tokens_saved(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bank = SAMPLES / "memory-bank"
    assert main(["bench", str(bank), "--queries", str(SAMPLES / "queries.yaml"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == 11
    assert data["passed"] == len(data["queries"])
    assert data["found_reduction"] >= 0.5


# --- routing through the tool, and the compact index -------------------------------------------------


def test_the_tool_column_counts_the_call_the_answer_and_the_loaded_files_without_the_index(
    bank: Bank,
) -> None:
    queries = load_queries(QUERIES)
    report = run_bench(bank, queries)
    router = RankedRouter(bank)
    costs = []
    for q in queries:
        r = router.route(q.text)
        call = token_estimate(len(tool_json({"name": "ckp_route", "arguments": {"query": q.text}})))
        answer = token_estimate(len(json.dumps(r.as_dict(), ensure_ascii=False, separators=(",", ":"))))
        assert tool_tokens(r) == call + answer + r.tokens.loaded
        costs.append(call + answer + r.tokens.loaded)
    row = report.sizes[0]
    assert row.with_tool == round(sum(costs) / len(costs))
    assert row.tool_reduction == pytest.approx(sum(1 - c / row.without_ckp for c in costs) / len(costs))
    assert report.tool_reduction == pytest.approx(row.tool_reduction)
    assert report.as_dict()["sizes"][0]["with_tool"] == row.with_tool


def test_on_the_sample_the_tool_costs_less_than_the_index_which_costs_less_than_everything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bank = SAMPLES / "memory-bank"
    assert main(["bench", str(bank), "--queries", str(SAMPLES / "queries.yaml"), "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["sizes"][0]
    assert row["with_tool"] < row["with_ckp"] < row["without_ckp"]


def test_the_compact_index_costs_less_and_routing_recall_does_not_drop(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "bench",
        str(SAMPLES / "memory-bank"),
        "--queries",
        str(SAMPLES / "queries.yaml"),
        "--format",
        "json",
    ]
    assert main([*argv, "--index-format", "table"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert main([*argv, "--index-format", "compact"]) == 0
    compact = json.loads(capsys.readouterr().out)
    assert compact["index_format"] == "compact" and table["index_format"] == "table"
    assert compact["recall"] == table["recall"] == 1.0 and compact["passed"] == table["passed"]
    assert compact["sizes"][0]["with_ckp"] < table["sizes"][0]["with_ckp"]
    assert [q["loaded"] for q in compact["queries"]] == [q["loaded"] for q in table["queries"]]


def test_cli_text_shows_the_three_columns_for_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(SAMPLES / "memory-bank"), "--queries", str(SAMPLES / "queries.yaml")]) == 0
    out = capsys.readouterr().out
    head = "| Files | Without CKP | With the index | Through ckp_route, no index |"
    row = out.split(head, 1)[1].splitlines()[2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "11" and "less)" in cells[2] and "less)" in cells[3]


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_deeply_nested_queries_file_is_a_clear_error(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"queries{suffix}"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(BenchError, match="nested too deeply to be a list of queries"):
        load_queries(path)
