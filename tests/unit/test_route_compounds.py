"""A compound of the question (`cross-encoder`) is held only where the bank writes its pieces as
the question does: pieces found apart or in another form (`cross-platform`, `encoding`) name other
things, so a question about a compound the bank lacks stays out of domain."""

from __future__ import annotations

from pathlib import Path

from ckp_lsp.core.routing.compounds import held_apart
from ckp_lsp.core.routing.ranked import RankedRouter
from ckp_lsp.faces.banks import load_bank
from tests.unit.builders import write_files
from tests.unit.test_ranked_route import FILLER, header

QUESTION = "How do I add a cross-encoder reranking stage after vector retrieval?"


#: a retrieval service's bank: most files speak of its vector retrieval
RAG = "The agent answers from the vector retrieval of the indexed chunks.\n"


def bank(tmp_path: Path, tech_body: str) -> RankedRouter:
    """A bank of a retrieval service whose tech file holds ``tech_body``."""
    files = {
        "techContext.md": header("tech-context", "python, fastapi, encoding, storage")
        + "# Technical Context\n\n## Vector Store\n\n"
        + tech_body
        + FILLER,
        "loader.md": header("loader", "git, clone, loader")
        + "# Loader\n\nThe loader clones each repository and reads every file with encoding detection.\n"
        + FILLER,
        "deploy.md": header("deploy", "docker, release")
        + "# Deployment\n\nEach stage of the release runs in its own container.\n"
        + FILLER,
        "product.md": header("product", "users, onboarding")
        + "# Product\n\nKnowledge is scattered across repositories and cross-team documents.\n"
        + FILLER,
        "billing.md": header("billing", "billing, invoices") + FILLER,
        "progress.md": header("progress", "milestones") + "# Progress\n\n" + RAG + FILLER,
        "queries.md": header("queries", "intent, query") + "# Queries\n\n" + RAG + FILLER,
    }
    files = {k: v + (RAG if k != "billing.md" else "") for k, v in files.items()}
    return RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))


APART = (
    "Chroma keeps the vectors; retrieval returns the closest chunks.\n\n"
    "- **tiktoken**: token counting and text encoding for the models\n"
    "- **File system**: cross-platform path handling\n\n"
)


def test_a_compound_whose_pieces_the_bank_holds_only_apart_loads_nothing(tmp_path: Path) -> None:
    r = bank(tmp_path, APART)
    found = r.ranking(QUESTION)
    assert found.ranked and r.table.paths[found.ranked[0][0]] == "techContext.md"
    assert found.out_of_domain, found.coverage
    assert r.route(QUESTION).loaded == []


def test_the_same_question_loads_the_file_that_writes_the_compound(tmp_path: Path) -> None:
    body = APART + "A cross-encoder reranks the retrieved chunks before the answer is written.\n\n"
    loaded = [e.file for e in bank(tmp_path, body).route(QUESTION).loaded]
    assert loaded[:1] == ["techContext.md"], loaded


def test_a_compound_the_bank_writes_in_two_words_is_held(tmp_path: Path) -> None:
    body = APART + "A cross encoder reranks the retrieved chunks before the answer is written.\n\n"
    assert not bank(tmp_path, body).ranking(QUESTION).out_of_domain


def test_a_compound_of_words_the_bank_writes_routes_as_before(tmp_path: Path) -> None:
    question = "Wo liegen die Parquet-Dateien der nächtlichen Pipeline?"
    files = {
        "daten.md": header("daten", "parquet, pipeline")
        + "# Daten\n\nDie nächtliche Pipeline schreibt Parquet-Dateien in den Ordner exports.\n"
        + FILLER,
        "api.md": header("api", "rest, endpunkte") + "# API\n\nDie Endpunkte lesen die Datenbank.\n" + FILLER,
        "ui.md": header("ui", "oberfläche") + "# Oberfläche\n\nDie Seiten zeigen Berichte.\n" + FILLER,
    }
    r = RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))
    assert [e.file for e in r.route(question).loaded][:1] == ["daten.md"]


def test_a_file_holding_one_piece_of_a_compound_in_another_form_holds_it_as_any_word(tmp_path: Path) -> None:
    question = "Wo landen Thread-Historie und Kontext-Archiv auf der Platte und in welchem Format?"
    files = {
        "tech.md": header("tech", "speicher, format")
        + "# Technik\n\n## Thread-Historie\n\nDie Thread-Historie liegt als JSON im Archive-Ordner; "
        + "jedes Format ist versioniert.\n"
        + FILLER,
        "produkt.md": header("produkt", "nutzer")
        + "# Produkt\n\nDer Kontext wird zwischen Agenten geteilt.\n"
        + FILLER,
        "ui.md": header("ui", "oberfläche") + "# Oberfläche\n\nDie Leiste zeigt den Kontext an.\n" + FILLER,
    }
    r = RankedRouter(load_bank(write_files(tmp_path / "memory-bank", files)))
    found = r.ranking(question)
    assert r.table.paths[found.ranked[0][0]] == "tech.md"
    assert held_apart(question, found.groups, found.ranked[0][0], r.postings, ()) == frozenset()
    apart = question.replace("Thread-Historie", "Thread Historie").replace("Kontext-Archiv", "Kontext Archiv")
    assert found.coverage == r.ranking(apart).coverage
