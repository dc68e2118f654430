"""Recompiling a header with LLM providers (SPEC §7) against a local fake speaking the real wire
formats, and with a command: the answer contract, the one repair round, errors, the cache."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.compile import compiler
from ckp_lsp.core.compile.compiler import Compiled, compile_header
from ckp_lsp.core.compile.model import CompileError
from ckp_lsp.core.compile.providers import Provider
from ckp_lsp.core.edit.rewrite import body_of
from ckp_lsp.core.format.fields import LIST_FIELDS
from ckp_lsp.core.format.header import parse_header
from ckp_lsp.core.format.knowledge import read_knowledge_file
from ckp_lsp.core.format.text import decode
from ckp_lsp.core.project.config import LlmConfig
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.clock import this_month, today
from ckp_lsp.faces.llm.providers import provider_for
from tests.fake_llm import FakeLLM, Received, Reply, every_time

DATA = Path(__file__).resolve().parent.parent / "data" / "compile"
BANK = DATA / "bank" / "memory-bank"
ANSWER_SCRIPT = DATA / "answer.py"
KEY = "sk-compile-test-5f3a9c-SECRET"
FLAVOURS = ["openai", "anthropic"]
ENV_KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def answer(**fields: Any) -> str:
    """A model reply: one JSON object, a good one unless ``fields`` change it."""
    base: dict[str, Any] = {
        "TLDR": "How the API issues, signs and rotates JWT access and refresh tokens.",
        "ANSWERS_WHEN": ["jwt", "access token", "refresh token", "RS256"],
        "SIMILAR_HIGH": ["oauth2"],
        "SIMILAR_MID": ["http-headers", "sessions"],
        "CONFIDENCE": "high",
    }
    base.update(fields)
    return json.dumps({k: v for k, v in base.items() if v is not None})


pytestmark = pytest.mark.usefixtures("empty_compile_cache")


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(BANK, today=today())


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM(api_key=KEY) as server:
        yield server


def llm(flavour: str, fake: FakeLLM) -> Provider:
    """The provider of ``flavour`` as the configuration builds it, pointed at the fake."""
    base = fake.openai_base_url if flavour == "openai" else fake.anthropic_base_url
    provider = provider_for(
        LlmConfig(provider=flavour, model="m-test", base_url=base), {ENV_KEYS[flavour]: KEY}
    )
    assert provider is not None
    return provider


def compile_jwt(bank: Bank, provider: Provider | None, timeout: float = 5.0) -> Compiled:
    return compile_header(bank, "jwt.md", jwt_text(), provider, timeout)


def jwt_text() -> str:
    return decode((BANK / "jwt.md").read_bytes())[0]


def values_of(text: str) -> dict[str, Any]:
    """The CKP fields of ``text``'s header: lists for list fields."""
    header = parse_header(text)
    assert header is not None and header.yaml_error is None
    return {f.key: [i.text for i in f.items] if f.key in LIST_FIELDS else f.value for f in header.fields}


def user_text(flavour: str, request: Received) -> str:
    """What a request asked the model (the user message), in its provider's format."""
    messages = request.body["messages"]
    return messages[-1]["content"] if flavour == "anthropic" else messages[1]["content"]


