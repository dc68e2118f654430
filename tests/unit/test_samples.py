"""Every sample bank with a ``queries.yaml``: ``ckp check`` finds no error, ``ckp bench`` meets
every expectation and the figures a team would hold a bank to, each TLDR is one sentence in the
file's language, the index is current, and ``compile --all`` reaches its fixed point at once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.core.language import has_cjk, is_japanese, languages, sentences
from ckp_lsp.core.project.discovery import find_banks
from ckp_lsp.core.routing.index_pattern import MAX_PRIMARY, Router
from ckp_lsp.faces.banks import load_bank
from tests.copies import copy_tree
from tests.unit.builders import run_cli, snapshot_files

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
WITH_QUERIES = sorted(p.parent.name for p in SAMPLES.glob("*/queries.yaml"))
#: the figures of the issue that asked for these samples
MIN_RECALL = 0.85
MOST_FILES = 4
SHARE_WITHIN = 0.85
#: the banks in the languages and layouts real banks showed the ranked router must serve, held to
#: its figures: recall 0.9 over their questions together (half of them paraphrases), at least
#: plain BM25's at the same files on each, and nothing loaded for a question outside the bank
ROUTED_SAMPLES = ("cline-ko", "cline-es", "claude-code")
ROUTED_RECALL = 0.9


def bank_of(sample: str) -> Path:
    (bank,) = find_banks([SAMPLES / sample])
    return bank


def test_the_samples_include_banks_without_spaces_an_inflected_one_and_a_front_matter_bank() -> None:
    assert {"mentat", "cline-ja", "cline-zh", "cline-ru", "adr"} <= set(WITH_QUERIES)
    ja = load_bank(bank_of("cline-ja"))
    assert all(is_japanese(kf.tldr) for kf in ja.files.values())
    zh = load_bank(bank_of("cline-zh"))
    assert all(has_cjk(kf.tldr) and not is_japanese(kf.tldr) for kf in zh.files.values())
    assert {"activeContext.md", "progress.md", "projectbrief.md"} <= set(ja.files)
    ru = load_bank(bank_of("cline-ru"))
    assert all(languages(kf.tldr) == ("en", "ru") for kf in ru.files.values())
    adr = load_bank(bank_of("adr"))
    assert all(kf.header is not None and kf.header.form == "frontmatter" for kf in adr.files.values())
    assert all(
        {"title", "status", "tags"} <= set(kf.header.user_keys) for kf in adr.files.values() if kf.header
    )


@pytest.mark.parametrize("sample", WITH_QUERIES)
def test_check_finds_no_error_and_the_index_is_current(
    sample: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = bank_of(sample)
    code, out, _ = run_cli(capsys, "check", str(bank))
    assert code == 0, out
    assert run_cli(capsys, "index", "--check", str(bank))[0] == 0


def _bench(sample: str, mode: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    queries = SAMPLES / sample / "queries.yaml"
    _, out, _ = run_cli(
        capsys, "bench", str(bank_of(sample)), "--queries", str(queries), "--mode", mode, "--format", "json"
    )
    return dict(json.loads(out))


def test_the_korean_spanish_and_claude_code_samples_meet_the_ranked_routers_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = questions = 0
    for sample in ROUTED_SAMPLES:
        report = _bench(sample, "ranked", capsys)
        ranked = report["modes"]["ranked"]
        found, questions = found + ranked["found"], questions + ranked["questions"]
        assert ranked["found"] >= ranked["peer_found"], sample
        assert ranked["found"] >= MIN_RECALL * ranked["questions"], sample
        assert ranked["within_4_files"] == ranked["in_domain"], sample
        assert ranked["out_of_domain"] >= 2 and not ranked["out_of_domain_loaded_something"], sample
    assert found >= ROUTED_RECALL * questions, (found, questions)


@pytest.mark.parametrize("sample", ROUTED_SAMPLES)
def test_the_new_samples_bench_in_the_index_mode_too(sample: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The index pattern over the headers their authors wrote: out of domain stays out, and it finds
    no more than the ranked router."""
    index = _bench(sample, "index", capsys)["modes"]
    assert not index["index"]["out_of_domain_loaded_something"], sample
    assert index["index"]["found"] <= index["ranked"]["found"], sample


