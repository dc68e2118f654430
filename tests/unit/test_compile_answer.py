"""The answer contract: parsing a model's reply, normalising it, and what still needs a repair."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ckp_lsp.core.compile.answer import (
    answer_problems,
    normalize_answer,
    parse_answer,
    sentence_count,
    slugify,
)
from ckp_lsp.core.compile.model import Answer, CompileError

MINIMAL = {"TLDR": "Tokens.", "ANSWERS_WHEN": ["jwt"]}
KNOWN = {"oauth2", "http-headers", "database", "sessions", "cors", "tls", "dns", "cache"}


def answer_json(**fields: Any) -> str:
    """A JSON answer text: the minimal answer with `fields` added or replaced."""
    return json.dumps({**MINIMAL, **fields})


# --- parse_answer ---


def test_bare_object_is_parsed_into_all_fields() -> None:
    text = json.dumps(
        {
            "TLDR": "JWT tokens.",
            "ANSWERS_WHEN": ["jwt", "token"],
            "SIMILAR_HIGH": ["oauth2"],
            "SIMILAR_MID": ["http-headers"],
            "CONFIDENCE": "high",
            "CONCEPT": "jwt",
        }
    )
    assert parse_answer(text) == Answer(
        tldr="JWT tokens.",
        answers_when=["jwt", "token"],
        similar_high=["oauth2"],
        similar_mid=["http-headers"],
        confidence="high",
        concept="jwt",
    )


@pytest.mark.parametrize(
    "text",
    [
        f"```json\n{answer_json()}\n```",
        f"```JSON\n{answer_json()}\n```",
        f"```\n{answer_json()}\n```",
        f"  \n\n```json\n  {answer_json()}  \n```\n\n",
        f"\r\n```json\r\n{answer_json()}\r\n```\r\n",
        f"   {answer_json()}   \n",
        f"```json {answer_json()} ```",
    ],
)
def test_fenced_or_padded_object_is_accepted(text: str) -> None:
    assert parse_answer(text) == Answer(tldr="Tokens.", answers_when=["jwt"])


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("Here is the header you asked for.", "not a JSON header object"),
        (f"Sure!\n```json\n{answer_json()}\n```", "not a JSON header object"),
        (f"{answer_json()}\nHope this helps!", "not a JSON header object"),
        ("```json\n{broken\n```", "not a JSON header object"),
        ("[1, 2]", "JSON that is an array, not a header object"),
        ('"just a string"', "JSON that is a string, not a header object"),
        ("", "answered with nothing"),
        ("   \n", "answered with nothing"),
    ],
)
def test_anything_but_an_object_is_a_compile_error(text: str, what: str) -> None:
    with pytest.raises(CompileError) as info:
        parse_answer(text)
    assert what in str(info.value)
    assert "try again or choose another model" in str(info.value)


@pytest.mark.parametrize(
    ("data", "what"),
    [
        ({"ANSWERS_WHEN": ["jwt"]}, "has no TLDR"),
        ({"TLDR": "Tokens."}, "has no ANSWERS_WHEN"),
        ({}, "has no TLDR and no ANSWERS_WHEN"),
        ({"TLDR": None, "ANSWERS_WHEN": ["jwt"]}, "has no TLDR"),
        ({"TLDR": 3, "ANSWERS_WHEN": ["jwt"]}, "TLDR is a number, not a string"),
        ({"TLDR": "T.", "ANSWERS_WHEN": {"a": 1}}, "ANSWERS_WHEN is an object"),
        ({"TLDR": "T.", "ANSWERS_WHEN": ["a", 2]}, "ANSWERS_WHEN is an array, not a list of strings"),
        ({"TLDR": "T.", "ANSWERS_WHEN": ["a"], "SIMILAR_HIGH": 5}, "SIMILAR_HIGH is a number"),
        ({"TLDR": "T.", "ANSWERS_WHEN": ["a"], "SIMILAR_MID": [None]}, "SIMILAR_MID is an array"),
        ({"TLDR": "T.", "ANSWERS_WHEN": ["a"], "CONFIDENCE": 0.9}, "CONFIDENCE is a number"),
        ({"TLDR": "T.", "ANSWERS_WHEN": ["a"], "CONCEPT": ["x"]}, "CONCEPT is an array"),
    ],
)
def test_missing_fields_or_wrong_types_are_compile_errors(data: dict[str, Any], what: str) -> None:
    with pytest.raises(CompileError) as info:
        parse_answer(json.dumps(data))
    assert what in str(info.value)
    assert "try again or choose another model" in str(info.value)


def test_lists_may_come_as_comma_separated_strings() -> None:
    answer = parse_answer(
        answer_json(
            ANSWERS_WHEN="jwt, access token ,refresh",
            SIMILAR_HIGH="oauth2, sessions",
            SIMILAR_MID="cors",
        )
    )
    assert answer.answers_when == ["jwt", "access token", "refresh"]
    assert answer.similar_high == ["oauth2", "sessions"]
    assert answer.similar_mid == ["cors"]


def test_list_items_holding_commas_are_split() -> None:
    answer = parse_answer(answer_json(ANSWERS_WHEN=["jwt, token", "refresh"]))
    assert answer.answers_when == ["jwt", "token", "refresh"]


def test_relationship_dates_are_stripped() -> None:
    answer = parse_answer(
        answer_json(SIMILAR_HIGH=["oauth2:2025-05", "sessions"], SIMILAR_MID="cors:2025-05-01, tls")
    )
    assert answer.similar_high == ["oauth2", "sessions"]
    assert answer.similar_mid == ["cors", "tls"]


def test_optional_fields_default_and_null_means_absent() -> None:
    answer = parse_answer(answer_json(SIMILAR_HIGH=None, SIMILAR_MID=None, CONFIDENCE=None, CONCEPT=None))
    assert (answer.similar_high, answer.similar_mid) == ([], [])
    assert answer.confidence == "medium"
    assert answer.concept is None


def test_keys_are_read_case_insensitively_and_extra_keys_ignored() -> None:
    answer = parse_answer('{"tldr": "Tokens.", "answers_when": ["jwt"], "reasoning": "..."}')
    assert answer == Answer(tldr="Tokens.", answers_when=["jwt"])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from([*MINIMAL, "SIMILAR_HIGH", "CONFIDENCE", "x"]), inner)
    ),
    max_leaves=12,
)


@given(st.text() | json_values.map(json.dumps) | st.builds(lambda n: "[" * n, st.integers(1, 10**5)))
def test_parse_answer_only_ever_raises_compile_error(text: str) -> None:
    try:
        answer = parse_answer(text)
    except CompileError as exc:
        assert "try again or choose another model" in str(exc)
    else:
        assert isinstance(answer.tldr, str)
        assert all(isinstance(k, str) and k for k in answer.answers_when)


# --- normalize_answer ---


def normalized(self_concept: str | None = "jwt", **fields: Any) -> Answer:
    """`fields` as an Answer, normalised against KNOWN."""
    answer = Answer(**{"tldr": "Tokens.", "answers_when": ["jwt"], **fields})
    return normalize_answer(answer, KNOWN, self_concept)


def test_unknown_concepts_are_dropped() -> None:
    answer = normalized(similar_high=["oauth2", "nope"], similar_mid=["ghost", "cors"])
    assert (answer.similar_high, answer.similar_mid) == (["oauth2"], ["cors"])


def test_concepts_are_matched_after_strip_and_lower() -> None:
    answer = normalized(similar_high=[" OAuth2 "], similar_mid=["CORS"])
    assert (answer.similar_high, answer.similar_mid) == (["oauth2"], ["cors"])


def test_known_is_case_sensitive() -> None:
    answer = normalize_answer(Answer("T.", ["k"], similar_high=["Mixed"]), {"Mixed"}, None)
    assert answer.similar_high == []


def test_self_references_are_dropped() -> None:
    answer = normalize_answer(
        Answer("T.", ["k"], similar_high=["jwt", "oauth2"], similar_mid=["jwt"]),
        KNOWN | {"jwt"},
        "jwt",
    )
    assert (answer.similar_high, answer.similar_mid) == (["oauth2"], [])


def test_new_concept_of_a_file_without_one_is_not_related_to_itself() -> None:
    answer = normalize_answer(
        Answer("T.", ["k"], similar_high=["tokens", "oauth2"], concept="Tokens"),
        KNOWN | {"tokens-old"},
        None,
    )
    assert answer.concept == "tokens"
    assert answer.similar_high == ["oauth2"]


def test_duplicates_within_a_tier_are_dropped() -> None:
    answer = normalized(similar_high=["oauth2", "OAuth2", "oauth2"], similar_mid=["cors", "cors"])
    assert (answer.similar_high, answer.similar_mid) == (["oauth2"], ["cors"])


def test_a_concept_in_both_tiers_keeps_high() -> None:
    answer = normalized(similar_high=["oauth2"], similar_mid=["oauth2", "cors"])
    assert (answer.similar_high, answer.similar_mid) == (["oauth2"], ["cors"])


def test_caps_cut_by_the_models_order() -> None:
    answer = normalized(
        similar_high=["tls", "dns", "cache", "cors", "oauth2"],
        similar_mid=["database", "sessions", "http-headers", "nope", "tls", "oauth2", "dns"],
    )
    assert answer.similar_high == ["tls", "dns", "cache"]
    # tls and dns are HIGH; cut HIGH entries the model also listed as MID stay MID.
    assert answer.similar_mid == ["database", "sessions", "http-headers", "oauth2"]


def test_caps_count_after_unknown_entries_are_dropped() -> None:
    answer = normalized(similar_high=["ghost1", "ghost2", "ghost3", "oauth2", "cors"])
    assert answer.similar_high == ["oauth2", "cors"]


def test_keywords_deduped_case_insensitively_first_spelling_kept() -> None:
    answer = normalized(answers_when=["JWT", "jwt", " Token  refresh ", "token refresh", ""])
    assert answer.answers_when == ["JWT", "Token refresh"]


def test_keywords_are_cut_to_twenty() -> None:
    answer = normalized(answers_when=[f"k{i}" for i in range(30)])
    assert answer.answers_when == [f"k{i}" for i in range(20)]


def test_confidence_is_lower_cased_and_tldr_folded_to_one_line() -> None:
    answer = normalized(confidence=" HIGH ", tldr="  JWT\n tokens.  ")
    assert answer.confidence == "high"
    assert answer.tldr == "JWT tokens."


def test_concept_is_kept_and_slugified_only_for_a_file_without_one() -> None:
    assert normalized(None, concept="JWT Authentication").concept == "jwt-authentication"
    assert normalized("jwt", concept="something-else").concept is None
    assert normalized(None, concept="!!!").concept is None
    assert normalized(None).concept is None


def test_normalize_leaves_its_input_alone() -> None:
    original = Answer("T.", ["a", "A"], similar_high=["OAuth2"], confidence="HIGH")
    normalize_answer(original, KNOWN, "jwt")
    assert original == Answer("T.", ["a", "A"], similar_high=["OAuth2"], confidence="HIGH")


names = st.sampled_from(sorted(KNOWN | {"jwt", "ghost", "OAuth2", " cors "}))


@given(st.lists(names, max_size=12), st.lists(names, max_size=12))
def test_normalized_relationships_always_keep_the_rules(high: list[str], mid: list[str]) -> None:
    answer = normalized(similar_high=high, similar_mid=mid)
    assert len(answer.similar_high) <= 3 and len(answer.similar_mid) <= 5
    both = answer.similar_high + answer.similar_mid
    assert len(both) == len(set(both))
    assert set(both) <= KNOWN
    assert "jwt" not in both


# --- answer_problems ---


def test_a_good_answer_has_no_problems() -> None:
    assert answer_problems(Answer("JWT tokens, e.g. access tokens.", ["jwt"])) == []


@pytest.mark.parametrize(
    ("answer", "what"),
    [
        (Answer("", ["jwt"]), "TLDR is empty"),
        (Answer("   ", ["jwt"]), "TLDR is empty"),
        (Answer("x" * 201, ["jwt"]), "TLDR is 201 characters long; shorten it to at most 200"),
        (Answer("First sentence. Second one.", ["jwt"]), "TLDR has more than one sentence"),
        (Answer("Tokens.", []), "ANSWERS_WHEN is empty"),
        (Answer("Tokens.", ["", " "]), "ANSWERS_WHEN is empty"),
        (Answer("Tokens.", ["jwt"], confidence="very high"), "CONFIDENCE is 'very high'"),
        (Answer("Tokens.", ["jwt"], concept="JWT Auth"), "CONCEPT 'JWT Auth' is not a valid"),
        (Answer("Tokens.", ["jwt"], concept="-jwt"), "CONCEPT '-jwt' is not a valid"),
    ],
)
def test_each_broken_rule_is_named(answer: Answer, what: str) -> None:
    problems = answer_problems(answer)
    assert len(problems) == 1
    assert what in problems[0]


def test_exactly_200_characters_is_fine() -> None:
    assert answer_problems(Answer("x" * 199 + ".", ["jwt"])) == []


def test_missing_concept_is_a_problem_only_when_the_file_needs_one() -> None:
    answer = Answer("Tokens.", ["jwt"])
    assert answer_problems(answer) == []
    (problem,) = answer_problems(answer, needs_concept=True)
    assert "CONCEPT is missing" in problem


def test_a_new_concept_taken_by_another_file_is_a_problem() -> None:
    (problem,) = answer_problems(Answer("Tokens.", ["jwt"], concept="oauth2"), taken=KNOWN)
    assert "already the concept of another file" in problem


def test_several_problems_are_all_listed() -> None:
    problems = answer_problems(Answer("", [], confidence="sure"), needs_concept=True)
    assert len(problems) == 4


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("One sentence.", 1),
        ("One sentence without a stop", 1),
        ("Uses Node.js and v1.2 of the API.", 1),
        ("Covers tokens, e.g. JWT and opaque ones, i.e. Bearer tokens.", 1),
        ("Tokens, sessions, etc. Also cookies.", 1),
        ("First. Second.", 2),
        ("What is it? A token!", 2),
        ('Ends with a quote." Then more.', 2),
        ("", 0),
    ],
)
def test_sentence_count(text: str, count: int) -> None:
    assert sentence_count(text) == count


# --- slugify ---


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("JWT Authentication", "jwt-authentication"),
        ("jwt", "jwt"),
        ("  OAuth 2.0  ", "oauth-2.0"),
        ("C++ / Rust: interop", "c-rust-interop"),
        ("--_.leading", "leading"),
        ("Café Déjà Vu", "cafe-deja-vu"),
        ("进度报告", "jindu-baogao"),
        ("Активный контекст", "aktivnyy-kontekst"),
        ("snake_case.name", "snake_case.name"),
        ("API - Gateway -- v2", "api-gateway-v2"),
        ("!!!", ""),
        ("", ""),
    ],
)
def test_slugify(text: str, slug: str) -> None:
    assert slugify(text) == slug


@given(st.text())
def test_slugify_gives_a_valid_concept_or_nothing(text: str) -> None:
    slug = slugify(text)
    assert slug == "" or re.fullmatch(r"[a-z0-9][a-z0-9._-]*", slug)
    assert slugify(slug) == slug