# --- a usable answer -------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_good_answer_becomes_the_header_dated_this_month(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(text=answer()))
    compiled = compile_jwt(bank, llm(flavour, fake))
    month = this_month()
    assert values_of(compiled.text) == {
        "CONCEPT": "jwt",
        "TLDR": "How the API issues, signs and rotates JWT access and refresh tokens.",
        "ANSWERS_WHEN": ["jwt", "access token", "refresh token", "RS256"],
        "SIMILAR_HIGH": [f"oauth2:{month}"],
        "SIMILAR_MID": [f"http-headers:{month}", f"sessions:{month}"],
        "CONFIDENCE": "high",
        "VALIDATED": month,
    }
    assert body_of(compiled.text) == body_of(jwt_text())
    assert compiled.text == compiled.header + jwt_text()[len(compiled.replaced) :]
    [request] = fake.received
    assert "rotated on every use" in user_text(flavour, request)  # the body was sent
    assert "rate-limiting" in user_text(flavour, request)  # and the bank's other concepts


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_fenced_answer_is_accepted(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(text=f"```json\n{answer(ANSWERS_WHEN=['jwt', 'fenced'])}\n```"))
    compiled = compile_jwt(bank, llm(flavour, fake))
    assert values_of(compiled.text)["ANSWERS_WHEN"] == ["jwt", "fenced"]
    assert len(fake.received) == 1


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_unknown_concepts_are_dropped(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(text=answer(SIMILAR_HIGH=["oauth2", "kerberos"], SIMILAR_MID=["ghost", "cors"])))
    values = values_of(compile_jwt(bank, llm(flavour, fake)).text)
    month = this_month()
    assert values["SIMILAR_HIGH"] == [f"oauth2:{month}"]
    assert values["SIMILAR_MID"] == [f"cors:{month}"]
    assert len(fake.received) == 1  # dropping is no reason for a repair round


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_lists_over_their_cap_are_cut_in_the_models_order(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    high = ["rate-limiting", "oauth2", "cors", "caching", "database"]
    mid = ["logging", "sessions", "http-headers", "csrf", "database", "caching", "cors"]
    keywords = [f"keyword {n}" for n in range(25)]
    fake.script(Reply(text=answer(SIMILAR_HIGH=high, SIMILAR_MID=mid, ANSWERS_WHEN=keywords)))
    values = values_of(compile_jwt(bank, llm(flavour, fake)).text)
    month = this_month()
    assert values["SIMILAR_HIGH"] == [f"{c}:{month}" for c in high[:3]]
    # HIGH is cut first; MID keeps its own order without the concepts already in HIGH.
    assert values["SIMILAR_MID"] == [
        f"{c}:{month}" for c in ["logging", "sessions", "http-headers", "csrf", "database"]
    ]
    assert values["ANSWERS_WHEN"] == keywords[:20]


# --- unusable answers ------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_answer_that_is_not_json_is_an_error(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(text="Sure! This file is about JWT tokens and how they are rotated."))
    with pytest.raises(CompileError, match="not a JSON header object"):
        compile_jwt(bank, llm(flavour, fake))
    assert len(fake.received) == 1
    assert not compiler._CACHE  # nothing was kept: the next compile asks again
    compile_jwt(bank, llm(flavour, fake))
    assert len(fake.received) == 2


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_rule_breaking_answer_gets_one_repair_round(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    bad = answer(TLDR="JWT tokens are signed. They expire after fifteen minutes. Refresh tokens rotate.")
    fake.script(Reply(text=bad), Reply(text=answer()))
    compiled = compile_jwt(bank, llm(flavour, fake))
    assert values_of(compiled.text)["TLDR"].startswith("How the API issues")
    first, second = fake.received
    assert "more than one sentence" not in user_text(flavour, first)
    repair = user_text(flavour, second)
    assert "TLDR has more than one sentence" in repair
    assert "They expire after fifteen minutes" in repair  # the previous answer is shown to be fixed


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_second_rule_breaking_answer_fails_with_the_problems(
    bank: Bank, fake: FakeLLM, flavour: str
) -> None:
    bad = answer(TLDR="JWT tokens are signed. They expire. Refresh tokens rotate.")
    fake.script(Reply(text=bad), Reply(text=answer(TLDR="Still two. Sentences here.", CONFIDENCE="sure")))
    with pytest.raises(CompileError) as info:
        compile_jwt(bank, llm(flavour, fake))
    message = str(info.value)
    assert "after one repair" in message and "nothing was changed" in message
    assert "more than one sentence" in message and "CONFIDENCE is 'sure'" in message
    assert len(fake.received) == 2  # one repair round, never more


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_file_without_concept_is_asked_for_one(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    text = "# Token notes\n\nNotes on rotating the RS256 signing keys of the token service.\n"
    fake.script(Reply(text=answer()), Reply(text=answer(CONCEPT="Signing Keys")))
    compiled = compile_header(bank, "notes/signing.md", text, llm(flavour, fake), 5.0)
    assert "CONCEPT is missing" in user_text(flavour, fake.received[1])
    assert values_of(compiled.text)["CONCEPT"] == "signing-keys"
    assert compiled.text.endswith("\n\n" + text)


# --- provider failures -----------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_http_500_is_an_error_saying_what_to_do(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    fake.script(*every_time(Reply(status=500, text="The server had an error while processing your request")))
    with pytest.raises(CompileError) as info:
        compile_jwt(bank, llm(flavour, fake))
    message = str(info.value)
    assert "HTTP 500" in message and "try again later" in message
    assert "The server had an error" in message
    assert KEY not in message
    assert len(fake.received) == 5  # the first request and its four retries


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_provider_that_does_not_answer_in_time_is_an_error(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    fake.script(Reply(delay=10))
    with pytest.raises(CompileError) as info:
        compile_jwt(bank, llm(flavour, fake), timeout=0.3)
    message = str(info.value)
    assert "no answer within 0.3 s" in message and "raise ckp.llm.timeout" in message


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_refused_key_is_an_error_that_never_shows_the_key(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    base = fake.openai_base_url if flavour == "openai" else fake.anthropic_base_url
    wrong = "sk-wrong-key-never-shown-77"
    provider = provider_for(LlmConfig(provider=flavour, base_url=base), {ENV_KEYS[flavour]: wrong})
    with pytest.raises(CompileError) as info:
        compile_jwt(bank, provider)
    assert "HTTP 401" in str(info.value) and wrong not in str(info.value)
    assert wrong not in repr(provider)


# --- the cache -------------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_unchanged_recompile_does_not_ask_again(bank: Bank, fake: FakeLLM, flavour: str) -> None:
    first = compile_jwt(bank, llm(flavour, fake))
    again = compile_jwt(bank, llm(flavour, fake))
    assert (first.cached, again.cached) == (False, True)
    assert again.text == first.text
    assert len(fake.received) == 1
    changed = jwt_text() + "\nOne more line of body.\n"
    compile_header(bank, "jwt.md", changed, llm(flavour, fake), 5.0)
    assert len(fake.received) == 2  # a changed body is a new question


def test_the_cache_tells_providers_and_models_apart(bank: Bank, fake: FakeLLM) -> None:
    compile_jwt(bank, llm("openai", fake))
    compile_jwt(bank, llm("anthropic", fake))
    other = provider_for(
        LlmConfig(provider="openai", model="m-other", base_url=fake.openai_base_url), {"OPENAI_API_KEY": KEY}
    )
    compile_jwt(bank, other)
    assert len(fake.received) == 3


# --- a command -------------------------------------------------------------------------------


def command(*args: str) -> str:
    return shlex.join([sys.executable, str(ANSWER_SCRIPT), *args])


def test_a_command_answers_on_stdout_from_the_prompt_on_stdin(bank: Bank) -> None:
    provider = provider_for(LlmConfig(provider="command", command=command()), {})
    compiled = compile_jwt(bank, provider)
    values = values_of(compiled.text)
    # The script quotes the first body line it was shown, so the prompt reached its stdin.
    assert values["ANSWERS_WHEN"] == ["jwt", "seen: # JSON Web Tokens"]
    assert values["SIMILAR_HIGH"] == [f"oauth2:{this_month()}"]
    assert body_of(compiled.text) == body_of(jwt_text())


def test_a_failing_command_is_an_error_with_its_stderr(bank: Bank) -> None:
    provider = provider_for(LlmConfig(provider="command", command=command("--fail")), {})
    with pytest.raises(CompileError) as info:
        compile_jwt(bank, provider)
    assert "exit status 3" in str(info.value) and "no model configured" in str(info.value)


def test_a_command_printing_prose_is_an_error(bank: Bank) -> None:
    provider = provider_for(LlmConfig(provider="command", command=command("--prose")), {})
    with pytest.raises(CompileError, match="not a JSON header object"):
        compile_jwt(bank, provider)


def test_offline_needs_no_provider(bank: Bank) -> None:
    assert provider_for(LlmConfig(provider="offline")) is None
    compiled = compile_jwt(bank, None)
    assert values_of(compiled.text)["CONCEPT"] == "jwt"
    assert body_of(compiled.text) == body_of(jwt_text())


def test_an_offline_recompile_keeps_what_it_did_not_check(bank: Bank) -> None:
    """SPEC §7: the user's valid TLDR, existing relationships with their dates and VALIDATED stay;
    an entry naming no concept goes; an entry found by evidence is dated now."""
    text = jwt_text().replace("SIMILAR_HIGH: oauth2:2026-10", "SIMILAR_HIGH: oauth2:2026-10, ghost:2026-10")
    text += "\nUnlike `sessions`, tokens need no server-side store.\n"
    compiled = compile_header(bank, "jwt.md", text, None, month="2026-12")
    written = read_knowledge_file("jwt.md", compiled.text).written()
    assert written["TLDR"] == "Old summary of tokens."
    assert written["VALIDATED"] == "2026-10"
    assert written["SIMILAR_HIGH"].split(", ")[0] == "oauth2:2026-10"
    assert "ghost" not in written["SIMILAR_HIGH"] + written["SIMILAR_MID"]
    added = [
        e
        for e in (written["SIMILAR_HIGH"] + ", " + written["SIMILAR_MID"]).split(", ")
        if e and "oauth2" not in e
    ]
    assert added and all(e.endswith(":2026-12") for e in added)


@pytest.mark.parametrize(
    ("base_url", "needs_key"),
    [
        (None, True),  # OpenAI's own API
        ("https://API.OpenAI.com:443/v1", True),  # the same host, written otherwise
        ("http://127.0.0.1:11434/v1", False),  # a local OpenAI-compatible server (Ollama)
    ],
)
def test_openai_asks_for_a_key_only_on_openais_own_host(base_url: str | None, needs_key: bool) -> None:
    config = LlmConfig(provider="openai", base_url=base_url)
    if needs_key:
        with pytest.raises(CompileError, match="the OpenAI API needs a key: set OPENAI_API_KEY"):
            provider_for(config, {})
    else:
        assert provider_for(config, {}) is not None
