"""Offline TLDRs of task files and work logs: a status word in any Latin-script language, a code
span's stops, a request to the agent, a sentence that points back, a heading run into the text,
a field snapshot and an index into code in a description are structure, not meaning."""

from __future__ import annotations

import pytest

from ckp_lsp.core.compile.model import Answer, CompileInput
from ckp_lsp.core.compile.offline import MAX_TLDR, compile_offline
from ckp_lsp.core.compile.offline.structure import is_status, structure
from ckp_lsp.core.compile.offline.summary import fit

GOAL = "Le serveur de cache démarre sur le port 8006 et répond aux sondes de santé en moins d'une seconde."


def compile_text(text: str, hint: str = "note", **kw: object) -> Answer:
    return compile_offline(CompileInput(text, None, (), hint, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "word",
    [
        "TERMINÉ",
        "Terminée",
        "COMPLETÉ",
        "Completado",
        "terminato",
        "Concluído",
        "Résolu",
        "Statut : en cours",
    ],
)
def test_a_status_word_in_any_latin_script_language_is_a_status(word: str) -> None:
    assert is_status(word)
    assert is_status(f"{word} : la migration du cache")


def test_a_word_of_a_sentence_that_looks_like_a_status_stem_is_no_status() -> None:
    assert not is_status("The engine validates every card before the player's turn ends.")
    assert not is_status("Create a complete frontend interface for querying the indexed repositories.")


def test_a_status_that_closes_a_dated_heading_never_leads_the_tldr() -> None:
    text = f"### [2026-02-27 00:58:00] - Incident du cache (port 8006) - TERMINÉ\n\n**Objectif** : {GOAL}\n"
    tldr = compile_text(text).tldr
    assert "TERMINÉ" not in tldr and "2026" not in tldr, tldr
    assert tldr.endswith(GOAL), tldr


def test_a_stop_inside_a_code_span_ends_no_sentence() -> None:
    text = "# Cache\n\nRepair the cache start-up during `./start.sh`, then restart every worker without a regression.\n"
    tldr = compile_text(text).tldr
    assert "during ./start.sh, then restart every worker without a regression." in tldr, tldr


def test_a_status_clause_before_a_dash_is_a_status() -> None:
    line = "No tasks currently in progress - the system is ready for release with one review left"
    assert structure(line, 5) == "status"


@pytest.mark.parametrize(
    "request_",
    [
        "You are an expert Python developer, read the loader plan and implement the git-based loader.",
        '"Act as an expert Python developer and find why the query intent is always the default one."',
    ],
)
def test_a_request_to_the_agent_and_the_rest_of_it_are_no_tldr(request_: str) -> None:
    assert structure(request_, 5) == "request"
    prose = "The loader clones each repository once and pulls only the changed files afterwards."
    text = f"# Loader\n\n## Original Request\n\n{request_} Every change must be tested.\n\n{prose}\n"
    assert compile_text(text).tldr.endswith(prose)


def test_a_sentence_that_points_back_is_no_tldr() -> None:
    assert structure("This was a critical bug affecting the whole query pipeline.", 5) == "back-reference"
    text = (
        "# Intent fix\n\nThis was a critical bug affecting the whole query pipeline. "
        "A question asking for an explanation was classified as a code search.\n"
    )
    assert compile_text(text).tldr.endswith(
        "A question asking for an explanation was classified as a code search."
    )


def test_a_heading_run_into_the_text_cuts_the_sentence() -> None:
    assert structure("The agent has reached a complete implementation w### Development Context", 5) == "cut"
    assert structure("Our C# service reads the queue and writes each message to the store.", 5) is None


def test_a_long_sentence_loses_its_bracketed_remark_before_a_clause() -> None:
    sentence = (
        "The knowledge agent is a system that indexes every repository of the organisation overnight and gives "
        "precise, context-aware answers about its code through a RAG (Retrieval-Augmented Generation) design."
    )
    assert len(sentence) > MAX_TLDR
    tldr = fit(sentence)
    assert tldr == sentence.replace(" (Retrieval-Augmented Generation)", ""), tldr


def test_a_list_of_settings_names_no_subjects() -> None:
    text = (
        "# Progress Tracking\n\n## Current Environment\n\n- **Branch**: `fix/30` (the open pull request)\n"
        "- **Base Branch**: `main` (default)\n- **Python Version**: `3.11+` required\n\n"
        "## Details\n\n- **Indexing**: every repository is cloned and parsed.\n"
    )
    tldr = compile_text(text).tldr
    assert "Branch" not in tldr and "fix/30" not in tldr, tldr


def test_an_index_into_code_in_a_description_is_no_placeholder() -> None:
    description = "Per-player info comes from gameui.players[pid] in extract.ts; its color is a bare hex."
    answer = compile_text(f"# Players\n\n{GOAL}", description=description)
    assert answer.tldr == description
    assert compile_text(GOAL, description="[Project Name] is a web app for customers.").tldr != (
        "[Project Name] is a web app for customers."
    )


def test_a_description_cut_inside_brackets_loses_the_open_remark() -> None:
    # YAML reads ` #` as a comment: `… hex (no #)` arrives as `… hex (no`
    answer = compile_text(
        f"# Players\n\n{GOAL}", description="The color of each player is a bare hex string (no"
    )
    assert answer.tldr == "The color of each player is a bare hex string."


def test_a_list_item_of_a_label_and_a_code_value_is_a_field() -> None:
    text = "# 数据存储\n\n- Python 类型：`dict[str, list[dict[str, str]]]`\n\n> 缓存数据保存在插件目录的 JSON 文件中，每次轮询后整体替换并立即写回磁盘。\n"
    assert "dict[" not in compile_text(text).tldr
