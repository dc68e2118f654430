"""The language package: words, stop words, languages, sentences and ASCII names in any script."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ckp_lsp.core.language import (
    MAX_SLUG,
    content_words,
    is_stop_word,
    languages,
    sentences,
    slug,
    stop_words,
    transliterate,
    words,
)


def test_words_split_latin_text_at_punctuation_keeping_identifiers_and_apostrophes() -> None:
    assert words("Use snake_case, don't panic: http-headers v1.2") == [
        "Use",
        "snake_case",
        "don't",
        "panic",
        "http",
        "headers",
        "v1",
        "2",
    ]


def test_words_segment_chinese_with_latin_terms_inside() -> None:
    assert words("我们使用Redis缓存用户会话，并通过Kafka发送事件。") == [
        "我们", "使用", "Redis", "缓存", "用户", "会话", "并", "通过", "Kafka", "发送", "事件",
    ]  # fmt: skip


def test_words_segment_japanese_when_the_text_has_kana() -> None:
    found = words("このプロジェクトではWebSocketで通知を送り、MongoDBに保存します。")
    assert {"プロジェクト", "WebSocket", "通知", "MongoDB", "保存"} <= set(found)
    assert "、" not in found and "。" not in found


def test_words_segment_a_query_and_a_keyword_the_same_way() -> None:
    query = words("認証モジュールのテストを追加する")  # kana: Japanese
    assert words("認証", "ja") == ["認証"] and "認証" in query and "テスト" in query


def test_words_keep_indic_and_thai_words_whole_and_normalise_width() -> None:
    assert words("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert words("ＡＰＩ ｷｬｯｼｭ") == ["API", "キャッシュ"]


def test_kanji_only_text_reads_as_japanese_when_asked() -> None:
    assert words("進捗状況", "ja") and "".join(words("進捗状況", "ja")) == "進捗状況"


def test_stop_words_cover_every_language_of_the_lists() -> None:
    for word, code in [
        ("для", "ru"),
        ("với", "vi"),
        ("cho", "vi"),
        ("または", "ja"),
        ("的", "zh"),
        ("the", "en"),
    ]:
        assert is_stop_word(word, [code]), (word, code)
    assert not is_stop_word("для", ["en"])


def test_english_topics_of_a_technical_bank_are_not_stop_words() -> None:
    english = stop_words(["en"])
    assert {"the", "which", "however"} <= english
    assert not {"auth", "index", "test", "system", "state", "api"} & english


def test_languages_finds_the_script_languages_and_always_english() -> None:
    assert languages("The server keeps sessions in Redis.") == ("en",)
    assert languages("Сервер хранит сессии в Redis для быстрого доступа.") == ("en", "ru")
    assert languages("プロジェクトの概要です。") == ("en", "ja")
    assert languages("项目的概述。") == ("en", "zh")


def test_languages_finds_a_second_language_of_the_same_script() -> None:
    text = (
        "The project stores data in MongoDB. Dự án này dùng MongoDB cho dữ liệu và các API "
        "của hệ thống, vì nó được thiết kế cho việc mở rộng."
    )
    assert languages(text) == ("en", "vi")


def test_content_words_drop_the_stop_words_of_the_text_languages() -> None:
    assert content_words("how do I configure the cache for the server") == ["configure", "cache", "server"]
    assert content_words("как настроить кэш для сервера") == ["настроить", "кэш", "сервера"]
    assert "的" not in content_words("用户的会话在Redis中")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use e.g. JWT for tokens. Then rotate them.", ["Use e.g. JWT for tokens.", "Then rotate them."]),
        ("Version 1.2 of file.md is out! Is it?", ["Version 1.2 of file.md is out!", "Is it?"]),
        ("現在の作業は認証です。次は何？", ["現在の作業は認証です。", "次は何？"]),
        ("我们使用Redis。数据库是MongoDB！", ["我们使用Redis。", "数据库是MongoDB！"]),
        ("", []),
    ],
)
def test_sentences_in_latin_and_cjk_scripts(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("activeContext", "active-context"),
        ("systemPatterns", "system-patterns"),
        ("caffè", "caffe"),
        ("OAuth2 flow", "oauth2-flow"),
        ("Активный контекст", "aktivnyy-kontekst"),
        ("活动上下文", "huodong-shangxiawen"),
        ("アクティブ・コンテキスト", "akuteibu-kontekisuto"),
        ("Redis設定とキャッシュ", "redis-settei-to-kyasshu"),
        ("한국어 문서", "hangugeo-munseo"),
        ("!!! ???", ""),
    ],
)
def test_slug_is_a_readable_ascii_name_in_any_script(text: str, expected: str) -> None:
    assert slug(text) == expected


def test_slug_reads_kanji_as_japanese_when_told_the_language() -> None:
    assert slug("進捗状況", "ja") == "shinchokujoukyou"
    assert slug("進捗状況") == "jin-bu-zhuangkuang"  # no kana: read as Chinese


def test_slug_is_cut_at_a_word_boundary_within_the_limit() -> None:
    long = slug(" ".join(["word"] * 40))
    assert len(long) <= MAX_SLUG and not long.endswith("-") and long.endswith("word")
    assert len(slug("x" * 100)) == MAX_SLUG


def test_transliterate_keeps_ascii_and_spells_other_scripts() -> None:
    assert transliterate("JWT rotation") == "JWT rotation"
    assert transliterate("Ελληνικά Ωραία") == "ellinika oraia"


def test_importing_the_package_loads_no_language_library() -> None:
    code = (
        "import sys, ckp_lsp.core.language as l; l.words('plain ascii');"
        "print(sorted(m for m in ('rjieba','tinysegmenter','stopwordsiso','sentencex','anyascii','pykakasi')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
