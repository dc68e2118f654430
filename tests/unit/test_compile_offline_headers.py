"""Headers a person would keep: TLDRs, keywords, relationships, confidence and concept names in
any language, read from bodies in tests/data/offline/headers and small banks."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.core.compile.model import Answer, CompileInput
from ckp_lsp.core.compile.offline import MAX_TLDR, BankFile, compile_bank, compile_offline
from ckp_lsp.core.language import words

DATA = Path(__file__).resolve().parent.parent / "data" / "offline" / "headers"


def compile_file(name: str, hint: str = "") -> Answer:
    text = (DATA / name).read_text(encoding="utf-8")
    return compile_offline(CompileInput(text, None, (), hint or name.removesuffix(".md")))


def compile_text(text: str, hint: str = "note") -> Answer:
    return compile_offline(CompileInput(text, None, (), hint))


# ---------------------------------------------------------------- TLDR


def test_tldr_skips_metadata_lines_and_list_lead_ins() -> None:
    assert compile_file("metadata.md").tldr == (
        "The retry worker re-sends a failed card payment three times, waiting one, six and "
        "twenty-four hours between attempts."
    )


def test_tldr_skips_template_placeholders() -> None:
    tldr = compile_file("template.md").tldr
    assert tldr == "The feature flag service decides per tenant whether a new screen is shown."


def test_a_japanese_tldr_is_one_sentence_with_one_full_stop() -> None:
    tldr = compile_file("japanese.md").tldr
    assert tldr == "このサービスはWebSocketでブラウザに通知を送り、既読状態をMongoDBに保存します。"
    assert not tldr.endswith(("。.", "..")) and tldr.count("。") == 1


def test_a_long_japanese_sentence_is_cut_at_a_clause_never_inside_a_word() -> None:
    body = (DATA / "long-japanese.md").read_text(encoding="utf-8")
    sentence = body.split("\n\n", 1)[1].strip()
    tldr = compile_file("long-japanese.md").tldr
    assert len(tldr) <= MAX_TLDR and tldr.endswith("。") and not tldr.endswith("、。")
    kept = tldr[:-1]
    assert sentence.startswith(kept) and sentence[len(kept)] == "、"


def test_a_long_cjk_text_without_clauses_is_cut_between_words() -> None:
    run = "商品" + "价格库存评论店铺" * 40
    tldr = compile_text(f"# 商品\n\n{run}很重要。").tldr
    kept = tldr[:-1]
    assert len(tldr) <= MAX_TLDR and run.startswith(kept)
    assert "".join(words(kept)) == kept and kept in "".join(words(run)[: len(words(kept))])


def test_the_title_leads_a_sentence_that_does_not_name_it() -> None:
    answer = compile_text("# Tech Context\n\nThe backend runs on FastAPI and PostgreSQL.")
    assert answer.tldr == "Tech Context: The backend runs on FastAPI and PostgreSQL."
    lead = compile_text("# Memory Bank: Active Context\n\nWe are moving the gateway to WebSocket.")
    assert lead.tldr == "Active Context: We are moving the gateway to WebSocket."
    named = compile_text("# Payment retries\n\nThe worker retries a failed payment three times.")
    assert named.tldr == "The worker retries a failed payment three times."


# ---------------------------------------------------------------- keywords


def test_keywords_have_no_stop_words_of_the_file_language() -> None:
    russian = compile_file("russian.md").answers_when
    assert "RabbitMQ" in russian and "очередь" in russian
    assert not {"для", "мы", "а", "со", "через"} & set(russian)


def test_chinese_keywords_are_words_not_clause_fragments() -> None:
    keywords = compile_file("chinese.md").answers_when
    assert {"缓存", "商品"} <= set(keywords)
    assert all(len(k) <= 4 for k in keywords[1:] if not k.isascii())
    assert not {"我们", "的", "时"} & set(keywords)


def test_vietnamese_keywords_are_words_of_two_syllables_not_syllables() -> None:
    keywords = compile_file("vietnamese.md").answers_when
    assert {"giao dịch", "hoàn tiền"} <= set(keywords)
    assert not [k for k in keywords[1:] if " " not in k and not k.isascii()]
    assert not {"với", "cho", "và"} & set(keywords)


def test_keywords_are_the_topics_that_set_a_file_apart_from_the_bank() -> None:
    shared = "The service handles the request and the service logs the response of the service. "
    files = [
        BankFile("a.md", f"# A\n\n{shared * 3}The service pushes updates over WebSocket connections."),
        BankFile("b.md", f"# B\n\n{shared * 3}The service stores orders in MongoDB collections."),
        BankFile("c.md", f"# C\n\n{shared * 3}The service streams events through Kafka topics."),
    ]
    answers = compile_bank(files)
    for rel, topic in (("a.md", "websocket"), ("b.md", "mongodb"), ("c.md", "kafka")):
        keywords = [k.casefold() for k in answers[rel].answers_when]
        assert topic in keywords, (rel, keywords)
        assert "service" not in keywords[:3], (rel, keywords)


# ---------------------------------------------------------------- relationships


def test_a_concept_named_by_a_common_word_is_not_related_by_its_word() -> None:
    files = [BankFile("memory.md", "# Memory\n\nHow the agent keeps its memory between sessions of work.")]
    files += [
        BankFile(
            f"f{i}.md", f"# Topic {i}\n\nThe worker{i} keeps its queue{i} in memory and flushes it hourly."
        )
        for i in range(6)
    ]
    answers = compile_bank(files)
    for i in range(6):
        answer = answers[f"f{i}.md"]
        assert "memory" not in answer.similar_high + answer.similar_mid
    assert answers["memory.md"].similar_high == []


def test_high_needs_mutual_evidence_and_a_one_way_reference_is_mid() -> None:
    files = [
        BankFile(
            "jwt.md", "# JWT\n\nTokens are signed access tokens; see [oauth2](oauth2.md) for the login flow."
        ),
        # (not `tokens`: a word every file of the bank uses is no file's keyword)
        BankFile("oauth2.md", "# OAuth2\n\nThe login flow ends with the `jwt` access grant being signed."),
        BankFile(
            "csrf.md", "# CSRF\n\nForms carry a CSRF token; the [jwt](jwt.md) guide covers access tokens."
        ),
    ]
    answers = compile_bank(files)
    assert answers["jwt.md"].similar_high == ["oauth2"]
    assert answers["oauth2.md"].similar_high == ["jwt"]
    assert answers["csrf.md"].similar_high == [] and answers["csrf.md"].similar_mid == ["jwt"]
    assert "csrf" in answers["jwt.md"].similar_mid  # csrf names jwt: evidence seen from both ends


# ---------------------------------------------------------------- confidence


def test_confidence_follows_the_evidence_not_the_length() -> None:
    filler = "We will look at this again later and see how it goes for everyone. " * 60
    assert compile_text(f"# Notes\n\n{filler}").confidence != "high"
    dense = (
        "# Session store\n\nSessions live in Redis under `session:{id}` with a thirty-minute TTL.\n\n"
        "## Redis\n\nThe `SessionStore` writes to Redis; the `SessionGuard` reads Redis on each request.\n\n"
        "## Expiry\n\nExpiry renews the TTL; logout deletes the Redis key through `SessionStore`."
    )
    assert len(dense) < len(filler)
    assert compile_text(dense).confidence == "medium"  # dense, but too short to be sure of
    more = "\n\n".join(
        f"## {topic}\n\nThe `SessionStore` keeps {topic.lower()} data in Redis; the `SessionGuard` checks "
        f"{topic.lower()} rules on each request before the handler runs, and logs what it refused."
        for topic in ("Expiry", "Renewal", "Logout", "Rotation", "Storage", "Limits", "Audit")
    )
    assert compile_text(f"{dense}\n\n{more}").confidence == "high"
    assert compile_text("[Project Name]").confidence == "low"


# ---------------------------------------------------------------- concept names


@pytest.mark.parametrize(
    ("hint", "text", "concept"),
    [
        ("activeContext", "# Active Context\n\nWork in progress.", "active-context"),
        ("systemPatterns", "Patterns.", "system-patterns"),
        ("进度报告", "# 项目进度报告\n\n本周完成了重构。", "xiangmu-jindu-baogao"),
        ("检查清单", "# Release checklist\n\nSteps before a release.", "release-checklist"),
        ("кэширование", "Кэш ответов в Redis.", "keshirovanie"),
        ("通知設計", "# 通知の設計\n\nWebSocketで通知を送ります。", "tsuuchi-no-sekkei"),
        ("caffè", "Il caffè del mattino.", "caffe"),
    ],
)
def test_concept_names_are_readable_slugs(hint: str, text: str, concept: str) -> None:
    assert compile_text(text, hint).concept == concept


def test_a_keyword_is_claimed_by_at_most_three_files_of_a_bank() -> None:
    files = [
        BankFile(
            f"s{i}.md", f"# Kafka {i}\n\nKafka carries the worker{i} events; Kafka keeps the queue{i} order."
        )
        for i in range(4)
    ] + [
        BankFile(f"t{i}.md", f"# Cron {i}\n\nThe cron{i} job archives the ledger{i} nightly.")
        for i in range(6)
    ]
    answers = compile_bank(files)
    claimants = [rel for rel, a in answers.items() if "kafka" in (k.casefold() for k in a.answers_when)]
    assert 1 <= len(claimants) <= 3
    assert all(f"worker{i}" in answers[f"s{i}.md"].answers_when for i in range(4))


@pytest.mark.parametrize(
    ("title", "lead"),
    [
        ("4. A GraphQL gateway", "A GraphQL gateway"),
        ("ADR-0007: Observability", "Observability"),
        ("v2 API", "v2 API"),
    ],
)
def test_a_record_number_is_not_part_of_the_title(title: str, lead: str) -> None:
    tldr = compile_text(f"# {title}\n\nThe tracking page called six REST endpoints to show one parcel.").tldr
    assert tldr == f"{lead}: The tracking page called six REST endpoints to show one parcel."


def test_a_japanese_stack_table_names_its_technologies() -> None:
    keywords = [k.casefold() for k in compile_file("japanese-stack.md").answers_when]
    assert {"postgresql", "redis", "celery"} <= set(keywords)


def test_a_line_pasted_twice_counts_once() -> None:
    line = "- Upload handling respects quota limits for every tenant."
    text = f"# Uploads\n\n{line}\n\n## Storage\n\nFiles go to S3 buckets per tenant.\n\n{line}\n"
    keywords = compile_text(text).answers_when
    assert "handling respects" not in keywords and "respects quota" not in keywords
