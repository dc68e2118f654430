"""The ranked router's places in the budget of files (SPEC §6b): at most 3 primaries, and every
other file loaded a ``SIMILAR_HIGH`` of a primary or a ``SIMILAR_MID`` the question matches, however
high another file ranks; a number written with an ending stands for the number; a keyword many
files hold boosts its file less than a keyword of one file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ckp_lsp.core.project.discovery import find_banks
from ckp_lsp.core.routing import keyword_boost, ranked
from ckp_lsp.core.routing.analysis import QueryWord
from ckp_lsp.core.routing.documents import BODY, HEADER, HEADINGS
from ckp_lsp.core.routing.peer import PlainBM25
from ckp_lsp.core.routing.postings import Postings
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.core.routing.route_table import related
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import write_files
from tests.unit.test_ranked_route import FILLER, SAMPLES, header

QUESTION = "Is site search done, or is it waiting in the backlog?"


def router(tmp_path: Path, status_heading: str) -> RankedRouter:
    """A bank where ``overview`` is the primary, ``setup`` its MID (the question's ``site`` in its
    heading) and ``status`` ranks second on its own."""
    files = {
        "overview.md": header("overview", "search, site search", mid="setup:2025-05")
        + FILLER
        + "Site search is planned.\n",
        "status.md": header("status", "status, milestones")
        + status_heading
        + FILLER
        + "Search is not done: it waits in the backlog.\n",
        "setup.md": header("setup", "setup, install") + "# Site setup\n\n" + FILLER,
        "deploy.md": header("deploy", "deploy, release") + FILLER,
        "billing.md": header("billing", "billing, invoices") + FILLER,
    }
    return RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))


@pytest.fixture
def one_primary(monkeypatch: pytest.MonkeyPatch) -> None:
    """One primary and one more place: the second place is the one at stake."""
    monkeypatch.setattr(ranked, "MAX_PRIMARY", 1)
    monkeypatch.setattr(ranked, "MAX_LOADED", 2)


def scores(r: RankedRouter, question: str) -> dict[str, float]:
    return {r.table.paths[i]: s for i, s in r.ranking(question).ranked}


@pytest.mark.usefixtures("one_primary")
def test_a_file_ranking_above_a_mid_file_past_the_primaries_takes_no_place(tmp_path: Path) -> None:
    """SPEC §6b: the primaries and their relationships, nothing else; ``status`` ranks second and
    would be a primary but for their number, and it is neither."""
    r = router(tmp_path, "# Site status\n\n")
    s = scores(r, QUESTION)
    assert s["status.md"] > s["setup.md"] and s["status.md"] >= ranked.PRIMARY_SHARE * s["overview.md"]
    loaded = {e.file: e.reason for e in r.route(QUESTION).loaded}
    assert loaded == {"overview.md": "match", "setup.md": "mid"}


@pytest.mark.usefixtures("one_primary")
def test_a_mid_file_the_question_names_in_its_headings_keeps_its_place_before_a_body_match(
    tmp_path: Path,
) -> None:
    r = router(tmp_path, "")  # status holds the question in its body alone
    s = scores(r, QUESTION)
    assert s["status.md"] > s["setup.md"]
    loaded = {e.file: e.reason for e in r.route(QUESTION).loaded}
    assert loaded == {"overview.md": "match", "setup.md": "mid"}


def test_a_place_left_in_the_budget_stays_empty_past_the_primaries_and_their_relationships(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranked, "MAX_PRIMARY", 1)
    monkeypatch.setattr(ranked, "MAX_LOADED", 3)
    result = router(tmp_path, "# Site status\n\n").route(QUESTION)
    assert [(e.file, e.reason, e.via) for e in result.loaded] == [
        ("overview.md", "match", None),
        ("setup.md", "mid", "overview"),
    ]
    assert [e.file for e in result.primaries] == ["overview.md"]  # the declaration names the primary
    assert "status.md" in {e.file for e in result.matched_not_loaded}  # listed, not loaded


@pytest.mark.usefixtures("one_primary")
def test_a_high_file_keeps_its_place_whatever_ranks_above_it(tmp_path: Path) -> None:
    files = {
        "overview.md": header("overview", "search, site search", high="setup:2025-05")
        + FILLER
        + "Site search is planned.\n",
        "status.md": header("status", "status, milestones")
        + "# Site status\n\n"
        + FILLER
        + "Search is not done: it waits in the backlog.\n",
        "setup.md": header("setup", "setup, install") + FILLER,
        "deploy.md": header("deploy", "deploy, release") + FILLER,
    }
    r = RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))
    loaded = {e.file: e.reason for e in r.route(QUESTION).loaded}
    assert loaded == {"overview.md": "match", "setup.md": "high"}


def test_a_number_with_an_ending_the_bank_lacks_stands_for_the_number() -> None:
    p = Postings.build([[["links", "404", "errors"]], [["port", "8080"]], [["404ing"]]], (1.0,), ("en",))
    assert p.group(QueryWord("404ing", ("404ing",))) == frozenset({"404ing"})  # held as written
    p = Postings.build([[["links", "404", "errors"]], [["port", "8080"]]], (1.0,), ("en",))
    assert p.group(QueryWord("404ing", ("404ing",))) == frozenset({"404"})
    assert p.group(QueryWord("8080s", ("8080s",))) == frozenset({"8080"})
    assert p.group(QueryWord("500ms", ("500ms",))) == frozenset()  # (no file holds 500)


def test_a_short_number_with_an_ending_stands_for_nothing() -> None:
    p = Postings.build([[["step", "2", "of", "3"]], [["22", "ports"]]], (1.0,), ("en",))
    assert p.group(QueryWord("2nd", ("2nd",))) == frozenset()
    assert p.group(QueryWord("22nd", ("22nd",))) == frozenset()


def test_a_question_saying_404ing_routes_to_the_file_that_says_404(tmp_path: Path) -> None:
    files = {
        "subpages.md": header("subpages", "subpages, docs") + FILLER + "The Learn more links gave a 404.\n",
        # (the same words but the number: it ranks first by its path where 404ing stands for nothing)
        "guides.md": header("guides", "guides, navigation") + FILLER + "The Learn more links open a 4.\n",
        "deploy.md": header("deploy", "deploy, release") + FILLER,
    }
    r = RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))
    question = "Why were the Learn more links 404ing?"
    assert [e.file for e in r.route(question).primaries][:1] == ["subpages.md"]
    assert PlainBM25(r.texts).top(question, 1) == ["subpages.md"]  # the peer reads the word alike


def _rendering_bank(tmp_path: Path, mid: str = "") -> RankedRouter:
    """Four files answer the question from their bodies; ``brief`` may name ``active`` its MID."""
    files = {
        f"{name}.md": header(name, f"{name}, notes", mid=mid if name == "brief" else "") + FILLER + body
        for name, body in (
            ("brief", "The public area uses SSG and the member panel uses SSR.\n"),
            ("architecture", "Pages are rendered with SSG; the panel with SSR.\n"),
            ("product", "Visitors read the public area; SSR serves members.\n"),
            ("active", "We decided on SSG for the public area this week.\n"),
            ("deploy", "Releases are tagged on Fridays.\n"),
        )
    }
    return RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))


SSG = "Why does the public area use SSG and the panel SSR?"


def test_a_fourth_file_scoring_as_a_primary_would_is_not_loaded_beside_three_primaries(
    tmp_path: Path,
) -> None:
    r = _rendering_bank(tmp_path)
    s = scores(r, SSG)
    assert s["active.md"] >= ranked.PRIMARY_SHARE * max(s.values())
    result = r.route(SSG)
    assert len(result.primaries) == ranked.MAX_PRIMARY == 3  # the declaration names three primaries…
    assert [e.file for e in result.loaded] == [e.file for e in result.primaries]  # …and loads them alone
    assert {"active.md", "deploy.md"}.isdisjoint(e.file for e in result.loaded)


def test_a_mid_file_scoring_as_a_primary_would_is_loaded_though_only_its_body_holds_the_question(
    tmp_path: Path,
) -> None:
    r = _rendering_bank(tmp_path, mid="active:2025-05")
    found = r.ranking(SSG)
    active = r.table.paths.index("active.md")
    assert active not in found.index_hits  # the question is in its body alone…
    assert all(h.fields == (BODY,) for h in found.hits[active])
    s = scores(r, SSG)
    assert s["active.md"] >= ranked.PRIMARY_SHARE * max(s.values())  # …and it scores as a primary would
    result = r.route(SSG)
    assert len(result.primaries) == 3
    assert (result.loaded[-1].file, result.loaded[-1].reason, result.loaded[-1].via) == (
        "active.md",
        "mid",
        "brief",
    )


def _weak_deploy_bank(tmp_path: Path, mid: str = "") -> RankedRouter:
    """``brief`` answers the question; ``deploy`` holds a few of its words in its body."""
    files = {
        "brief.md": header("brief", "ssg, ssr, rendering", mid=mid)
        + FILLER
        + "SSG for the public area, SSR for the panel.\n",
        "deploy.md": header("deploy", "deploy, release")
        + FILLER
        + "The public area is deployed on Fridays.\n",
        "billing.md": header("billing", "billing") + FILLER,
    }
    return RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))


def test_a_mid_file_holding_the_question_in_its_body_alone_and_scoring_low_is_not_loaded(
    tmp_path: Path,
) -> None:
    r = _weak_deploy_bank(tmp_path, mid="deploy:2025-05")
    s = scores(r, SSG)
    assert 0 < s["deploy.md"] < ranked.PRIMARY_SHARE * s["brief.md"]
    assert [e.file for e in r.route(SSG).loaded] == ["brief.md"]


def test_no_place_goes_to_a_file_scoring_under_a_quarter_of_the_best(tmp_path: Path) -> None:
    r = _weak_deploy_bank(tmp_path)
    question = "Why does the public area use SSG and the panel SSR?"
    s = scores(r, question)
    assert s["deploy.md"] < ranked.PRIMARY_SHARE * s["brief.md"]
    assert [e.file for e in r.route(question).loaded] == ["brief.md"]


def _keyword_bank(tmp_path: Path) -> RankedRouter:
    """Four files say `cards` in their bodies and claim it as a keyword; one says `reaction`."""
    files = {
        f"{name}.md": header(name, f"cards, {name}") + FILLER + f"The {name} cards are drawn face down.\n"
        for name in ("deck", "hand", "discard", "market")
    }
    files["turns.md"] = header("turns", "reaction, turns") + FILLER + "A reaction interrupts the turn.\n"
    return RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))


def test_a_keyword_every_file_holds_boosts_half_a_keyword_one_file_holds(tmp_path: Path) -> None:
    r = _keyword_bank(tmp_path)

    def rarity(keyword: str) -> float:
        return keyword_boost.keyword_rarity(r.postings, keyword, r.language)

    assert rarity("reaction") == 1.0
    assert rarity("cards") < rarity("deck") == 1.0
    # (FILLER says `project` in every file: BM25's idf of it is near 0, not 0)
    shared = keyword_boost.SHARED_KEYWORD_BOOST
    assert shared <= rarity("project") < shared + 0.05


def test_a_rare_keyword_match_is_boosted_more_than_a_shared_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each file matches one keyword of the question; the file of the rare one gains on the others
    against a boost by the count of keywords alone."""
    question = "What happens to my cards after a reaction?"

    def lead() -> float:
        found = r.ranking(question)
        assert set(found.index_hits) == {0, 1, 2, 3, 4}
        s = {r.table.paths[i]: v for i, v in found.ranked}
        return s["turns.md"] - max(v for p, v in s.items() if p != "turns.md")

    r = _keyword_bank(tmp_path)
    weighed = lead()
    monkeypatch.setattr(keyword_boost, "SHARED_KEYWORD_BOOST", 1.0)  # every keyword boosts alike
    assert weighed > lead() + 0.1


