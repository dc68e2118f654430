"""Routing in any language: Chinese and Japanese queries without spaces, stop words of every
language, files over the budget of one file, a bank without headers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.core.project.config import Config
from ckp_lsp.core.routing import route as _route
from ckp_lsp.core.routing.index_pattern import Router
from tests.unit.builders import bank_of_texts, run_cli, write_files


def route(bank: Any, query: str) -> Any:
    """The index pattern (SPEC §6a), whose word matching these tests are about."""
    return _route(bank, query, mode="index")


def head(concept: str, keywords: str, body: str = "Body.") -> str:
    return f"CONCEPT: {concept}\nTLDR: {concept}.\nANSWERS_WHEN: {keywords}\nVALIDATED: 2025-05\n\n{body}\n"


JAPANESE = bank_of_texts(
    {
        "auth.md": head("auth", "認証, トークン更新, JWT"),
        "db.md": head("database", "データベース, 接続プール"),
        "deploy.md": head("deploy", "デプロイ手順, Docker"),
    }
)
CHINESE = bank_of_texts(
    {
        "auth.md": head("auth", "认证, 刷新令牌"),
        "cache.md": head("cache", "缓存, Redis"),
    }
)


RUSSIAN = bank_of_texts(
    {
        "db.md": head("database", "база данных, миграция схемы"),
        "cancel.md": head("cancel", "отмена записи, возврат денег"),
        "deploy.md": head("deploy", "развёртывание, Docker, Node"),
        "queue.md": head("queue", "очередь задач"),
    }
)
GERMAN = bank_of_texts(
    {
        "db.md": head("database", "Datenbank, Häuser der Stadt"),
        "deploy.md": head("deploy", "Bereitstellung, Docker"),
    }
)


@pytest.mark.parametrize(
    ("query", "loaded"),
    [
        ("Где лежит схема базы данных и как делать миграции?", ["database"]),
        ("Как работать с базой данных?", ["database"]),
        # отмену, отмена: Snowball cuts them to отмен and отм
        ("Можно ли сделать отмену записей и возврат денег?", ["cancel"]),
        ("Как идёт развертывание в Докере?", ["deploy"]),  # ё written as е
        ("Что лежит в очереди задач?", ["queue"]),
    ],
)
def test_a_russian_query_matches_keywords_written_in_another_form(query: str, loaded: list[str]) -> None:
    assert route(RUSSIAN, query).concepts == loaded


def test_a_russian_word_matches_no_keyword_of_another_stem() -> None:
    assert route(RUSSIAN, "Какая погода завтра в Москве?").out_of_domain
    assert route(RUSSIAN, "Где база отдыха?").out_of_domain  # `база данных` needs both its words
    assert route(RUSSIAN, "Как обновить nodejs?").out_of_domain  # Russian stems leave `node` whole


def test_a_german_query_matches_inflected_and_umlaut_forms() -> None:
    assert route(GERMAN, "Welche Datenbanken nutzen die Häusern?").concepts == ["database"]
    assert route(GERMAN, "Wie läuft die Bereitstellungen?").concepts == ["deploy"]


def test_an_english_bank_and_question_load_no_stemmer() -> None:
    """The index pattern: English words match as written and as plurals (``s``/``es``); a bank and a question in
    ASCII load no language library for it."""
    code = (
        "import sys\n"
        "from ckp_lsp.core.routing import route\n"
        "from tests.unit.builders import bank_of_texts\n"
        "bank = bank_of_texts({'a.md': 'CONCEPT: cache\\nTLDR: Cache.\\nANSWERS_WHEN: cache\\n\\nBody.\\n'})\n"
        "assert route(bank, 'how do caches expire', mode='index').concepts == ['cache']\n"
        "assert route(bank, 'caching rules', mode='index').out_of_domain\n"
        "print(sorted(m for m in sys.modules if m.startswith(('snowballstemmer', 'stopwordsiso'))))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    ("query", "loaded"),
    [
        ("トークン更新の方法を教えてください", ["auth"]),
        ("データベースの接続プールはどう設定しますか", ["database"]),
        ("Dockerでデプロイ手順を確認したい", ["deploy"]),
        ("JWTの認証はどうなっていますか", ["auth"]),
    ],
)
def test_a_japanese_query_matches_the_keywords_inside_it(query: str, loaded: list[str]) -> None:
    assert route(JAPANESE, query).concepts == loaded


def test_a_japanese_query_on_another_topic_is_out_of_domain() -> None:
    result = route(JAPANESE, "今日の天気はどうですか")
    assert result.out_of_domain and result.loaded == []


@pytest.mark.parametrize(
    ("query", "loaded"),
    [("令牌怎么刷新", ["auth"]), ("如何配置Redis缓存", ["cache"]), ("刷新令牌的流程是什么", ["auth"])],
)
def test_a_chinese_query_is_segmented_as_the_keywords_are(query: str, loaded: list[str]) -> None:
    assert route(CHINESE, query).concepts == loaded


def test_a_chinese_query_on_another_topic_is_out_of_domain() -> None:
    assert route(CHINESE, "今天天气怎么样").out_of_domain


def test_a_single_ideograph_does_not_match_inside_a_query() -> None:
    bank = bank_of_texts({"a.md": head("a", "鍵, ログイン")})
    assert route(bank, "鍵の管理はどこですか").concepts == ["a"]  # a word of its own: it matches
    assert route(bank, "合鍵屋に行く").out_of_domain  # only inside 合鍵: it does not


def test_stop_words_of_any_language_route_nothing() -> None:
    bank = bank_of_texts(
        {
            "ru.md": head("ru", "для, кэш"),
            "vi.md": head("vi", "với, cho, bộ nhớ đệm"),
            "ja.md": head("ja", "または, キャッシュ"),
        }
    )
    assert route(bank, "настройка для сервера").out_of_domain
    assert route(bank, "làm việc với cho máy chủ").out_of_domain
    assert route(bank, "サーバーまたはクライアント").out_of_domain
    assert route(bank, "как очистить кэш").concepts == ["ru"]


def test_stop_words_inside_a_keyword_are_not_required() -> None:
    bank = bank_of_texts({"a.md": head("a", "база данных для кэша")})
    assert route(bank, "база данных кэша").concepts == ["a"]


def test_an_english_stop_word_the_bank_claims_as_a_keyword_still_routes() -> None:
    bank = bank_of_texts(
        {"orders.md": head("orders", "orders, checkout"), "x.md": head("x", "state machine")}
    )
    assert route(bank, "How are orders paid?").concepts == ["orders"]


def test_a_file_over_the_budget_is_flagged_in_the_declaration_and_the_json() -> None:
    big = head("big", "archive, dump", "x" * 40_000)
    bank = bank_of_texts({"big.md": big, "small.md": head("small", "archive")})
    result = route(bank, "the archive dump")
    assert result.declaration.endswith(f" — over budget: big.md ~{-(-len(big) // 4):,} tokens]")
    data = result.as_dict()
    assert data["over_budget"] == ["big.md"] and data["file_budget_tokens"] == 8000
    assert [e["over_budget"] for e in data["loaded"]] == [True, False]
    roomy = Router(bank_of_texts({"big.md": big}, Config(file_budget_tokens=20_000))).route("archive")
    assert roomy.over_budget == [] and "over budget" not in roomy.declaration


def test_the_cli_names_the_file_over_the_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bank = write_files(tmp_path / "memory-bank", {"big.md": head("big", "archive", "x" * 40_000)})
    code, out, _ = run_cli(capsys, "route", str(bank), "archive", "--format", "json")
    assert code == 0 and json.loads(out)["over_budget"] == ["big.md"]
    code, out, _ = run_cli(capsys, "route", str(bank), "archive")
    assert "over budget: big.md" in out.splitlines()[0] and "over the budget of 8,000" in out


def test_route_on_a_bank_without_headers_says_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = write_files(tmp_path / "memory-bank", {"a.md": "# Auth\n\nTokens.\n", "b.md": "# DB\n"})
    code, out, err = run_cli(capsys, "route", str(bank), "tokens")
    assert code == 1 and out == ""
    assert "not compiled" in err and "ckp compile --all" in err and "ckp index" in err


def test_a_japanese_query_four_files_match_loads_three_of_them_and_their_high() -> None:
    """The cap is on the files that match (SPEC §6: at most 3 primaries, ties by concept name),
    in Japanese as in English; a HIGH of a primary comes on top of them."""
    bank = bank_of_texts(
        {
            "a.md": head("alpha", "献立, 買い物"),
            "b.md": head("bravo", "献立, 在庫"),
            "c.md": head("charlie", "献立, 分量").replace(
                "VALIDATED", "SIMILAR_HIGH: echo:2025-05\nVALIDATED"
            ),
            "d.md": head("delta", "献立, 予算"),
            "e.md": head("echo", "天気"),
        }
    )
    result = route(bank, "献立の作り方を教えて")
    assert [e.concept for e in result.primaries] == ["alpha", "bravo", "charlie"]
    assert [(e.concept, e.reason) for e in result.loaded] == [
        ("alpha", "match"),
        ("bravo", "match"),
        ("charlie", "match"),
        ("echo", "high"),
    ]
    assert [e.concept for e in result.matched_not_loaded] == ["delta"]
    assert result.declaration.startswith("[CKP: loaded 4/5 files — match: a.md via 献立; b.md via 献立; c.md")