@pytest.mark.parametrize("sample", [s for s in WITH_QUERIES if s not in ROUTED_SAMPLES])
def test_bench_meets_every_expectation_and_the_figures(
    sample: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bank, queries = bank_of(sample), SAMPLES / sample / "queries.yaml"
    code, out, _ = run_cli(capsys, "bench", str(bank), "--queries", str(queries), "--format", "json")
    report = json.loads(out)
    assert code == 0, [q for q in report["queries"] if not q["ok"]]
    assert report["recall"] >= MIN_RECALL
    routed = [q for q in report["queries"] if not q["out_of_domain"]]
    assert sum(q["files"] <= MOST_FILES for q in routed) >= SHARE_WITHIN * len(routed)
    outside = [q for q in report["queries"] if q["out_of_domain"]]
    assert outside and all(q["files"] == 0 for q in outside)


@pytest.mark.parametrize("sample", WITH_QUERIES)
def test_every_query_loads_at_most_three_matching_files_and_their_relationships(sample: str) -> None:
    """More than three files loaded are relationships of the primaries, never more matches."""
    router = Router(load_bank(bank_of(sample)))
    for item in yaml.safe_load((SAMPLES / sample / "queries.yaml").read_text(encoding="utf-8")):
        result = router.route(item["query"])
        assert len(result.primaries) <= MAX_PRIMARY, item["query"]
        assert [e for e in result.loaded if e.reason == "match"] == result.primaries, item["query"]
        primaries = {e.concept for e in result.primaries}
        assert all(
            e.reason in ("high", "mid") and e.via in primaries for e in result.loaded[len(primaries) :]
        )


@pytest.mark.parametrize("sample", WITH_QUERIES)
def test_every_tldr_is_one_sentence_in_the_files_language(sample: str) -> None:
    bank = load_bank(bank_of(sample))
    for rel, kf in bank.files.items():
        assert len(sentences(kf.tldr)) == 1, (rel, kf.tldr)
        body = body_of((bank.root / rel).read_text(encoding="utf-8"))
        assert has_cjk(kf.tldr) == has_cjk(body), (rel, kf.tldr)
        assert is_japanese(kf.tldr) == is_japanese(body), (rel, kf.tldr)


@pytest.mark.parametrize("sample", WITH_QUERIES)
def test_compile_all_twice_the_second_run_changes_nothing(
    sample: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / sample
    copy_tree(SAMPLES / sample, copy)
    bank = bank_of_copy(copy)
    bodies = {p: body_of(p.read_text(encoding="utf-8")) for p in bank.rglob("*.md")}
    assert run_cli(capsys, "compile", "--all", str(bank))[0] == 0
    first = snapshot_files(copy)
    assert run_cli(capsys, "compile", "--all", str(bank))[0] == 0
    assert snapshot_files(copy) == first
    assert all(body_of(p.read_text(encoding="utf-8")) == body for p, body in bodies.items())
    assert run_cli(capsys, "check", str(bank))[0] == 0


def bank_of_copy(copy: Path) -> Path:
    (bank,) = find_banks([copy])
    return bank


_CKP_KEY = re.compile(r"(?:CONCEPT|TLDR|ANSWERS_WHEN|SIMILAR_HIGH|SIMILAR_MID|CONFIDENCE|VALIDATED):")


def _without_ckp_header(text: str) -> str:
    """A file as it was before CKP: its body, and the user's own keys of its front matter."""
    if not text.startswith("---\n"):
        return body_of(text)
    lines = text.split("\n")
    end = lines.index("---", 1)
    kept, skipping = [], False
    for line in lines[1:end]:
        skipping = bool(_CKP_KEY.match(line)) or (skipping and line.startswith((" ", "\t")))
        if not skipping:
            kept.append(line)
    return "\n".join(["---", *kept, *lines[end:]])


@pytest.mark.parametrize("sample", WITH_QUERIES)
def test_a_bank_adopted_from_scratch_routes_its_queries(
    sample: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Headers stripped, ``compile --all`` offline and ``index``: the sample's queries still find
    their files (each must_load concept stands for the concept the compiler gave its file)."""
    original = load_bank(bank_of(sample))
    copy = tmp_path / sample
    copy_tree(SAMPLES / sample, copy)
    bank = bank_of_copy(copy)
    for rel in original.files:
        path = bank / rel
        path.write_text(_without_ckp_header(path.read_text(encoding="utf-8")), encoding="utf-8")
    (bank / "_index.md").unlink()
    assert run_cli(capsys, "compile", "--all", str(bank))[0] == 0
    assert run_cli(capsys, "index", str(bank))[0] == 0
    adopted = load_bank(bank)
    renamed = {kf.concept: adopted.files[rel].concept for rel, kf in original.files.items()}
    queries = yaml.safe_load((SAMPLES / sample / "queries.yaml").read_text(encoding="utf-8"))
    for query in queries:
        if "must_load" in query:
            query["must_load"] = [renamed.get(c, c) for c in query["must_load"]]
    mapped = tmp_path / "queries.yaml"
    mapped.write_text(yaml.safe_dump(queries, allow_unicode=True), encoding="utf-8")
    _, out, _ = run_cli(capsys, "bench", str(bank), "--queries", str(mapped), "--format", "json")
    report = json.loads(out)
    missed = [(q["query"], q["failures"]) for q in report["queries"] if q["failures"]]
    assert report["recall"] >= MIN_RECALL, missed


def test_adopted_mentat_keywords_name_topics_not_units_fields_or_verbs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The case found on the sample: offline, jwt.md's keywords once said `minutes` (its table of
    lifetimes), `tid` (a claim in its JSON example) and `revokes`."""
    copy = tmp_path / "mentat"
    copy_tree(SAMPLES / "mentat", copy)
    bank = bank_of_copy(copy)
    jwt = bank / "patterns" / "jwt.md"
    jwt.write_text(_without_ckp_header(jwt.read_text(encoding="utf-8")), encoding="utf-8")
    assert run_cli(capsys, "compile", "--all", str(bank))[0] == 0
    keywords = [k.casefold() for k in load_bank(bank).files["patterns/jwt.md"].keyword_texts]
    assert not {"minutes", "tid", "revokes"} & set(keywords), keywords
    assert {"jwt", "token", "algorithm"} <= set(keywords), keywords