def assert_primaries_and_their_relationships(r: RankedRouter, question: str) -> None:
    """SPEC §6b: at most 3 primaries, and every other file loaded a ``SIMILAR_HIGH`` of a primary or
    a ``SIMILAR_MID`` of one that the question matches (its keywords, header or headings, or a
    score a primary would have)."""
    t, found, result = r.table, r.ranking(question), r.route(question)
    primaries = [e.file for e in result.primaries]
    assert len(primaries) <= ranked.MAX_PRIMARY, question
    assert len(result.loaded) <= ranked.MAX_LOADED, question
    assert [e.file for e in result.loaded][: len(primaries)] == primaries, question
    score = dict(found.ranked)
    for e in result.loaded[len(primaries) :]:
        i, via = t.paths.index(e.file), t.paths[t.concepts.index(e.via)] if e.via else None
        assert via in primaries, (question, e.file)
        p = t.paths.index(via)
        if e.reason == "high":
            assert t.concepts[i] in related(t.high[p]), (question, e.file)
            continue
        assert e.reason == "mid" and t.concepts[i] in related(t.mid[p]), (question, e.file)
        named = i in found.index_hits or any(
            {HEADER, HEADINGS} & set(h.fields) for h in found.hits.get(i, ())
        )
        assert named or score[i] >= ranked.PRIMARY_SHARE * found.ranked[0][1], (question, e.file)


@pytest.mark.parametrize("sample", sorted(p.parent.name for p in SAMPLES.glob("*/queries.yaml")))
def test_on_every_sample_question_the_loaded_files_are_primaries_and_their_relationships(sample: str) -> None:
    (root,) = find_banks([SAMPLES / sample])
    r = RankedRouter(load_bank(root))
    questions = [
        q["query"] for q in yaml.safe_load((SAMPLES / sample / "queries.yaml").read_text(encoding="utf-8"))
    ]
    for question in questions:
        assert_primaries_and_their_relationships(r, question)
    # (the samples' questions load relationships too: the rule is tested, not passed by default)
    assert any(len(r.route(q).loaded) > len(r.route(q).primaries) for q in questions)


def test_on_the_banks_above_the_loaded_files_are_primaries_and_their_relationships(tmp_path: Path) -> None:
    assert_primaries_and_their_relationships(_rendering_bank(tmp_path / "a"), SSG)
    assert_primaries_and_their_relationships(_rendering_bank(tmp_path / "b", mid="active:2025-05"), SSG)
    assert_primaries_and_their_relationships(router(tmp_path / "c", "# Site status\n\n"), QUESTION)
