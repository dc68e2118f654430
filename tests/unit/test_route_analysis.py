"""The analysis of words the ranked router applies to a question and a file alike."""

from __future__ import annotations

import pytest

from ckp_lsp.core.routing.analysis import query_words, terms
from ckp_lsp.core.routing.korean import stem, strip_particle
from ckp_lsp.core.routing.postings import Postings


@pytest.mark.parametrize(
    ("word", "noun"),
    [
        ("토큰을", "토큰"),
        ("서버에서", "서버"),
        ("캐시는", "캐시"),
        ("데이터베이스의", "데이터베이스"),
        ("사용자에게", "사용자"),
        ("배포하나요", "배포"),
        ("키", "키"),  # one syllable stays as it is
        ("서버", "서버"),  # no particle
        ("제약이야", "제약"),  # the plain endings of a question to a colleague
        ("고쳤어", "고쳤어"),  # a stem fused with its ending: found by its stem (below)
    ],
)
def test_a_korean_word_loses_its_particle_or_question_ending(word: str, noun: str) -> None:
    assert strip_particle(word) == noun


def test_a_korean_word_is_indexed_whole_and_stripped_and_a_question_looks_for_both() -> None:
    assert terms("서버에서 토큰을 검증한다") == ["서버에서", "서버", "토큰을", "토큰", "검증한다", "검증"]
    (word,) = [w for w in query_words("토큰을") if w.written == "토큰을"]
    assert set(word.terms) == {"토큰을", "토큰"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parseInvoiceCsv", {"parse", "invoice", "csv", "parseinvoicecsv"}),
        ("retry_backoff", {"retry", "backoff", "retrybackoff"}),
        ("HTTPServer", {"http", "server", "httpserver"}),
    ],
)
def test_an_identifier_is_split_at_case_and_underscore_and_kept_whole(text: str, expected: set[str]) -> None:
    assert set(terms(text)) == expected


def test_a_question_and_a_file_spell_an_identifier_the_same_way() -> None:
    asked = {t for w in query_words("Where is retryBackoff set?") for t in w.terms}
    assert {"retry", "backoff", "retrybackoff"} <= asked
    assert {"retry", "backoff", "retrybackoff"} <= set(terms("the retry_backoff setting"))


def test_chinese_and_japanese_are_segmented_into_words() -> None:
    assert terms("使用Redis缓存用户认证", "zh") == ["使用", "redis", "缓存", "用户", "认证"]
    assert "トークン" in terms("トークン更新の方法", "ja")


def test_names_are_told_from_plain_words() -> None:
    """A capital inside a word or after the first, a digit, or Latin letters in another script."""
    names = {w.written: w.name for w in query_words("How do I set up Redis for gRPC on S3 storage?")}
    assert names["Redis"] and names["gRPC"] and names["S3"]
    assert not names["How"] and not names["storage"]
    assert not {w.written: w.name for w in query_words("Is a 50MB PDF slow?")}[
        "50MB"
    ]  # a number and its unit
    korean = {w.written: w.name for w in query_words("Kubernetes 클러스터는 어떻게 설정해?")}
    assert korean["Kubernetes"] and not korean["클러스터는"]


def test_a_word_of_latin_letters_and_hangul_is_cut_where_the_script_changes() -> None:
    assert terms("Safari에서 PDF를 연다") == ["safari", "pdf", "연다"]
    assert [w.terms for w in query_words("pdf와 markdown")] == [("pdf",), ("markdown",)]


def test_a_korean_verb_finds_its_other_forms_by_its_stem_of_two_syllables_or_more() -> None:
    assert stem("닫히던") == "닫히"
    assert stem("버튼을") == "버튼"
    assert stem("넘는") is None  # one syllable would start too many words
    bank = Postings.build([[terms("팝업이 확인 버튼으로 닫히도록 고쳤다")], [terms("닫기 버튼")]], (1.0,))
    (closing,) = [w for w in query_words("닫히던") if w.written == "닫히던"]
    assert bank.group(closing) == {"닫히도록"}
    (button,) = [w for w in query_words("버튼을") if w.written == "버튼을"]
    assert bank.group(button) == {"버튼으로", "버튼"}
