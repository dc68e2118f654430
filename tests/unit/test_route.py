"""Routing (SPEC §6): each rule on a small bank, the token estimates, the table read from disk, the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ckp_lsp.cli.main import main
from ckp_lsp.core.format.fields import token_estimate
from ckp_lsp.core.format.index import update_index_text
from ckp_lsp.core.project.config import Config
from ckp_lsp.core.routing import route
from ckp_lsp.core.routing.index_pattern import Router
from ckp_lsp.core.routing.result import RouteResult
from ckp_lsp.core.routing.route_table import RouteTable, read_route_table
from ckp_lsp.core.routing.words import words
from ckp_lsp.faces.banks import load_bank, read_headers
from tests.copies import copy_tree

BANK = Path(__file__).resolve().parent.parent / "data" / "route" / "memory-bank"


@pytest.fixture(scope="module")
def router() -> Router:
    return Router(load_bank(BANK))


def loaded(result: RouteResult) -> dict[str, str]:
    """Concept -> reason of every loaded file."""
    return {e.concept: e.reason for e in result.loaded}


# --- normalising and matching --------------------------------------------------------------------


def test_words_are_nfkc_casefolded_and_split_on_punctuation() -> None:
    assert words("ＪＷＴ Straße api-gateway mentat.istat snake_case") == [
        "jwt",
        "strasse",
        "api",
        "gateway",
        "mentat",
        "istat",
        "snake",
        "case",
    ]


def test_fullwidth_and_case_folded_query_matches(router: Router) -> None:
    assert loaded(router.route("ＪＷＴ?"))["jwt"] == "match"
    assert "i18n" in loaded(router.route("STRASSE names"))


def test_phrase_keyword_needs_all_its_words(router: Router) -> None:
    assert "auth" not in router.matches("what is a login?")
    assert router.matches("the flow of a login")["auth"] == ["login flow"]


def test_plural_s_and_es_match_both_ways(router: Router) -> None:
    assert router.matches("migrations")["database"] == ["migration"]
    assert router.matches("boxes")["database"] == ["box"]
    assert router.matches("cookies")["cookies"] == ["cookie"]
    assert router.matches("one claim")["jwt"] == ["claims"]


def test_typo_in_a_long_word_matches(router: Router) -> None:
    assert router.matches("how does authentcation work")["auth"] == ["authentication"]
    assert router.matches("migartion")["database"] == ["migration"]


def test_typo_in_a_short_word_does_not_match(router: Router) -> None:
    assert router.route("jwx").out_of_domain  # jwt
    assert router.route("csfr").out_of_domain  # csrf
    assert router.route("PKCF").out_of_domain  # PKCE


def test_a_close_but_different_word_is_not_a_typo(router: Router) -> None:
    assert router.route("scheme").out_of_domain  # schema
    assert router.route("redix").out_of_domain  # Redis: one letter of five differs


def test_a_word_the_bank_knows_is_never_a_typo() -> None:
    bank_router = Router(
        _table({"civic": "civic intelligence", "civis": "citizen report"}),
    )
    assert bank_router.matches("civic")["civic"] == ["civic"]
    assert "civis" not in bank_router.matches("civic")


def test_concept_counts_as_a_keyword_split_on_separators(router: Router) -> None:
    assert router.matches("our api gateway timeouts")["api-gateway"] == ["api-gateway"]
    assert router.matches("API_GATEWAY")["api-gateway"] == ["api-gateway"]
    assert "api-gateway" not in router.matches("the api")


def test_score_counts_distinct_keywords(router: Router) -> None:
    # "jwt" is a keyword and the concept: one keyword, counted once.
    assert router.matches("jwt bearer jwt")["jwt"] == ["jwt", "bearer"]
    # "cookie" (a keyword) and "cookies" (the concept) stand for the same query word.
    assert router.matches("a cookie")["cookies"] == ["cookie"]
    assert router.matches("cookie or cookies")["cookies"] == ["cookie"]


# --- choosing the files ----------------------------------------------------------------------------


def test_primary_is_the_highest_score(router: Router) -> None:
    result = router.route("authentication guard with a cookie")
    assert [e.concept for e in result.primaries] == ["auth", "cookies"]
    assert result.primaries[0].keywords == ["authentication", "guard"]


def test_at_most_three_primaries(router: Router) -> None:
    result = router.route("eviction")
    assert len(result.primaries) == 3
    assert [e.concept for e in result.matched_not_loaded] == ["delta"]


def test_ties_are_broken_by_concept_name(router: Router) -> None:
    assert [e.concept for e in router.route("eviction").primaries] == ["alpha", "bravo", "charlie"]
    assert [e.concept for e in router.route("EVICTIONS, please").primaries] == ["alpha", "bravo", "charlie"]


def test_high_is_always_loaded_and_not_transitively(router: Router) -> None:
    result = router.route("How does the login flow work?")
    assert loaded(result) == {"auth": "match", "jwt": "high"}
    assert result.loaded[1].via == "auth"
    assert result.loaded[1].keywords == []
    # oauth2 is HIGH of jwt, and jwt is not primary here.
    assert "oauth2" not in loaded(result)


def test_mid_is_loaded_only_when_its_own_keywords_match(router: Router) -> None:
    without = router.route("authentication guard, jwt bearer, oauth2 PKCE")
    assert "cookies" not in loaded(without)
    assert "sessions" not in loaded(without)
    result = router.route("authentication guard, jwt bearer, oauth2 PKCE, and the cookie")
    assert [e.concept for e in result.primaries] == ["auth", "jwt", "oauth2"]
    mid = next(e for e in result.loaded if e.concept == "cookies")
    assert (mid.reason, mid.via, mid.keywords) == ("mid", "auth", ["cookie"])
    assert "sessions" not in loaded(result)


def test_unknown_relationship_targets_are_skipped() -> None:
    table = _table({"a": "alpha"}, high={"a": "ghost:2025-05"})
    assert [e.concept for e in Router(table).route("alpha").loaded] == ["a"]


def test_out_of_domain_loads_nothing(router: Router) -> None:
    result = router.route("How do I bake sourdough bread?")
    assert result.out_of_domain
    assert result.loaded == []
    assert result.declaration == "[CKP: loaded 0/12 files — out of domain]"
    assert result.tokens.loaded == 0


def test_declaration_line_format(router: Router) -> None:
    result = router.route("How does the login flow use the guard?")
    assert result.declaration == "[CKP: loaded 2/12 files — match: auth.md via login flow, guard]"
    two = router.route("authentication guard with a cookie")
    assert two.declaration == (
        "[CKP: loaded 3/12 files — match: auth.md via authentication, guard; cookies.md via cookie]"
    )


def test_declaration_names_files_relative_to_the_bank(tmp_path: Path) -> None:
    bank = tmp_path / "memory-bank"
    (bank / "stack").mkdir(parents=True)
    (bank / "stack" / "db.md").write_text("CONCEPT: database\nTLDR: Db.\nANSWERS_WHEN: schema\n\nBody.\n")
    assert route(load_bank(bank), "schema", mode="index").declaration == (
        "[CKP: loaded 1/1 files — match: stack/db.md via schema]"
    )


def test_first_and_later_queries_route_alike() -> None:
    # The first query scans the keywords, later ones use an index built on the second.
    fresh = Router(load_bank(BANK))
    first = [fresh.route(q).as_dict() for q in QUERIES]
    again = [fresh.route(q).as_dict() for q in QUERIES]
    assert first == again


# --- tokens --------------------------------------------------------------------------------------


def _file_tokens() -> dict[str, int]:
    return {
        p.name: -(-len(p.read_text(encoding="utf-8")) // 4)
        for p in BANK.glob("*.md")
        if p.name != "_index.md"
    }


def test_tokens_with_ckp_are_index_plus_loaded_files(router: Router) -> None:
    sizes = _file_tokens()
    index = token_estimate(len((BANK / "_index.md").read_text(encoding="utf-8")))
    result = router.route("How does the login flow use the guard?")
    assert result.tokens.index == index
    assert result.tokens.loaded == sizes["auth.md"] + sizes["jwt.md"]
    assert result.tokens.with_ckp == index + sizes["auth.md"] + sizes["jwt.md"]
    assert [e.tokens for e in result.loaded] == [sizes["auth.md"], sizes["jwt.md"]]


def test_tokens_without_ckp_are_every_knowledge_file(router: Router) -> None:
    assert router.route("anything").tokens.without_ckp == sum(_file_tokens().values())


def test_tokens_are_characters_over_four_rounded_up() -> None:
    assert [token_estimate(len(text)) for text in ("", "abc", "abcd", "abcde")] == [0, 1, 1, 2]


def test_without_an_index_the_rendered_index_is_counted(tmp_path: Path) -> None:
    copy = copy_tree(BANK, tmp_path / "memory-bank")
    (copy / "_index.md").unlink()
    bank = load_bank(copy)
    assert Router(bank).index_tokens == token_estimate(len(update_index_text(None, bank)))


# --- the table read from disk ----------------------------------------------------------------------

QUERIES = (
    "How does the login flow use the guard?",
    "authentication guard, jwt bearer, oauth2 PKCE, and the cookie",
    "eviction",
    "STRASSE",
    "bread",
)


def test_table_from_the_index_routes_like_the_bank(router: Router) -> None:
    fast = Router(read_route_table(BANK, Config(), full_read_limit=0, load=read_headers))
    for q in QUERIES:
        a, b = fast.route(q), router.route(q)
        assert (a.declaration, a.as_dict()["loaded"]) == (b.declaration, b.as_dict()["loaded"]), q
        assert a.tokens.index == b.tokens.index


def test_table_from_a_blocks_index_routes_like_the_bank(tmp_path: Path, router: Router) -> None:
    copy = copy_tree(BANK, tmp_path / "memory-bank")
    index = copy / "_index.md"
    index.write_text(update_index_text(None, load_bank(copy), "blocks"))
    fast = Router(read_route_table(copy, Config(), full_read_limit=0, load=read_headers))
    for q in QUERIES:
        assert fast.route(q).as_dict()["loaded"] == router.route(q).as_dict()["loaded"], q


def test_files_changed_after_the_index_are_read_from_disk(tmp_path: Path) -> None:
    copy = copy_tree(BANK, tmp_path / "memory-bank")
    cookies = copy / "cookies.md"
    cookies.write_text(cookies.read_text().replace("ANSWERS_WHEN: cookie,", "ANSWERS_WHEN: biscuit, cookie,"))
    later = (copy / "_index.md").stat().st_mtime_ns + 10**9
    os.utime(cookies, ns=(later, later))
    (copy / "new.md").write_text("CONCEPT: new\nTLDR: New.\nANSWERS_WHEN: brand new\n\nBody.\n")
    os.utime(copy / "new.md", ns=(later, later))
    fast = Router(read_route_table(copy, Config(), full_read_limit=0, load=read_headers))
    assert fast.matches("a biscuit")["cookies"] == ["biscuit"]
    assert fast.matches("brand new")["new"] == ["brand new", "new"]
    assert fast.files == 13


def test_small_banks_are_read_in_full(tmp_path: Path) -> None:
    copy = copy_tree(BANK, tmp_path / "memory-bank")
    # A row the index says, but the file does not: a full read does not see it.
    index = copy / "_index.md"
    index.write_text(index.read_text().replace("| cookie, SameSite, csrf |", "| macaroon |"))
    assert "cookies" in Router(read_route_table(copy, Config(), load=read_headers)).matches("cookie")
    assert "cookies" in Router(
        read_route_table(copy, Config(), full_read_limit=0, load=read_headers)
    ).matches("macaroon")


def test_excluded_files_are_not_in_the_table(tmp_path: Path) -> None:
    copy = copy_tree(BANK, tmp_path / "memory-bank")
    (copy / "README.md").write_text("# About this bank\n")
    table = read_route_table(
        copy, Config(exclude=("README.md", "alpha*")), full_read_limit=0, load=read_headers
    )
    assert "README.md" not in table.paths
    assert "alpha.md" not in table.paths
    assert len(table) == 11


# --- the command -----------------------------------------------------------------------------------


def test_cli_text_shows_the_declaration_reasons_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route", "--mode", "index", str(BANK), "How does the login flow work?"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[CKP: loaded 2/12 files — match: auth.md via login flow]"
    assert "auth.md" in out[1] and "matches login flow" in out[1] and "tokens)" in out[1]
    assert "jwt.md" in out[2] and "HIGH of auth" in out[2]
    assert out[-1].startswith("Tokens: ") and "with CKP" in out[-1] and "without" in out[-1]


def test_cli_text_shows_mid_reason(capsys: pytest.CaptureFixture[str]) -> None:
    main(
        [
            "route",
            "--mode",
            "index",
            str(BANK),
            "authentication guard, jwt bearer, oauth2 PKCE, and the cookie",
        ]
    )
    out = capsys.readouterr().out
    assert "MID of auth, matches cookie" in out


def test_cli_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["route", "--mode", "index", str(BANK), "How does the login flow work?", "--format", "json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert {"loaded", "matched_not_loaded", "out_of_domain", "declaration", "tokens"} <= set(data)
    assert data["loaded"][0] == {
        "concept": "auth",
        "file": "auth.md",
        "reason": "match",
        "keywords": ["login flow"],
        "via": None,
        "tokens": data["loaded"][0]["tokens"],
        "over_budget": False,
        "words": [],
        "relevance": 0.0,
    }
    assert data["loaded"][1]["reason"] == "high"
    assert set(data["tokens"]) == {"index", "loaded", "with_ckp", "without_ckp"}
    assert data["out_of_domain"] is False


def test_cli_out_of_domain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route", str(BANK), "bread", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["out_of_domain"] is True
    assert data["declaration"] == "[CKP: loaded 0/12 files — out of domain]"


def test_cli_not_a_bank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route", str(tmp_path), "x"]) == 2
    assert "not a memory bank" in capsys.readouterr().err


# --- helpers -------------------------------------------------------------------------------------


def _table(keywords: dict[str, str], high: dict[str, str] | None = None) -> RouteTable:
    """A table of one file per concept, keywords comma-separated."""
    table = RouteTable()
    for concept, kws in sorted(keywords.items()):
        table.add(f"{concept}.md", concept, kws.replace(",", "\x1f"), (high or {}).get(concept, ""), "", 40)
    return table


def test_a_first_query_searches_and_later_ones_use_the_index_alike() -> None:
    # The first query of a router searches the keyword text (a one-shot command pays for no
    # index); later ones build the index and use it: both must route the same.
    import yaml

    samples = Path(__file__).resolve().parents[2] / "samples" / "mentat"
    queries = [q["query"] for q in yaml.safe_load((samples / "queries.yaml").read_text(encoding="utf-8"))]
    queries += ["jwt tokens cookies", "oauth2 pkce login", "sessoin refresh tokens", "nothing here at all"]
    for bank in (load_bank(samples / "memory-bank"), load_bank(BANK)):
        warm = Router(bank)
        warm.route("warm up")
        for query in queries:
            first = Router(bank)
            assert first.route(query).as_dict() == warm.route(query).as_dict(), query
            assert first._anchored is None  # it searched
        assert warm._anchored is not None  # it used the index
