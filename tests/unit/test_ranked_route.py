"""The ranked router (SPEC §6b): fields weighted, distinctive words first, out of domain when the
best match is weak, relationships within the budget, at least what the index pattern finds, and
the BM25 peer it is measured against."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.project.discovery import find_banks
from ckp_lsp.core.routing import ranked
from ckp_lsp.core.routing.index_pattern import Router
from ckp_lsp.core.routing.peer import PlainBM25
from ckp_lsp.core.routing.postings import Postings
from ckp_lsp.core.routing.ranked import MAX_LOADED, RankedRouter
from ckp_lsp.core.routing.store import RouteStore
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import write_files

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
FILLER = "The team writes notes here about the project and its plans for the next release.\n" * 3


def header(concept: str, keywords: str, high: str = "", mid: str = "") -> str:
    lines = [f"CONCEPT: {concept}", f"TLDR: Notes on {concept}.", f"ANSWERS_WHEN: {keywords}"]
    if high:
        lines.append(f"SIMILAR_HIGH: {high}")
    if mid:
        lines.append(f"SIMILAR_MID: {mid}")
    return "\n".join([*lines, "VALIDATED: 2025-05", "", ""])


def bank(tmp_path: Path, files: dict[str, str]) -> Bank:
    root = write_files(tmp_path / "memory-bank", files)
    return load_bank(root)


def test_a_word_in_the_header_outranks_the_same_word_in_a_body(tmp_path: Path) -> None:
    b = bank(
        tmp_path,
        {
            "ledger.md": header("ledger", "ledger, reconciliation")
            + FILLER
            + "Invoices are matched nightly.\n",
            "billing.md": header("billing", "billing, invoices") + FILLER + "The ledger is read here.\n",
        },
    )
    result = RankedRouter(b).route("How does the ledger work?")
    assert result.primaries[0].file == "ledger.md"


def test_a_heading_outranks_the_body(tmp_path: Path) -> None:
    b = bank(
        tmp_path,
        {
            "a.md": header("alpha", "alpha") + "# Webhook signing\n\n" + FILLER,
            "b.md": header("bravo", "bravo") + FILLER + "A webhook goes out here, and webhook signing too.\n",
        },
    )
    assert RankedRouter(b).route("webhook signing").primaries[0].file == "a.md"


def test_a_distinctive_word_counts_more_than_one_every_file_holds(tmp_path: Path) -> None:
    files = {
        f"f{i}.md": header(f"file-{i}", f"topic{i}") + FILLER + "The service handles it.\n" for i in range(6)
    }
    files["f3.md"] = header("file-3", "topic3") + FILLER + "The idempotency key is checked once.\n"
    router = RankedRouter(bank(tmp_path, files))
    result = router.route("Which service checks the idempotency key?")
    assert result.primaries[0].file == "f3.md"
    common = router.postings.group(next(w for w, _ in router.groups("service")))
    rare = router.postings.group(next(w for w, _ in router.groups("idempotency")))
    assert router.postings.idf(rare) > router.postings.idf(common)


def test_the_body_finds_a_file_its_keywords_do_not_name_and_the_declaration_says_which_words(
    tmp_path: Path,
) -> None:
    b = bank(
        tmp_path,
        {
            "import.md": header("import", "import")
            + FILLER
            + "The CSV import limit is 10,000 rows per file.\n",
            "auth.md": header("auth", "login") + FILLER,
        },
    )
    result = RankedRouter(b).route("What is the CSV limit?")
    assert [e.file for e in result.loaded] == ["import.md"]
    assert result.primaries[0].keywords == [] and {"CSV", "limit"} <= set(result.primaries[0].words)
    assert result.declaration.startswith("[CKP: loaded 1/2 files — match: import.md via ")
    assert Router(b).route("What is the CSV limit?").out_of_domain  # the index pattern misses it


def test_a_question_about_what_the_bank_never_mentions_loads_nothing(tmp_path: Path) -> None:
    b = bank(
        tmp_path,
        {
            "cache.md": header("cache", "cache, redis") + FILLER + "Entries expire after an hour.\n",
            "deploy.md": header("deploy", "deploy") + FILLER + "We deploy with a blue-green switch.\n",
        },
    )
    router = RankedRouter(b)
    baking = router.route("How do I bake sourdough bread?")
    assert baking.out_of_domain and baking.loaded == []
    assert baking.declaration == "[CKP: loaded 0/2 files — out of domain]"
    # a technology the bank never names, however many of its plain words the bank shares
    assert router.ranking("How do I set up Kubernetes for the project release?").unknown_names == [
        "Kubernetes"
    ]
    assert router.route("How do I set up Kubernetes for the project release?").out_of_domain
    assert not router.route("When do cache entries expire?").out_of_domain


def test_high_comes_along_and_mid_only_where_the_question_matches_it_within_the_budget(
    tmp_path: Path,
) -> None:
    files = {
        "jwt.md": header(
            "jwt", "jwt, bearer token", high="oauth2:2025-05", mid="cookies:2025-05, audit:2025-05"
        )
        + FILLER,
        "oauth2.md": header("oauth2", "oauth2, pkce") + FILLER,
        "cookies.md": header("cookies", "cookie, samesite") + FILLER,
        "audit.md": header("audit", "audit log") + FILLER,
    }
    result = RankedRouter(bank(tmp_path, files)).route("How is the jwt bearer token stored in a cookie?")
    reasons = {e.file: e.reason for e in result.loaded}
    assert reasons["jwt.md"] == "match" and reasons["oauth2.md"] == "high"
    assert "audit.md" not in reasons  # MID, and the question does not match it
    assert len(result.loaded) <= MAX_LOADED


def test_relationships_never_go_past_the_budget_of_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "hub.md": header("hub", "hub", high="a:2025-05, b:2025-05, c:2025-05") + FILLER,
        **{f"{c}.md": header(c, f"{c}word") + FILLER for c in "abc"},
    }
    monkeypatch.setattr(ranked, "MAX_LOADED", 2)
    result = RankedRouter(bank(tmp_path, files)).route("What is the hub?")
    assert [e.file for e in result.loaded] == ["hub.md", "a.md"]


@pytest.mark.parametrize("sample", sorted(p.parent.name for p in SAMPLES.glob("*/queries.yaml")))
def test_on_a_compiled_sample_the_ranked_router_finds_every_file_the_index_pattern_finds(sample: str) -> None:
    (root,) = find_banks([SAMPLES / sample])
    b = load_bank(root)
    router, index = RankedRouter(b), Router(b)
    for item in yaml.safe_load((SAMPLES / sample / "queries.yaml").read_text(encoding="utf-8")):
        q = item["query"]
        found = {e.concept for e in index.route(q).loaded} & set(item.get("must_load", ()))
        assert found <= {e.concept for e in router.route(q).loaded}, q
        assert {e.concept for e in index.route(q).primaries} <= {
            e.concept for e in router.route(q).loaded
        } | {e.concept for e in router.route(q).matched_not_loaded}, q


def test_the_peer_is_okapi_bm25_over_the_raw_text(tmp_path: Path) -> None:
    b = bank(
        tmp_path,
        {
            "a.md": header("alpha", "alpha") + "retry retry retry backoff\n",
            "b.md": header("bravo", "bravo") + "retry once\n" + FILLER,
            "c.md": header("charlie", "charlie") + FILLER,
        },
    )
    peer = PlainBM25(RankedRouter(b).texts)
    assert peer.top("retry backoff", 2) == ["a.md", "b.md"]
    assert peer.top("retry backoff", 1) == ["a.md"]
    assert peer.top("sourdough", 3) == []
    one = Postings.build([[["x", "y"]], [["y"]]], (1.0,))
    # idf = ln(1 + (N - df + 0.5) / (df + 0.5)); N = 2
    assert one.idf(frozenset({"x"})) == pytest.approx(0.6931, abs=1e-4)  # ln(1 + 1.5/1.5)


def test_the_analysis_is_kept_and_only_a_changed_file_is_analysed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CKP_NO_CACHE", raising=False)
    monkeypatch.delenv("CKP_CACHE_DIR", raising=False)
    b = bank(
        tmp_path, {"a.md": header("alpha", "alpha") + "ledger\n", "b.md": header("bravo", "bravo") + FILLER}
    )
    store = RouteStore.for_bank(b.root)
    assert store is not None
    RankedRouter(b, store=store)
    assert (b.root / ".ckp-cache" / "route.marshal").is_file()
    analysed: list[str] = []
    real = ranked.analyse
    monkeypatch.setattr(ranked, "analyse", lambda t, language: analysed.append(t.path) or real(t, language))
    RankedRouter(b, store=RouteStore.for_bank(b.root))
    assert analysed == []
    path = b.root / "a.md"
    path.write_text(header("alpha", "alpha") + "reconciliation\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))
    fresh = load_bank(b.root)
    router = RankedRouter(fresh, store=RouteStore.for_bank(b.root))
    assert analysed == ["a.md"]
    assert router.route("reconciliation").primaries[0].file == "a.md"


def test_a_bank_over_the_full_read_limit_is_ranked_by_its_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``ckp route`` reads a large bank from its index: no body is read."""
    files = {
        "import.md": header("import", "csv import") + FILLER + "The idempotency key is checked once.\n",
        "auth.md": header("auth", "login") + FILLER,
    }
    b = bank(tmp_path, files)
    assert RankedRouter(b).route("idempotency key").primaries[0].file == "import.md"
    monkeypatch.setattr(ranked, "FULL_READ_LIMIT", 1)
    router = RankedRouter(b)
    assert all(t.body == "" for t in router.texts)
    assert router.route("idempotency key").out_of_domain
    assert router.route("How does the csv import work?").primaries[0].file == "import.md"


def test_a_name_whose_whole_the_bank_lacks_is_unknown_though_one_of_its_pieces_is_held() -> None:
    """``DynamoDB`` is no word of a bank whose ``TimescaleDB`` holds the piece ``db``: the question
    about it is out of domain (it once loaded the database file by that piece)."""
    from ckp_lsp.core.routing.ranked import RankedRouter

    (bank,) = find_banks([SAMPLES / "claude-code"])
    router = RankedRouter(load_bank(bank))
    found = router.ranking("How do I configure Terraform state locking with DynamoDB?")
    assert "DynamoDB" in found.unknown_names
    assert router.route("How do I configure Terraform state locking with DynamoDB?").out_of_domain
    assert not router.route("Which Postgres extension holds the TimescaleDB hypertable?").out_of_domain
