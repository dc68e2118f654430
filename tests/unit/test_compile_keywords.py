"""ANSWERS_WHEN offline: Korean words without their particles and no verb forms, a file's
technologies and names first, identifiers kept whole."""

from __future__ import annotations

import pytest

from ckp_lsp.core.compile.model import CompileInput
from ckp_lsp.core.compile.offline import BankFile, compile_bank, compile_offline
from ckp_lsp.core.language.korean import is_predicate, strip_particles


@pytest.mark.parametrize(
    ("word", "bare"),
    [
        ("토큰을", "토큰"),
        ("서버에서", "서버"),
        ("기능들을", "기능"),
        ("계정이", "계정"),
        ("jsdom의", "jsdom"),
        ("뷰어로", "뷰어"),
        ("평가", "평가"),  # a noun that ends like a particle keeps its last syllable
        ("회의", "회의"),
        ("token", "token"),
    ],
)
def test_strip_particles(word: str, bare: str) -> None:
    assert strip_particles(word) == bare


def test_a_verb_form_is_a_predicate() -> None:
    assert is_predicate("확보합니다") and is_predicate("제공해야") and not is_predicate("서버")


def test_korean_keywords_carry_no_particles() -> None:
    body = (
        "# 인증\n\n서버에서 토큰을 발급하고 클라이언트는 토큰으로 요청합니다. "
        "토큰이 만료되면 서버가 새 토큰을 발급합니다. 리프레시 토큰은 서버에 저장됩니다."
    )
    answer = compile_offline(CompileInput(body, "auth", (), "auth"))
    assert "토큰" in answer.answers_when and "서버" in answer.answers_when, answer.answers_when
    assert not any(k.endswith(("을", "를", "에서", "합니다")) for k in answer.answers_when)


def test_names_come_first_and_identifiers_stay_whole() -> None:
    files = [
        BankFile(
            "store.md",
            "# Store\n\nThe orders live in PostgreSQL; the `OrderRepository` reads them and the cache "
            "keeps hot orders in Redis for the checkout. Refund rows are archived nightly by the "
            "`archive_refunds` job. PostgreSQL replicas serve the reports.",
        ),
        BankFile("ui.md", "# UI\n\nThe shop pages are rendered on the server and hydrated in the browser."),
    ]
    keywords = compile_bank(files)["store.md"].answers_when
    assert keywords[0] == "store" and "PostgreSQL" in keywords[1:3], keywords
    assert keywords.index("PostgreSQL") < keywords.index("cache")  # a technology before a topic
    assert "OrderRepository" in keywords and "archive_refunds" in keywords
