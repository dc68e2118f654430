"""What an LLM compile costs, against loopback OpenAI-compatible and Anthropic endpoints over real HTTP:
a prompt that does not grow with the bank, the file's language, structured output with a fallback,
retries that honour Retry-After, and the tokens counted from the API's ``usage``."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from ckp_lsp.core.bank.bank import Bank
from ckp_lsp.core.compile import compiler
from ckp_lsp.core.compile.compiler import Compiled, compile_header
from ckp_lsp.core.compile.job import Job
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.llm.providers import AnthropicProvider, OpenAIProvider, Provider, ProviderError
from tests.fake_llm import FakeLLM, Received, Reply
from tests.unit.builders import COMPILE, TODAY

ROOT = Path(__file__).resolve().parents[2]
SOURCE = COMPILE / "memory-bank"
FLAVOURS = ["openai", "anthropic"]


pytestmark = pytest.mark.usefixtures("empty_compile_cache")


def generated(dest: Path, n: int) -> Path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from genbank import generate
    finally:
        sys.path.pop(0)
    generate(dest, n, seed=3)
    return dest


def bank_with_jwt(tmp_path: Path, others: int) -> Bank:
    """A generated bank of ``others`` files, plus the test bank's jwt.md and oauth2.md."""
    root = generated(tmp_path / f"bank{others}" / "memory-bank", others)
    for name in ("jwt.md", "oauth2.md"):
        shutil.copy(SOURCE / name, root / name)
    return load_bank(root, today=TODAY)


def provider_for(flavour: str, fake: FakeLLM) -> Provider:
    if flavour == "openai":
        return OpenAIProvider(base_url=fake.openai_base_url, model="m")
    return AnthropicProvider(base_url=fake.anthropic_base_url, model="m", api_key="k")


def compile_jwt(bank: Bank, provider: Provider, timeout: float | Job = 10) -> Compiled:
    """The test bank's jwt.md compiled by ``provider``."""
    return compile_header(bank, "jwt.md", (bank.root / "jwt.md").read_text(), provider, timeout)


def compile_once(bank: Bank, flavour: str = "openai") -> tuple[Compiled, Received]:
    """jwt.md compiled against a fresh endpoint of ``flavour``: the result, and the one request sent."""
    with FakeLLM() as fake:
        compiled = compile_jwt(bank, provider_for(flavour, fake))
        [request] = fake.received
    return compiled, request


def asks_structure(request: Received) -> bool:
    """Whether a request asked for structured output (a JSON schema, or a tool to call)."""
    return "response_format" in request.body or "tools" in request.body


def prompt_chars(request: Received) -> int:
    """Characters of the prompt a request carried (system and user)."""
    body = request.body
    text = json.dumps(body["messages"]) + str(body.get("system", ""))  # as the fake counts
    return len(text)


def user_text(request: Received) -> str:
    return str(request.body["messages"][-1]["content"])


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_prompt_does_not_grow_with_the_bank(tmp_path: Path, flavour: str) -> None:
    sizes = {}
    for n in (38, 998):  # 40 and 1,000 files with jwt.md and oauth2.md
        _, request = compile_once(bank_with_jwt(tmp_path, n), flavour)
        sizes[n + 2] = prompt_chars(request) / 4
        listed = [line for line in user_text(request).splitlines() if line.startswith("- ")]
        assert len(listed) <= 40
        assert any(line.startswith("- oauth2 |") for line in listed)  # the header's own is kept
    assert sizes[1000] <= 1.5 * sizes[40], sizes
    assert sizes[1000] <= 6000, sizes


def test_a_long_body_is_cut_with_a_note(tmp_path: Path) -> None:
    bank = bank_with_jwt(tmp_path, 10)
    text = (bank.root / "jwt.md").read_text() + "\nThe tokens are signed and checked.\n" * 100_000
    with FakeLLM() as fake:
        compile_header(bank, "jwt.md", text, provider_for("openai", fake), 10)
        [request] = fake.received
    assert prompt_chars(request) / 4 <= 6000
    assert "only its first" in user_text(request) and "characters are shown" in user_text(request)


