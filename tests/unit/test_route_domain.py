"""The ranked router's out-of-domain rule where the best file holds the question in its body alone,
and a stop word the question writes as a name."""

from __future__ import annotations

from pathlib import Path

from ckp_lsp.core.routing import domain
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import write_files
from tests.unit.test_ranked_route import FILLER, header


def router(tmp_path: Path) -> RankedRouter:
    files = {
        "viewer.md": header("viewer", "viewer, rendering")
        + FILLER
        + "Documents over 50MB render slowly in the browser.\n",
        "deploy.md": header("deploy", "deploy, release")
        + FILLER
        + "Releases are tagged and the documents published.\n",
        "storage.md": header("storage", "storage, backups")
        + FILLER
        + "The cluster keeps two replicas of the search data for full-text queries.\n",
        "regions.md": header("regions", "regions, hosting") + FILLER + "The servers run in Tokyo.\n",
    }
    return RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))


def test_two_words_of_the_question_in_one_body_route_though_the_rest_is_said_in_other_words(
    tmp_path: Path,
) -> None:
    r = router(tmp_path)
    question = "Why do 50MB documents stutter when opened on old laptops?"
    found = r.ranking(question)
    assert not found.titled and domain.BODY_ONLY_COVERAGE <= found.coverage < 0.5
    assert [e.file for e in r.route(question).primaries][:1] == ["viewer.md"]


def test_one_word_of_a_longer_question_in_a_body_is_out_of_domain(tmp_path: Path) -> None:
    r = router(tmp_path)
    question = "What will the weather be in Tokyo tomorrow?"
    assert r.ranking(question).held == 1
    result = r.route(question)
    assert result.out_of_domain and not result.loaded


def test_a_body_alone_with_a_technology_no_file_names_is_out_of_domain(tmp_path: Path) -> None:
    r = router(tmp_path)
    question = "How do I configure an Elasticsearch cluster with replicas for full-text search?"
    found = r.ranking(question)
    assert found.unknown_names == ["Elasticsearch"] and not found.titled
    assert domain.UNKNOWN_NAME_COVERAGE <= found.coverage < domain.BODY_ONLY_NAMED_COVERAGE
    assert r.route(question).out_of_domain


def test_a_stop_word_written_as_a_name_counts_where_the_bank_holds_it(tmp_path: Path) -> None:
    files = {
        f"{name}.md": header(name, name) + f"{name} 기능은 PDF 파일을 지원합니다.\n" + body
        for name, body in (
            ("formats", "파일 형식: PDF (.pdf), Markdown (.md, .markdown)\n"),
            ("viewer", "PDF 파일을 화면에 보여 줍니다.\n"),
            ("compare", "두 PDF 파일을 비교합니다.\n"),
        )
    }
    r = RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))
    question = "지원하는 파일 확장자는 .pdf와 .md 뿐이야?"  # "md" is on ISO's English stop list
    assert ("md",) in [w.terms for w, _ in r.groups(question)]
    assert [e.file for e in r.route(question).primaries][:1] == ["formats.md"]
