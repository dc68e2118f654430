"""The offline compiler: TLDR, keywords, concept slug, relationships and confidence from a body."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ckp_lsp.core.compile.answer import answer_problems, normalize_answer, sentence_count
from ckp_lsp.core.compile.model import Answer, CompileInput, ConceptSummary
from ckp_lsp.core.compile.offline import MAX_KEYWORDS, MAX_TLDR, STOP_WORDS, compile_offline
from ckp_lsp.core.compile.offline.reading import read_body
from ckp_lsp.core.compile.offline.relationships import OFFLINE_HIGH, relationship_cap
from ckp_lsp.core.compile.offline.terms import Corpus
from ckp_lsp.core.format.limits import MAX_HIGH, MAX_MID

DATA = Path(__file__).resolve().parent.parent / "data" / "offline"
CONCEPT_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
SECOND_SENTENCE = re.compile(r"[.!?](?=\s+[A-Z0-9])")  # as the CKP020 check reads a TLDR

OAUTH2 = ConceptSummary(
    "oauth2",
    "OAuth2 authorization framework: grant types, access tokens, refresh tokens and scopes.",
    ("oauth2", "authorization code", "access token", "refresh token", "grant type", "scope"),
)
HTTP_HEADERS = ConceptSummary(
    "http-headers",
    "HTTP request and response headers such as Authorization, Content-Type and CORS.",
    ("http headers", "authorization header", "bearer", "content-type", "cors", "cache-control"),
)
DATABASE = ConceptSummary(
    "database",
    "PostgreSQL schema, migrations and connection pooling.",
    ("database", "postgres", "sql", "migration", "schema", "connection pool"),
)
GARDENING = ConceptSummary(
    "gardening", "Growing tomatoes and herbs on a balcony.", ("tomatoes", "compost", "watering")
)
BANK = (OAUTH2, HTTP_HEADERS, DATABASE, GARDENING)


def body(name: str) -> str:
    """A test body from tests/data/offline."""
    return (DATA / name).read_text(encoding="utf-8")


def compile_body(
    text: str,
    concept: str | None = "jwt",
    others: tuple[ConceptSummary, ...] = BANK,
    path_hint: str = "",
) -> Answer:
    """Compile a body with the test bank."""
    return compile_offline(CompileInput(text, concept, others, path_hint))


def folded(keywords: list[str]) -> list[str]:
    """Keywords case-folded, for membership checks."""
    return [k.casefold() for k in keywords]


# ---------------------------------------------------------------- TLDR


def test_tldr_is_the_first_explanatory_sentence_as_plain_text() -> None:
    answer = compile_body(body("jwt.md"))
    assert answer.tldr == (
        "JWT authentication lets the API trust a request without a session lookup: the auth "
        "service signs a short-lived access token and every service verifies the signature locally."
    )


def test_tldr_skips_front_matter_comments_badges_headings_and_markup() -> None:
    tldr = compile_body(body("noisy.md")).tldr
    assert tldr == (
        "Clients of the public API get 100 requests per minute, counted per API key by the "
        "RateLimiter middleware."
    )
    assert not re.search(r"[*`\[\]<>]", tldr)
    assert "comment" not in tldr and "front matter" not in tldr


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: Tokens\ntags: [auth]\n---\nTokens are signed by the auth service.",
        "CONCEPT: jwt\nTLDR: old\n\nTokens are signed by the auth service.",
        "\ufeff<!-- draft -->\r\nTokens are signed by the auth service.\r\n",
    ],
)
def test_tldr_skips_header_remnants(text: str) -> None:
    assert compile_body(text).tldr == "Tokens are signed by the auth service."


@pytest.mark.parametrize(
    ("text", "tldr"),
    [
        pytest.param(
            "# Deploy\n\n```sh\nmake deploy now please\n```\n\n| a | b |\n|---|---|\n| x y z | w |\n\n"
            "- [Dashboard](https://x.example)\n\nDeployments run from the main branch only.",
            "Deployments run from the main branch only.",
            id="skips-code-tables-and-lists-of-links",
        ),
        pytest.param(
            "Tokens are signed with RS256. They expire after fifteen minutes. Rotate keys yearly.",
            "Tokens are signed with RS256.",
            id="one-sentence",
        ),
        pytest.param(
            "Sign every call with a token, e.g. a JWT from the auth service. Then verify it.",
            "Sign every call with a token, e.g. a JWT from the auth service.",
            id="keeps-abbreviations-inside-the-sentence",
        ),
        pytest.param(
            "Use a signed token, e.g. JWT, issued by Dr. Who at approx. 5 pm.",
            "Use a signed token, e.g., JWT, issued by Dr Who at approx 5 pm.",
            id="no-inner-stop-that-reads-as-a-second-sentence",
        ),
        pytest.param(
            "Example:\n\nThe guard checks every route that is not marked public.",
            "The guard checks every route that is not marked public.",
            id="skips-a-short-label-before-the-prose",
        ),
    ],
)
def test_tldr_is_one_sentence_of_the_prose(text: str, tldr: str) -> None:
    """Code, tables, lists of links and short labels are skipped; the first sentence is taken whole,
    with no stop inside it that reads as the end of a sentence."""
    assert compile_body(text).tldr == tldr


def test_long_sentence_is_cut_at_a_word_boundary_and_ends_with_a_period() -> None:
    words = [f"word{i}" for i in range(80)]
    tldr = compile_body(" ".join(words) + ".").tldr
    assert len(tldr) <= MAX_TLDR
    assert tldr.endswith(".")
    kept = tldr[:-1].split(" ")
    assert kept == words[: len(kept)]  # whole words only, in order
    assert len(tldr) > MAX_TLDR - 12


def test_tldr_without_prose_is_made_from_the_first_heading_and_keywords() -> None:
    answer = compile_body(body("no-prose.md"))
    assert answer.tldr == "Deployment Runbook: build, command, dashboard."
    assert all(k in answer.answers_when for k in ("build", "command", "dashboard"))


@pytest.mark.parametrize("text", ["", "   \n\n", "```\ncode only\n```", "<!-- nothing -->"])
def test_empty_body_gives_a_tldr_a_keyword_and_low_confidence(text: str) -> None:
    answer = compile_body(text, concept=None, path_hint="")
    assert answer.tldr and len(answer.tldr) <= MAX_TLDR
    assert len(answer.answers_when) >= 1
    assert answer.confidence == "low"


def test_empty_body_with_a_concept_names_it() -> None:
    answer = compile_body("", concept="jwt")
    assert answer.tldr == "Notes on jwt."
    assert answer.answers_when == ["jwt"]


# ---------------------------------------------------------------- ANSWERS_WHEN


def test_keywords_start_with_the_concept_and_come_from_headings_code_and_terms() -> None:
    keywords = compile_body(body("jwt.md")).answers_when
    assert keywords[0] == "jwt"
    assert 5 <= len(keywords) <= MAX_KEYWORDS
    assert "JwtAuthGuard" in keywords  # identifier from code, case kept
    assert {"refresh", "access", "claims", "token"} <= set(keywords)


def test_keywords_are_unique_short_and_lower_case_except_identifiers() -> None:
    keywords = compile_body(body("jwt.md")).answers_when
    assert len(set(folded(keywords))) == len(keywords)
    for keyword in keywords:
        assert 1 <= len(keyword.split()) <= 3
        assert "," not in keyword and "\n" not in keyword
        identifier = "_" in keyword or re.search(r"[a-z][A-Z]", keyword)
        assert identifier or keyword == keyword.casefold()


def test_keywords_leave_out_stop_words_and_generic_headings() -> None:
    text = "# Overview\n\n## Notes\n\nThe cache keeps the rendered pages of the catalogue warm."
    keywords = folded(compile_body(text, concept="cache").answers_when)
    assert not set(keywords) & STOP_WORDS
    assert "overview" not in keywords and "notes" not in keywords
    assert "catalogue" in keywords


def test_keywords_include_inline_code_identifiers() -> None:
    text = "Call `fetch_sdmx()` to download a dataflow; `IstatModule` schedules it nightly."
    keywords = compile_body(text, concept="istat").answers_when
    assert "fetch_sdmx" in keywords and "IstatModule" in keywords


def test_keywords_do_not_claim_another_concepts_name() -> None:
    # oauth2 is mentioned, but as a keyword it would route oauth2 questions here
    assert "oauth2" not in folded(compile_body(body("jwt.md")).answers_when)


def test_keywords_merge_plurals() -> None:
    text = "Tokens expire. A token is signed. Each token has claims and the tokens rotate."
    keywords = folded(compile_body(text, concept="jwt").answers_when)
    assert ("token" in keywords) != ("tokens" in keywords)


def test_keywords_merge_the_inflected_forms_of_a_russian_word() -> None:
    text = (
        "Отмена записи возможна за два часа. После отмены записи деньги возвращаются, "
        "а об отмене записи приходит письмо."
    )
    keywords = folded(compile_body(text, concept="booking").answers_when)
    assert sum(k in keywords for k in ("отмена", "отмены", "отмене")) == 1
    assert sum(k in keywords for k in ("записи", "запись")) == 1


def test_the_words_of_a_russian_heading_are_keywords_before_its_phrase() -> None:
    """A keyword routes a question holding all its words: `возврат` and `денег` each route more
    questions than the phrase, which adds nothing once both are keywords."""
    text = (
        "# Платежи\n\n## Возврат денег\n\nПри отмене записи возврат денег делаем автоматически, "
        "деньги приходят на карту.\n"
    )
    keywords = folded(compile_body(text, concept="payments").answers_when)
    assert {"возврат", "денег"} <= set(keywords) and "возврат денег" not in keywords


def test_a_short_name_only_code_uses_is_no_keyword() -> None:
    """`tid` in a JSON example and backticks is a field; `TTL`, written in prose, is a topic."""
    text = (
        "# Sessions\n\nEach session carries the tenant in `tid`; the `tid` claim is checked on every "
        "request. The session TTL is short, and the TTL is renewed on use.\n\n"
        '```json\n{"tid": "058091", "sid": "s1"}\n```\n'
    )
    terms = read_body(text, Corpus()).terms
    assert terms["tid"].code_only and not terms["ttl"].code_only
    keywords = folded(compile_body(text, concept="sessions", others=()).answers_when)
    assert "tid" not in keywords
    assert "ttl" in keywords


def test_a_unit_alone_is_no_keyword_but_a_phrase_with_one_is() -> None:
    text = (
        "Access tokens expire after 15 minutes, refresh tokens after 30 minutes of inactivity; "
        "a revoked token is refused within 5 minutes. Sleep hours are logged nightly, and the "
        "sleep hours chart shows the week."
    )
    keywords = folded(compile_body(text, concept="health", others=()).answers_when)
    assert "minutes" not in keywords
    assert "sleep hours" in keywords


def test_a_word_used_as_a_verb_weighs_less_than_a_noun_used_as_often() -> None:
    text = (
        "Presenting a used token revokes the whole family. Logging out revokes the session, "
        "and an administrator revokes every login. Tokens of a family rotate; the family is "
        "stored, and its family ends with the last token."
    )
    terms = read_body(text, Corpus()).terms
    assert terms["revoke"].score < terms["family"].score / 1.5  # both used three times


def test_keywords_never_exceed_twenty_on_a_large_body() -> None:
    text = "\n\n".join(f"## Topic{i}\n\nThe component{i} handles request{i} quickly." for i in range(60))
    keywords = compile_body(text).answers_when
    assert 5 <= len(keywords) <= 20


# ---------------------------------------------------------------- CONCEPT


@pytest.mark.parametrize(
    ("path_hint", "expected"),
    [
        ("jwt", "jwt"),
        ("JWT Authentication", "jwt-authentication"),
        ("notes/Rate_Limiting.md", "rate-limiting"),
        ("Café Crème", "cafe-creme"),
    ],
)
def test_concept_slug_comes_from_the_path_hint(path_hint: str, expected: str) -> None:
    answer = compile_body("Some text about it here.", concept=None, path_hint=path_hint)
    assert answer.concept == expected


def test_concept_slug_falls_back_to_the_first_heading() -> None:
    answer = compile_body("# Rate Limiting!\n\nText.", concept=None, path_hint="")
    assert answer.concept == "rate-limiting"


def test_concept_slug_is_unique_in_the_bank() -> None:
    answer = compile_body("Text about headers.", concept=None, path_hint="http-headers")
    assert answer.concept == "http-headers-2"


def test_concept_is_only_compiled_when_the_file_has_none() -> None:
    assert compile_body("Text.", concept="jwt", path_hint="other").concept is None
    slug = compile_body("", concept=None, path_hint="").concept
    assert slug and CONCEPT_RE.match(slug)


# ---------------------------------------------------------------- SIMILAR_HIGH / SIMILAR_MID


def test_high_needs_evidence_both_ways_and_a_one_way_dependency_is_mid() -> None:
    answer = compile_body(body("jwt.md"))
    assert answer.similar_high == [] and answer.similar_mid == ["oauth2", "http-headers"]
    # oauth2's own header listing jwt stands for its side: now the evidence is mutual.
    listed = (replace(OAUTH2, similar=("jwt",)), HTTP_HEADERS, DATABASE, GARDENING)
    answer = compile_body(body("jwt.md"), others=listed)
    assert answer.similar_high == ["oauth2"] and answer.similar_mid == ["http-headers"]


def test_unrelated_and_passing_mentions_are_not_listed() -> None:
    answer = compile_body(body("jwt.md"))
    listed = answer.similar_high + answer.similar_mid
    assert "gardening" not in listed  # unrelated
    assert "database" not in listed  # one passing mention of a common word, nothing shared


def test_the_file_itself_is_never_listed() -> None:
    me = ConceptSummary("jwt", "JSON Web Tokens.", ("jwt", "token", "claims", "refresh token"))
    answer = compile_body(body("jwt.md"), concept="jwt", others=(*BANK, me))
    assert "jwt" not in answer.similar_high + answer.similar_mid


@pytest.mark.parametrize(
    "text",
    [
        "Login details are in [the token guide](../patterns/jwt.md#claims).",
        "Login details are in [[jwt]].",
        "Login details are in [[patterns/jwt|the token guide]].",
    ],
)
def test_a_link_to_a_concept_is_mid(text: str) -> None:
    jwt = ConceptSummary("jwt", "JSON Web Tokens.", ("token", "claims"))
    answer = compile_body(text, concept="auth", others=(jwt, GARDENING))
    assert answer.similar_mid == ["jwt"] and answer.similar_high == []


def test_keyword_overlap_without_a_mention_is_mid() -> None:
    text = (
        "The login page starts the authorization code flow; the server exchanges the code for "
        "an access token and a refresh token, limited to the scope the user accepted."
    )
    answer = compile_body(text, concept="login")
    assert answer.similar_mid == ["oauth2"] and answer.similar_high == []


def test_mentions_are_word_bounded() -> None:
    api = ConceptSummary("api", "The public REST API.", ("endpoint", "rest"))
    text = "Rapid capital growth in the jwt_helper module, about endpoints and rest."
    jwt = ConceptSummary("jwt", "JSON Web Tokens.", ("helper", "module"))
    answer = compile_body(text, concept="growth", others=(api, jwt))
    assert answer.similar_high == [] and answer.similar_mid == []


def test_multi_word_concept_names_match_with_spaces_or_hyphens() -> None:
    text = "Set the HTTP headers once. The bearer token goes in the authorization header."
    answer = compile_body(text, concept="proxy", others=(HTTP_HEADERS,))
    assert answer.similar_high + answer.similar_mid == ["http-headers"]


def test_caps_are_respected_and_overflow_is_ordered_by_strength() -> None:
    others = tuple(
        ConceptSummary(f"svc{i}", f"Service {i} worker.", (f"queue{i}", f"worker{i}", f"batch{i}"))
        for i in range(10)
    )
    text = "\n\n".join(
        f"Svc{i} uses queue{i} with worker{i} and batch{i}. " * (1 + (i % 3)) + f"Svc{i} again."
        for i in range(10)
    )
    # One way only: no HIGH, and no file pulls in much of the bank.
    answer = compile_body(text, concept="hub", others=others)
    assert answer.similar_high == [] and len(answer.similar_mid) == relationship_cap(11) == 2
    assert answer.similar_mid == ["svc2", "svc5"]  # mentioned most, ties by name
    # Both ways: HIGH, at most OFFLINE_HIGH of them, strongest first.
    mutual = tuple(replace(o, similar=("hub",)) for o in others)
    answer = compile_body(text, concept="hub", others=mutual)
    assert len(answer.similar_high) == OFFLINE_HIGH and answer.similar_high == ["svc2", "svc5"]
    assert not set(answer.similar_high) & set(answer.similar_mid)
    assert len(answer.similar_high + answer.similar_mid) <= relationship_cap(11)
    big = compile_body(
        text, concept="hub", others=others + tuple(ConceptSummary(f"x{i}", "X.") for i in range(30))
    )
    assert len(big.similar_high + big.similar_mid) <= relationship_cap(41) <= MAX_HIGH + MAX_MID


def test_fewer_are_written_when_fewer_qualify() -> None:
    answer = compile_body("Balcony gardening: tomatoes need daily watering.", concept="balcony")
    assert answer.similar_high == [] and answer.similar_mid == ["gardening"]


# ---------------------------------------------------------------- CONFIDENCE


def test_confidence_follows_the_size_of_the_body() -> None:
    assert compile_body(body("jwt.md")).confidence == "high"
    medium = "Tokens are signed with RS256 and verified by the guard on every request."
    assert compile_body(medium).confidence == "medium"
    assert compile_body("JWT.").confidence == "low"


# ---------------------------------------------------------------- determinism and robustness


def test_same_input_gives_the_same_answer_whatever_the_order_of_others() -> None:
    text = body("jwt.md")
    first = compile_body(text, concept=None, path_hint="jwt")
    assert compile_body(text, concept=None, path_hint="jwt") == first
    assert compile_body(text, concept=None, others=tuple(reversed(BANK)), path_hint="jwt") == first


def test_a_huge_binary_ish_body_gives_a_valid_answer() -> None:
    noise = bytes(range(256)).decode("latin-1") * 4000 + "[" * 50_000 + "**_`" * 20_000
    answer = compile_body(noise, concept=None, path_hint="")
    assert answer.tldr and 1 <= len(answer.answers_when) <= 20


MARKDOWN_BITS = st.sampled_from(
    [
        "# ",
        "## ",
        "\n",
        "\n\n",
        "```",
        "~~~",
        "`",
        "*",
        "**",
        "_",
        "__",
        "[",
        "]",
        "(",
        ")",
        "[[",
        "]]",
        "<!--",
        "-->",
        "<div>",
        "|",
        "---",
        "- ",
        "1. ",
        "> ",
        "jwt",
        "oauth2",
        "http-headers",
        "database",
        "token.md",
        "(jwt.md)",
        "e.g.",
        ". ",
        "JwtAuthGuard",
        "fetch_sdmx",
        "CONCEPT: x",
        "\r\n",
        "\t",
        "    ",
        "\x00",
        "\u2028",
        "\ufeff",
        "é",
        "ß",
    ]
)
TEXT = st.one_of(
    st.text(max_size=400),
    st.lists(st.one_of(MARKDOWN_BITS, st.text(max_size=12)), max_size=80).map("".join),
)
OTHERS = st.lists(
    st.builds(
        ConceptSummary,
        st.one_of(st.sampled_from(["jwt", "oauth2", "http-headers", "database", "x"]), st.text()),
        st.text(max_size=60),
        st.lists(st.text(max_size=15), max_size=6).map(tuple),
    ),
    max_size=8,
).map(tuple)


@pytest.mark.scale
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=TEXT,
    concept=st.one_of(st.none(), st.sampled_from(["jwt", "oauth2", ""]), st.text(max_size=20)),
    others=OTHERS,
    path_hint=st.text(max_size=30),
)
def test_any_text_compiles_to_a_valid_answer(
    text: str, concept: str | None, others: tuple[ConceptSummary, ...], path_hint: str
) -> None:
    answer = compile_offline(CompileInput(text, concept, others, path_hint))
    assert answer.tldr.strip() and len(answer.tldr) <= MAX_TLDR and "\n" not in answer.tldr
    assert not SECOND_SENTENCE.search(answer.tldr) and sentence_count(answer.tldr) == 1
    assert 1 <= len(answer.answers_when) <= 20
    assert len({k.casefold() for k in answer.answers_when}) == len(answer.answers_when)
    assert all(k.strip() and "," not in k and "\n" not in k for k in answer.answers_when)
    assert len(answer.similar_high) <= 3 and len(answer.similar_mid) <= 5
    listed = answer.similar_high + answer.similar_mid
    assert len(set(listed)) == len(listed)
    assert set(listed) <= {o.concept for o in others}
    own = concept if concept is not None else answer.concept
    assert own is not None
    assert own.strip().casefold() not in {c.strip().casefold() for c in listed}
    assert answer.confidence in ("high", "medium", "low")
    if concept is None:
        assert answer.concept and CONCEPT_RE.match(answer.concept)
    else:
        assert answer.concept is None
    assert compile_offline(CompileInput(text, concept, others, path_hint)) == answer


@pytest.mark.scale
@settings(max_examples=150, deadline=None)
@given(text=TEXT, others=OTHERS)
def test_any_answer_passes_the_answer_contract_unchanged(
    text: str, others: tuple[ConceptSummary, ...]
) -> None:
    known = [o.concept for o in others]
    answer = compile_offline(CompileInput(text, None, others, ""))
    assert answer_problems(answer, needs_concept=True, taken=set(known)) == []
    normal = normalize_answer(answer, known, None)
    assert normal.answers_when == answer.answers_when
    assert normal.concept == answer.concept