def test_the_prompt_asks_for_the_files_language(tmp_path: Path) -> None:
    bank = bank_with_jwt(tmp_path, 5)
    text = (
        "CONCEPT: jeton\n\n# Jetons d'accès\n\nLe serveur émet des jetons d'accès signés avec une clé privée. "
        "Les clients les envoient dans l'en-tête de chaque requête et le serveur vérifie la signature "
        "ainsi que la date d'expiration avant de répondre. Les jetons sont renouvelés toutes les heures.\n"
    )
    (bank.root / "jeton.md").write_text(text)
    bank = load_bank(bank.root, today=TODAY)
    with FakeLLM() as fake:
        compile_header(bank, "jeton.md", text, provider_for("openai", fake), 10)
        compile_jwt(bank, provider_for("openai", fake))
        french, english = (user_text(r) for r in fake.received)
    assert "in the language the file's text is written in (it looks like language code 'fr')" in french
    assert "in the language the file's text is written in, not in English unless" in english


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_structured_output_is_asked_for_and_used(tmp_path: Path, flavour: str) -> None:
    compiled, request = compile_once(bank_with_jwt(tmp_path, 5), flavour)
    if flavour == "openai":
        schema = request.body["response_format"]["json_schema"]["schema"]
    else:
        assert request.body["tool_choice"] == {"type": "tool", "name": "ckp_header"}
        schema = request.body["tools"][0]["input_schema"]
    assert schema["required"] == ["TLDR", "ANSWERS_WHEN", "SIMILAR_HIGH", "SIMILAR_MID", "CONFIDENCE"]
    assert compiled.answer.similar_high == ["oauth2"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_server_without_structured_output_gets_the_text_contract_once_rejected(
    tmp_path: Path, flavour: str
) -> None:
    bank = bank_with_jwt(tmp_path, 5)
    with FakeLLM(structured=False) as fake:
        provider = provider_for(flavour, fake)
        compile_jwt(bank, provider)
        compile_header(bank, "oauth2.md", (bank.root / "oauth2.md").read_text(), provider, 10)
        asked = [asks_structure(r) for r in fake.received]
    assert asked == [True, False, False]  # rejected once, then never asked again this run
    compiler._CACHE.clear()
    with FakeLLM(structured=False) as other:  # another endpoint: asked with structure first
        compile_jwt(bank, provider_for(flavour, other))
        assert asks_structure(other.received[0])


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_fallback_is_remembered_for_the_endpoint_across_providers(tmp_path: Path, flavour: str) -> None:
    bank = bank_with_jwt(tmp_path, 5)
    with FakeLLM(structured=False) as fake:
        for _ in range(2):  # the editor makes a provider for each Recompile
            compiler._CACHE.clear()
            compile_jwt(bank, provider_for(flavour, fake))
        asked = [asks_structure(r) for r in fake.received]
    assert asked == [True, False, False]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_429_is_retried_after_what_retry_after_says(tmp_path: Path, flavour: str) -> None:
    bank = bank_with_jwt(tmp_path, 5)
    with FakeLLM() as fake:
        fake.script(Reply(status=429, text="slow down", headers=(("Retry-After", "1"),)))
        job = Job(10)
        started = time.monotonic()
        compiled = compile_jwt(bank, provider_for(flavour, fake), job)
        waited = time.monotonic() - started
        assert len(fake.received) == 2
    assert waited >= 1.0
    assert compiled.answer.similar_high == ["oauth2"]
    assert compiled.usage.requests == 2 and compiled.usage.prompt_tokens > 100


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_retry_after_past_the_deadline_fails_at_once_saying_so(tmp_path: Path, flavour: str) -> None:
    bank = bank_with_jwt(tmp_path, 5)
    with FakeLLM() as fake:
        fake.script(Reply(status=429, text="slow down", headers=(("Retry-After", "120"),)))
        started = time.monotonic()
        with pytest.raises(ProviderError, match=r"HTTP 429: slow down.*asked to wait 120 s, past the 10 s"):
            compile_jwt(bank, provider_for(flavour, fake))
        assert time.monotonic() - started < 3


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_other_4xx_are_errors_with_the_providers_message(tmp_path: Path, flavour: str) -> None:
    bank = bank_with_jwt(tmp_path, 5)
    with FakeLLM() as fake:
        fake.script(*[Reply(status=404, text="model 'm' not found")] * 2)
        with pytest.raises(ProviderError, match=r"HTTP 404: model 'm' not found"):
            compile_jwt(bank, provider_for(flavour, fake))
        assert len(fake.received) == 1  # not retried


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_tokens_are_counted_from_the_apis_usage(tmp_path: Path, flavour: str) -> None:
    compiled, request = compile_once(bank_with_jwt(tmp_path, 5), flavour)
    # The fake counts a token per 4 characters, as its usage says.
    assert compiled.usage.prompt_tokens == prompt_chars(request) // 4
    assert compiled.usage.completion_tokens > 10


def test_candidates_come_from_evidence_both_ways(tmp_path: Path) -> None:
    bank = bank_with_jwt(tmp_path, 300)
    (bank.root / "listing.md").write_text(
        "CONCEPT: quarry-ledger\nTLDR: Quarry ledger rows.\nANSWERS_WHEN: quarry ledger\n"
        "SIMILAR_MID: jwt:2026-10\n\n# Quarry ledger\n\nRows of the quarry.\n"
    )
    _, request = compile_once(load_bank(bank.root, today=TODAY))
    listed = [line.split(" |")[0] for line in user_text(request).splitlines() if line.startswith("- ")]
    assert "- quarry-ledger" in listed  # its header lists jwt: the other way
    assert "- oauth2" in listed  # jwt's header and body name it: this way
    assert len(listed) <= 40
