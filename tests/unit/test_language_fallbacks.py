"""The language package where a library cannot be imported (the VS Code extension's universal
build, a platform without wheels): each feature falls back to a simpler method, routing still
finds the right files, and ``missing_libraries`` names what is missing."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from ckp_lsp.core.language import libraries, missing_libraries, names, segment, slug, stems, stopwords, words
from ckp_lsp.core.language import sentences as split_sentences
from ckp_lsp.core.project.discovery import find_banks
from ckp_lsp.core.routing import route
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.server import native
from tests.unit.builders import run_cli

# (the package's `sentences` is the function; its module is imported by name)
sentences = importlib.import_module("ckp_lsp.core.language.sentences")
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
CACHED = (
    segment._chinese,
    segment._japanese,
    segment._simplified,
    sentences._segment,
    names._anyascii,
    names._kakasi,
    stems._stemmer,
    stems.stem,
    stopwords._raw,
    stopwords._list,
    stopwords._stop_words,
    stopwords._traditional,
    stopwords.languages_of_word,
)


def _forget() -> None:
    for cached in CACHED:
        cached.cache_clear()
    libraries._failed.clear()


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Make libraries unimportable, as where they are not installed (``import`` raises
    ImportError), with every cached loader forgotten before and after."""

    def hide(*names: str) -> None:
        for name in names:
            monkeypatch.setitem(sys.modules, name, None)
        _forget()

    yield hide
    monkeypatch.undo()
    _forget()


def test_every_library_is_usable_in_the_test_environment() -> None:
    assert missing_libraries() == []
    assert native.describe_languages() == ""


def test_the_missing_list_names_each_library_that_cannot_load(without: Callable[..., None]) -> None:
    without("rjieba", "opencc", "sentencex")
    assert missing_libraries() == ["opencc", "rjieba", "sentencex"]
    line = native.describe_languages()
    assert line == (
        "language libraries missing, simpler fallbacks in use: opencc (Traditional Chinese), "
        "rjieba (Chinese words), sentencex (sentences)"
    )


def test_a_compiled_library_without_its_compiled_module_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # As in the universal build: the package's Python files are there, its extension module is not.
    package = tmp_path / "rjieba"
    package.mkdir()
    (package / "__init__.py").write_text("from .rjieba import Jieba\n", encoding="utf-8")
    monkeypatch.delitem(sys.modules, "rjieba", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert missing_libraries() == ["rjieba"]
    assert "rjieba" not in sys.modules  # found out without importing it


def test_a_failed_import_is_remembered_and_reported(without: Callable[..., None]) -> None:
    without("tinysegmenter")
    assert words("このプロジェクト") == ["この", "のプ", "プロ", "ロジ", "ジェ", "ェク", "クト"]
    assert "tinysegmenter" in libraries._failed
    assert missing_libraries() == ["tinysegmenter"]


def test_chinese_without_rjieba_is_cut_into_pairs_of_characters(without: Callable[..., None]) -> None:
    without("rjieba")
    assert words("使用Redis缓存用户会话") == ["使用", "Redis", "缓存", "存用", "用户", "户会", "会话"]
    assert words("书") == ["书"]


def test_traditional_chinese_without_opencc_is_cut_as_written(without: Callable[..., None]) -> None:
    without("opencc")
    assert "".join(words("按鈕導航")) == "按鈕導航"  # rjieba cuts it, unfolded
    assert "這" not in stopwords.stop_words(("zh",))  # the Simplified list only
    assert "这" in stopwords.stop_words(("zh",))
    assert missing_libraries() == ["opencc"]


@pytest.mark.parametrize("hidden", [("rjieba",), ("rjieba", "opencc", "stopwordsiso")])
def test_routing_a_chinese_query_still_loads_the_right_file(
    without: Callable[..., None], hidden: tuple[str, ...]
) -> None:
    without(*hidden)
    sample = SAMPLES / "cline-zh"
    (root,) = find_banks([sample])
    bank = load_bank(root)
    queries = yaml.safe_load((sample / "queries.yaml").read_text(encoding="utf-8"))
    assert queries
    for q in queries:
        result = route(bank, q["query"])
        if q.get("out_of_domain"):
            assert result.out_of_domain, q["query"]
        else:
            assert set(q["must_load"]) <= set(result.concepts), (q["query"], result.concepts)
            assert len(result.loaded) <= q["max_loaded"], (q["query"], result.concepts)
    assert set(hidden) <= set(missing_libraries())


def test_tldr_sentences_are_split_without_sentencex(without: Callable[..., None]) -> None:
    without("sentencex")
    assert split_sentences("Uses Redis v1.2 for sessions. Tokens expire! Why? Nobody knows") == [
        "Uses Redis v1.2 for sessions.",
        "Tokens expire!",
        "Why?",
        "Nobody knows",
    ]
    assert split_sentences("我们使用Redis。会话「很短。」然后呢？好") == [
        "我们使用Redis。",
        "会话「很短。」",
        "然后呢？",
        "好",
    ]
    assert split_sentences('He said "stop." Then left.') == ['He said "stop."', "Then left."]
    assert split_sentences("See Dr. Who for details. Done.") == ["See Dr. Who for details.", "Done."]
    assert missing_libraries() == ["sentencex"]


def test_the_offline_tldr_is_one_sentence_without_sentencex(
    without: Callable[..., None], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    without("sentencex", "rjieba", "opencc")
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "cache.md").write_text(
        "# 缓存\n\n我们使用Redis缓存用户会话。会话在三十分钟后过期！其他服务通过Kafka读取事件。\n",
        encoding="utf-8",
    )
    code, _, err = run_cli(capsys, "compile", str(bank / "cache.md"))
    assert code == 0, err
    assert "sentencex" not in err and "rjieba" not in err  # the CLI says nothing of the fallback
    header = (bank / "cache.md").read_text(encoding="utf-8").split("\n\n", 1)[0]
    (tldr,) = [line for line in header.splitlines() if line.startswith("TLDR:")]
    assert tldr.split(":", 1)[1].strip() == "我们使用Redis缓存用户会话。"


def test_slug_without_anyascii_or_pykakasi(without: Callable[..., None]) -> None:
    without("anyascii", "pykakasi")
    assert slug("activeContext") == "active-context"
    assert slug("Caffè Überblick") == "caffe-uberblick"
    assert slug("Активный") == ""  # no ASCII spelling without anyascii: the caller's fallback name
    assert slug("API 認証フロー") == "api"
    assert missing_libraries() == ["anyascii", "pykakasi"]


def test_japanese_slug_without_pykakasi_is_spelled_as_chinese(without: Callable[..., None]) -> None:
    without("pykakasi")
    assert slug("進捗状況") == slug("進捗状況", "zh")
    assert slug("進捗状況")  # anyascii's pinyin
    assert missing_libraries() == ["pykakasi"]


def test_russian_without_snowballstemmer_the_index_matches_only_the_forms_written(
    without: Callable[..., None],
) -> None:
    (root,) = find_banks([SAMPLES / "cline-ru"])
    bank = load_bank(root)
    without("snowballstemmer")
    assert stems.stem("записей", "ru") == "записей"
    assert route(bank, "Какие известные ошибки и когда дата релиза?", mode="index").concepts == ["progress"]
    assert route(
        bank, "Как работает отмена записей?", mode="index"
    ).out_of_domain  # `отмена записи`: another form
    assert missing_libraries() == ["snowballstemmer"]
